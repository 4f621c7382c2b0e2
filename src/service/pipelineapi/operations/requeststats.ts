import { DAY_PATTERN, DAY_SHAPE, ErrorCode } from '../../../kit/wire.ts';
import { isCalendarDay } from '../../clock.ts';
import { readRequestCounts } from '../../db/status/request-counts.ts';
import { listPipelines } from '../../db/system/pipelines.ts';
import { ApiError, badParameter } from '../../errors.ts';
import type { Tree } from '../../render/document.ts';
import { requestStatsDocument } from '../answers/request-stats.ts';
import {
  knownPipeline,
  optionalPipelineIdParam,
  pattern,
  pipelineIdSchema,
  pipelineNotFound,
  type AnsweredBy,
} from '../fields.ts';
import type { OperationModule } from '../operation.ts';
import type { Params } from '../params.ts';
import { upstreamList } from './list.ts';

// requeststats: a day's exact counts per pipeline, hour and status (contract section 8), from
// the counts the status database keeps (db/status/request-counts.ts) or a gateway's index.

/** The `id` and `date` of a stats call, as requestlist reads them. */
function statsParams(params: Params, by: AnsweredBy) {
  return {
    pipelineId: optionalPipelineIdParam(params, by),
    day: params.matching('date', DAY_PATTERN, DAY_SHAPE, false),
  };
}

export const requeststats: OperationModule = {
  embedded: (ctx, params) => {
    const { pipelineId, day: asked } = statsParams(params, 'embedded');
    const day = asked ?? ctx.time.day(ctx.clock.now());
    if (!isCalendarDay(day)) throw badParameter('date', `must be a calendar day as ${DAY_SHAPE}`);
    if (pipelineId !== undefined) knownPipeline(ctx, pipelineId);
    const pipelines = listPipelines(ctx.dbs.system)
      .filter((p) => pipelineId === undefined || p.id === pipelineId)
      .map((p) => ({ id: p.id, name: p.name }));
    return requestStatsDocument(day, pipelines, readRequestCounts(ctx.dbs.status, day, pipelineId));
  },

  // Counts of an upstream's day come from the server's own index of its requests: exact for
  // the days the index watched, refused for others (counting one page would invent a total).
  upstream: async (upstream, params) => {
    const { pipelineId, day } = statsParams(params, 'upstream');
    const watched = await upstream.poller?.counts(day, pipelineId);
    if (!watched) {
      const why =
        (await upstream.poller?.dayState(day)) === 'missed'
          ? `the upstream listed more requests of that day than one answer holds, even per pipeline, so its request index missed some`
          : 'its request index did not watch that day';
      throw new ApiError(
        404,
        ErrorCode.UnknownApi,
        `Exact counts of ${day ?? 'this day'} are not available for service ${upstream.name}: ${why}.`,
      );
    }
    const pipelines = (await upstreamList(upstream, params)).body as { PipeLine: Tree[] };
    const known = pipelines.PipeLine.map((p) => ({ id: String(p.Id), name: String(p.Name) }));
    if (pipelineId !== undefined && !known.some((p) => p.id === pipelineId))
      throw pipelineNotFound(pipelineId);
    const names = new Map(known.map((p) => [p.id, p.name]));
    for (const c of watched.counts) if (!names.has(c.pipelineId)) names.set(c.pipelineId, c.name);
    return requestStatsDocument(
      watched.day,
      [...names]
        .filter(([id]) => pipelineId === undefined || id === pipelineId)
        .map(([id, name]) => ({ id, name })),
      watched.counts,
    );
  },

  openapi: {
    summary: 'A day’s exact request counts per pipeline, hour and status (contract 8)',
    fields: [
      { name: 'date', schema: pattern(DAY_PATTERN), description: 'yyyymmdd; today by default' },
      { name: 'id', schema: pipelineIdSchema, description: 'one pipeline only' },
    ],
    root: 'RequestStats',
  },
  samples: [
    {
      // pl_2's request has a status outside the contract (an open set): its own Count. pl_7 has
      // no request, so its Pipeline has no Count at all (an empty list XML cannot write).
      label: 'requeststats of a day, an unknown status, a pipeline without requests',
      phase: 'read',
      fields: (f) => ({ date: f.day }),
    },
    {
      label: 'requeststats of one pipeline',
      phase: 'read',
      fields: (f) => ({ date: f.day, id: 'pl_1' }),
    },
    { label: 'requeststats of an empty day', phase: 'read', fields: () => ({ date: '20000101' }) },
    {
      label: '400/1002 bad day of requeststats',
      fails: true,
      fields: () => ({ date: '20261131' }),
    },
    {
      label: '404/1201 requeststats of an unknown pipeline',
      fails: true,
      fields: () => ({ id: 'pl_99' }),
    },
  ],
};
