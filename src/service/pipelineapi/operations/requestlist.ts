import { DAY_PATTERN, DAY_SHAPE } from '../../../kit/wire.ts';
import { isCalendarDay, toSeconds } from '../../clock.ts';
import { listRequests } from '../../db/status/request-list.ts';
import { pipelineNames } from '../../db/system/pipelines.ts';
import { badParameter } from '../../errors.ts';
import { readDay } from '../../gateway/day-list.ts';
import { AS_OF_MARGIN_MS } from '../../gateway/as-of.ts';
import { requestListDocument } from '../answers/request-list.ts';
import {
  knownPipeline,
  optionalPipelineIdParam,
  pattern,
  pipelineIdSchema,
  whole,
  type AnsweredBy,
} from '../fields.ts';
import type { OperationModule } from '../operation.ts';
import { pageInfo } from '../paging.ts';
import type { Params } from '../params.ts';
import { requestFilter } from '../request-filter.ts';

// requestlist: a day's requests, newest first, filtered and paged (contract section 8).

/**
 * `id`, `date`, `index`, `pagesize` and the filters, in this order. `checkId` looks the
 * pipeline up and `dayOf` settles the day, each right after its parameter (the embedded
 * engine answers an unknown pipeline before a bad date).
 */
function requestListParams<D>(
  params: Params,
  by: AnsweredBy,
  checkId: (id: string) => void,
  dayOf: (date: string | undefined) => D,
) {
  const id = optionalPipelineIdParam(params, by);
  if (id !== undefined) checkId(id);
  const date = dayOf(params.matching('date', DAY_PATTERN, DAY_SHAPE, false));
  const index = params.integer('index', 0, 0, 1_000_000_000);
  const pageSize = params.integer('pagesize', 100, 1, 1000);
  return { id, date, index, pageSize, filter: requestFilter(params, by) };
}

export const requestlist: OperationModule = {
  embedded: (ctx, params) => {
    const { id, date, index, pageSize, filter } = requestListParams(
      params,
      'embedded',
      (pipeline) => knownPipeline(ctx, pipeline),
      (day = ctx.time.day(ctx.clock.now())) => {
        if (!isCalendarDay(day))
          throw badParameter('date', `must be a calendar day as ${DAY_SHAPE}`);
        return day;
      },
    );
    // Taken before the read: whatever changes after it is at or after AsOf.
    const asOf = ctx.time.sinceForm(new Date(ctx.clock.now().getTime() - AS_OF_MARGIN_MS));
    const page = listRequests(ctx.dbs.status, date, id, index, pageSize, filter);
    const names = pipelineNames(ctx.dbs.system);
    return requestListDocument(
      page.rows.map((r) => ({
        requestId: r.REQUESTID,
        pipelineId: r.PIPELINEID,
        name: names.get(r.PIPELINEID) ?? '',
        status: r.STATUS,
        stage: r.STAGE,
        beginDate: toSeconds(r.CREATED),
      })),
      pageInfo(index, pageSize, page.rows.length, page.total),
      date,
      id,
      asOf,
    );
  },

  upstream: async (upstream, params) => {
    const { id, date, index, pageSize, filter } = requestListParams(
      params,
      'upstream',
      () => undefined,
      (day) => day,
    );
    // A day the index watched is answered from it: exact totals, filters and any depth,
    // with no call to the upstream whatever the number of browsers.
    const poller = upstream.poller;
    const indexed = await poller?.list(
      date,
      {
        pipelineId: id,
        statuses: filter.statuses,
        text: filter.text,
        sinceMs: filter.since === undefined ? undefined : poller.sinceMs(filter.since),
      },
      index,
      pageSize,
    );
    if (indexed)
      return requestListDocument(
        indexed.rows,
        pageInfo(index, pageSize, indexed.rows.length, indexed.total),
        indexed.day,
        id,
        poller?.asOf(),
      );
    // Other days (before the index began) are asked of the upstream. interfaces.md shows no
    // filters and no change time: status and text are applied here to what it returned.
    if (filter.since !== undefined)
      throw badParameter(
        'since',
        `is not available for this day of service ${upstream.name}, which tells no change times`,
      );
    const listed = await readDay(upstream, { id, date });
    const needle = filter.text?.toLowerCase();
    const all = listed.requests.filter(
      (r) =>
        (filter.statuses === undefined || filter.statuses.includes(r.status)) &&
        (needle === undefined || r.requestId.toLowerCase().includes(needle)),
    );
    const page = all.slice(index, index + pageSize);
    // The upstream's own day when none was asked for: its "today", not ours.
    return requestListDocument(
      page,
      pageInfo(index, pageSize, page.length, all.length),
      listed.day || date || '',
      id,
    );
  },

  openapi: {
    summary: 'A day’s requests, newest first, filtered and paged',
    fields: [
      { name: 'id', schema: pipelineIdSchema, description: 'one pipeline only' },
      { name: 'date', schema: pattern(DAY_PATTERN), description: 'yyyymmdd; today by default' },
      { name: 'index', schema: whole(0, 1_000_000_000) },
      { name: 'pagesize', schema: whole(1, 1000) },
      { name: 'status', schema: { type: 'string', maxLength: 400 }, description: 'Error,Stop' },
      { name: 'q', schema: { type: 'string', maxLength: 200 }, description: 'a substring' },
      { name: 'since', schema: pattern(/^\d{14}$/), description: 'yyyymmddhhmmss' },
    ],
    root: 'RequestList',
  },
  samples: [
    { label: 'requestlist of a day, with Total', phase: 'read', fields: (f) => ({ date: f.day }) },
    {
      label: 'requestlist of one record',
      phase: 'read',
      fields: (f) => ({ date: f.day, id: 'pl_2' }),
    },
    { label: 'requestlist of an empty day', phase: 'read', fields: () => ({ date: '20000101' }) },
    { label: '400/1002 bad parameter', fails: true, fields: () => ({ date: '2026-11-21' }) },
  ],
};
