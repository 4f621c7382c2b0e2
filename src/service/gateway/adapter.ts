import {
  DAY_PATTERN,
  DAY_SHAPE,
  ErrorCode,
  PIPELINE_ID_PATTERN,
  PIPELINE_ID_SHAPE,
  REQUEST_ID_PATTERN,
  REQUEST_ID_SHAPE,
  type OperationName,
  type TreeValue,
} from '../../kit/index.ts';
import { ApiError, badParameter, missingParameter } from '../errors.ts';
import { requestFilter } from '../pipelineapi/request-filter.ts';
import { pageInfo } from '../pipelineapi/paging.ts';
import { requestStatsDocument } from '../pipelineapi/request-stats.ts';
import type { Params } from '../pipelineapi/params.ts';
import { CData, type Document, type Leaf, type Tree } from '../render/document.ts';
import { argItem, element, elements, rowCount, text, upstreamInbox } from './extensions.ts';
import { readAll } from './paging.ts';
import { readDay } from './poller.ts';
import { refusalsOf } from './status-semantics.ts';
import type { Upstream } from './upstream.ts';
import { normalDate } from './zone.ts';

// Part C answered for a service behind the gateway: each operation asks the upstream in
// interfaces.md's terms and answers the browser in our contract's, so the dashboard and
// the kit see one contract whatever stands behind. What the upstream did not say is
// never invented: no RequestId when the new request cannot be told apart, Total only as
// the count of what the upstream returned (exact when it returned less than was asked).

/** Rows of one table the gateway reads at most; beyond, a page says the table has more. */
export const TABLE_BOUND = 20_000;

export type UpstreamOperation = (upstream: Upstream, params: Params) => Promise<Document>;

/** A table row's cells as read loosely: text, or null for XML's `isnull="true"`. */
function recordCells(record: Readonly<Record<string, unknown>>): Leaf[] {
  const items = record.Item;
  const values = Array.isArray(items) ? (items as unknown[]) : items === undefined ? [] : [items];
  return values.map((v) =>
    typeof v === 'string'
      ? v
      : v !== null && typeof v === 'object' && (v as Record<string, unknown>)['@_isnull'] === 'true'
        ? null
        : typeof v === 'object' &&
            v !== null &&
            typeof (v as Record<string, unknown>)['#text'] === 'string'
          ? ((v as Record<string, unknown>)['#text'] as string)
          : '',
  );
}

const ok = (extra: Tree = {}): Document => ({
  root: 'ExecuteResponse',
  body: { Status: 'OK', Message: 'Success', ...extra },
});

const pipelineId = (params: Params, name = 'pipelineid') =>
  params.matching(name, PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE, true);
const requestId = (params: Params) =>
  params.matching('requestid', REQUEST_ID_PATTERN, REQUEST_ID_SHAPE, true);

/** One page of what the upstream returned whole: `index` and `pagesize` are ours. */
function slice<T>(all: readonly T[], params: Params, maxPage: number) {
  const pageSize = params.integer('pagesize', 100, 1, maxPage);
  const index = params.integer('index', 0, 0, 1_000_000_000);
  const page = all.slice(index, index + pageSize);
  return { page, info: pageInfo(index, pageSize, page.length, all.length) };
}

async function requestIds(upstream: Upstream, pipeline: string): Promise<Set<string>> {
  const { requests } = await readDay(upstream, { id: pipeline });
  return new Set(requests.map((r) => r.requestId));
}

/** A vendor's date in our one form (its own clock), text that is no date as it came. */
const date = (value: TreeValue | undefined): string => normalDate(text(value)).date;

const exec: UpstreamOperation = async (upstream, params) => {
  const pipeline = pipelineId(params);
  const filename = params.required('filename', 255);
  const fields: Record<string, string> = { pipelineid: pipeline, filename };
  // Args are passed on as they came; the upstream checks them.
  for (const name of params.names()) {
    if (name !== 'pipelineid' && name !== 'filename') fields[name] = params.required(name);
  }
  const before = await requestIds(upstream, pipeline);
  const tree = await upstream.call('exec', fields);
  const execute = element(tree.ExecuteResponse);
  const stated = text(execute.RequestId);
  upstream.poller?.nudge();
  if (stated) return ok({ RequestId: stated });
  // interfaces.md shows no RequestId in exec's answer: the new one is the request of
  // this pipeline that the day's list did not have before. Said only when it is one.
  const fresh = [...(await requestIds(upstream, pipeline))].filter((id) => !before.has(id));
  return fresh.length === 1
    ? ok({ RequestId: fresh[0] as string })
    : ok({
        Message: `Success; service ${upstream.name} did not say which request it started`,
      });
};

const list: UpstreamOperation = async (upstream) => {
  const tree = await (upstream.poller?.sharedCall('list') ?? upstream.call('list', {}));
  return {
    root: 'PipelineList',
    body: {
      PipeLine: elements(element(tree.PipelineList).PipeLine).map((p) => {
        const args = elements(element(p.Args).Item);
        return {
          Id: text(p.Id),
          Name: text(p.Name),
          Runmode: text(p.Runmode),
          Createdate: text(p.Createdate),
          Updatedate: text(p.Updatedate),
          Description: text(p.Description),
          ...(args.length > 0 ? { Args: { Item: args.map(argItem) } } : {}),
        };
      }),
    },
  };
};

/** The request list's answer in our contract's shape. */
function requestListDocument(
  requests: readonly {
    requestId: string;
    pipelineId: string;
    name: string;
    status: string;
    stage: string;
    beginDate: string;
  }[],
  paging: ReturnType<typeof pageInfo>,
  date: string,
  id: string | undefined,
  /** Only where `since` can be answered: a day the index watches. */
  asOf?: string,
): Document {
  return {
    root: 'RequestList',
    body: {
      Request: requests.map((r) => ({
        RequestId: r.requestId,
        PipelineId: r.pipelineId,
        Name: r.name,
        Status: r.status,
        Stage: r.stage,
        BeginDate: r.beginDate,
      })),
      Info: {
        Index: paging.Index,
        Prev: paging.Prev,
        Next: paging.Next,
        Count: paging.Count,
        Error: false,
        Date: date,
        Id: id ?? '',
        Total: paging.Total,
        ...(asOf === undefined ? {} : { AsOf: asOf }),
      },
    },
  };
}

const requestlist: UpstreamOperation = async (upstream, params) => {
  const id = params.matching('id', PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE, false);
  const date = params.matching('date', DAY_PATTERN, DAY_SHAPE, false);
  const filter = requestFilter(params);
  const pageSize = params.integer('pagesize', 100, 1, 1000);
  const index = params.integer('index', 0, 0, 1_000_000_000);
  // A day the index watched is answered from it: exact totals, filters and any depth,
  // with no call to the upstream whatever the number of browsers.
  const poller = upstream.poller;
  const indexed = poller?.list(
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
  const { page, info: paging } = slice(all, params, 1000);
  // The upstream's own day when none was asked for: its "today", not ours.
  return requestListDocument(page, paging, listed.day || date || '', id);
};

function logs(value: TreeValue | undefined, fields: readonly string[]): Tree {
  return {
    Log: elements(element(value).Log).map((log) =>
      Object.fromEntries(
        fields.map((f) => [
          f,
          f === 'ActionOrder' || f === 'Index' ? Number(text(log[f])) || 0 : text(log[f]),
        ]),
      ),
    ),
  };
}

const requestdetail: UpstreamOperation = async (upstream, params) => {
  const requestLog = params.boolean('requestlog', false);
  const appLog = params.boolean('applog', false);
  const tree = await upstream.call('requestdetail', {
    requestid: requestId(params),
    requestlog: String(requestLog),
    applog: String(appLog),
  });
  const d = element(tree.RequestDetail);
  if (text(d.RequestId))
    upstream.poller?.observed(text(d.RequestId), {
      status: text(d.Status),
      stage: text(d.Stage),
      endTime: date(d.EndTime),
      // Its file, for `q` (issue 25): any detail read through here tells it for free.
      sensorFile: text(d.SensorFile),
    });
  return {
    root: 'RequestDetail',
    body: {
      RequestId: text(d.RequestId),
      PipelineId: text(d.PipelineId),
      Name: text(d.Name),
      Status: text(d.Status),
      Stage: text(d.Stage),
      BeginTime: date(d.BeginTime),
      EndTime: date(d.EndTime),
      SensorTime: text(d.SensorTime),
      FilterTime: text(d.FilterTime),
      JointTime: text(d.JointTime),
      SensorFile: new CData(text(d.SensorFile)),
      FileSize: text(d.FileSize),
      // Our own services state rows per stage; a vendor service does not, and none is made up.
      ...rowCount('SensorRows', d.SensorRows),
      ...rowCount('FilterKept', d.FilterKept),
      ...rowCount('JointRows', d.JointRows),
      ...(requestLog
        ? {
            RequestLog: logs(d.RequestLog, [
              'Date',
              'Stage',
              'Event',
              'Status',
              'ActionOrder',
              'Message',
            ]),
          }
        : {}),
      ...(appLog ? { AppLog: logs(d.AppLog, ['Index', 'Date', 'Type', 'Message']) } : {}),
    },
  };
};

const change =
  (operation: OperationName, fields: (params: Params) => Record<string, string>) =>
  async (upstream: Upstream, params: Params): Promise<Document> => {
    const sent = fields(params);
    const tree = await upstream.call(operation, sent);
    // The index learns of a change made here at once, not a whole interval later.
    upstream.poller?.nudge(sent.requestid);
    const rowCount = element(tree.ExecuteResponse).RowCount;
    return ok(rowCount === undefined ? {} : { RowCount: Number(text(rowCount)) || 0 });
  };

/**
 * The status a request is in now: the upstream's own word (the index may be a round
 * behind), else the index's when the upstream cannot tell.
 */
async function statusNow(upstream: Upstream, id: string): Promise<string | undefined> {
  try {
    const tree = await upstream.call('requestdetail', { requestid: id });
    const status = text(element(tree.RequestDetail).Status);
    if (status) return status;
  } catch {
    // Not knowing the status only means nothing is learnt; the refusal is answered as it came.
  }
  const poller = upstream.poller;
  return poller?.index.statusCounts(poller.service, [id])[0]?.status;
}

/**
 * A retry or cancel whose refusal (409: the upstream would not, in the request's state)
 * teaches the gateway that this status cannot be retried or cancelled on that service: the
 * dashboard stops offering it, and the Services page says what was learnt and when.
 */
const learning =
  (action: 'retry' | 'cancel', operation: UpstreamOperation): UpstreamOperation =>
  async (upstream, params) => {
    try {
      return await operation(upstream, params);
    } catch (error) {
      const refusals = refusalsOf(upstream);
      if (error instanceof ApiError && error.httpStatus === 409 && refusals) {
        const id = requestId(params);
        const status = await statusNow(upstream, id);
        if (status)
          refusals.record({ action, status, message: error.message, at: new Date().toISOString() });
      }
      throw error;
    }
  };

const tableName = (params: Params, name: string): string => {
  const value = params.optional(name, 128);
  if (value === undefined) throw missingParameter(name);
  return value;
};

const databaseBrowser =
  (operation: 'systemdb' | 'statusdb' | 'actiondb'): UpstreamOperation =>
  async (upstream, params) => {
    const table = params.optional('tablename', 128);
    const pageSize = params.integer('pagesize', 100, 1, 10_000);
    const index = params.integer('index', 0, 0, 1_000_000_000);
    const { items, whole, tree } = await readAll(
      upstream,
      operation,
      { tablename: table },
      { root: 'Result', record: 'Record', map: recordCells, key: (cells) => JSON.stringify(cells) },
      TABLE_BOUND,
    );
    const result = element(tree.Result);
    const page = items.slice(index, index + pageSize);
    const info = pageInfo(index, pageSize, page.length, items.length);
    const header = element(result.Header);
    return {
      root: 'Result',
      body: {
        // Only what was read is counted: past the bound, no Total is said, and Bound tells
        // how many rows were read of a table that may hold more.
        Info: whole
          ? { ...info }
          : {
              Index: info.Index,
              Prev: info.Prev,
              Next: info.Next,
              Count: info.Count,
              Bound: items.length,
            },
        Header:
          table === undefined
            ? { Item: ['tablename'] }
            : {
                Item: elements(header.Item).map((c) => ({
                  Name: text(c.Name),
                  Type: text(c.Type),
                  Key: text(c.Key) || 'false',
                })),
              },
        Record: page.map((cells) => ({ Item: cells })),
        Status: 'OK',
      },
    };
  };

/** Every Part C operation, answered for a service behind the gateway. */
export const upstreamOperations: Readonly<Record<OperationName, UpstreamOperation>> = {
  list,
  exec,
  requestlist,
  requestdetail,
  // Counts of an upstream's day come from the server's own index of its requests: exact for
  // the days the index watched, refused for others (counting one page would invent a total).
  requeststats: async (upstream, params) => {
    const day = params.matching('date', DAY_PATTERN, DAY_SHAPE, false);
    const pipelineId = params.matching('id', PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE, false);
    const watched = upstream.poller?.counts(day, pipelineId);
    if (!watched) {
      const why =
        upstream.poller?.dayState(day) === 'missed'
          ? `the upstream listed more requests of that day than one answer holds, even per pipeline, so its request index missed some`
          : 'its request index did not watch that day';
      throw new ApiError(
        404,
        ErrorCode.UnknownApi,
        `Exact counts of ${day ?? 'this day'} are not available for service ${upstream.name}: ${why}.`,
      );
    }
    const pipelines = (await list(upstream, params)).body as { PipeLine: Tree[] };
    const known = pipelines.PipeLine.map((p) => ({ id: String(p.Id), name: String(p.Name) }));
    if (pipelineId !== undefined && !known.some((p) => p.id === pipelineId)) {
      throw new ApiError(404, ErrorCode.PipelineNotFound, `Pipeline ${pipelineId} does not exist.`);
    }
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
  inbox: upstreamInbox,
  requestretry: learning(
    'retry',
    change('requestretry', (p) => ({ requestid: requestId(p) })),
  ),
  requestcancel: learning(
    'cancel',
    change('requestcancel', (p) => ({ requestid: requestId(p) })),
  ),
  resume: change('resume', (p) => ({ pipelineid: pipelineId(p) })),
  suspend: change('suspend', (p) => ({ pipelineid: pipelineId(p) })),
  version: async (upstream) => {
    const tree = await (upstream.poller?.sharedCall('version') ?? upstream.call('version', {}));
    return { root: 'Response', body: { Version: text(element(tree.Response).Version) } };
  },
  systemdb: databaseBrowser('systemdb'),
  statusdb: databaseBrowser('statusdb'),
  actiondb: databaseBrowser('actiondb'),
  pipelinecache: change('pipelinecache', (p) => ({
    pipelineid: pipelineId(p),
    sensor: String(p.boolean('sensor', false)),
    filter: String(p.boolean('filter', false)),
    joint: String(p.boolean('joint', false)),
  })),
  deletetable: change('deletetable', (p) => ({ table: tableName(p, 'table') })),
  droptable: change('droptable', (p) => ({ table: tableName(p, 'table') })),
};
