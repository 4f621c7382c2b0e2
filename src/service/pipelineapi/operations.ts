import {
  DAY_PATTERN,
  DAY_SHAPE,
  ErrorCode,
  PIPELINE_ID_PATTERN,
  PIPELINE_ID_SHAPE,
  REQUEST_ID_PATTERN,
  REQUEST_ID_SHAPE,
  type DatabaseName,
  type OperationName,
} from '../../kit/wire.ts';
import { formatDuration, isCalendarDay, toSeconds } from '../clock.ts';
import type { ServiceContext } from '../context.ts';
import { deleteAllRows, dropTable } from '../db/action/tables.ts';
import { PageTooLargeError, readTablePage } from '../db/catalogue.ts';
import { formatBytes } from '../limits.ts';
import { listRequests } from '../db/status/request-list.ts';
import { inbox, isPlainFileName } from './inbox.ts';
import { argProblem } from '../pipelines/arg-rules.ts';
import { AS_OF_MARGIN_MS, requestFilter } from './request-filter.ts';
import { requeststats } from './request-stats.ts';
import { createRequest, getRequest, readAppLog, readRequestLog } from '../db/status/requests.ts';
import {
  getPipeline,
  listPipelines,
  pipelineNames,
  setRunmode,
  type PipelineRow,
  type StageName,
} from '../db/system/pipelines.ts';
import { ApiError, badParameter, missingParameter, stateConflict } from '../errors.ts';
import { CData, type Document, type Tree } from '../render/document.ts';
import { pageInfo } from './paging.ts';
import type { Params } from './params.ts';

export type Operation = (ctx: ServiceContext, params: Params) => Document | Promise<Document>;

const ok = (extra: Tree = {}): Document => ({
  root: 'ExecuteResponse',
  body: { Status: 'OK', Message: 'Success', ...extra },
});

function pipelineParam(ctx: ServiceContext, params: Params, name: string): PipelineRow {
  const id = params.matching(name, PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE, true);
  const pipeline = getPipeline(ctx.dbs.system, id);
  if (!pipeline)
    throw new ApiError(404, ErrorCode.PipelineNotFound, `Pipeline ${id} does not exist.`);
  return pipeline;
}

function requestIdParam(params: Params): string {
  return params.matching('requestid', REQUEST_ID_PATTERN, REQUEST_ID_SHAPE, true);
}

/** `12.3 KB`: base 1024, one decimal; plain bytes without decimals. */
export function formatFileSize(bytes: number | null): string {
  if (bytes === null) return '';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

const list: Operation = (ctx) => ({
  root: 'PipelineList',
  body: {
    PipeLine: listPipelines(ctx.dbs.system).map((p) => ({
      Id: p.id,
      Name: p.name,
      Runmode: p.runmode,
      Createdate: ctx.time.pipelineDate(new Date(p.created)),
      Updatedate: ctx.time.pipelineDate(new Date(p.updated)),
      Description: p.description,
      ...(p.args.length > 0
        ? {
            Args: {
              Item: p.args.map((a) => ({
                Name: a.name,
                Value: a.defaultValue,
                ...(a.rules.type !== undefined ? { Type: a.rules.type } : {}),
                ...(a.rules.required !== undefined ? { Required: a.rules.required } : {}),
                ...(a.rules.pattern !== undefined ? { Pattern: a.rules.pattern } : {}),
                ...(a.rules.choices !== undefined ? { Choice: [...a.rules.choices] } : {}),
              })),
            },
          }
        : {}),
    })),
  },
});

const exec: Operation = (ctx, params) => {
  const pipeline = pipelineParam(ctx, params, 'pipelineid');
  const filename = params.required('filename', 255);
  if (!isPlainFileName(filename)) {
    throw badParameter(
      'filename',
      'must be a plain file name inside the inbox folder (no /, \\, .. or control characters)',
    );
  }
  const args: Record<string, string> = {};
  for (const arg of pipeline.args) {
    const value = params.optional(arg.name, 1024) ?? arg.defaultValue;
    // Checked before the request exists: a bad value never becomes a run that keeps 0 rows.
    const problem = argProblem(arg.rules, value);
    if (problem !== undefined) throw badParameter(arg.name, problem);
    args[arg.name] = value;
  }
  const now = ctx.clock.now();
  const requestId = createRequest(ctx.dbs.status, {
    pipelineId: pipeline.id,
    filename,
    args,
    day: ctx.time.day(now),
    hour: ctx.time.hour(now),
    stamp: ctx.time.stamp(now),
  });
  ctx.engine.wake();
  return ok({ RequestId: requestId });
};

const requestlist: Operation = (ctx, params) => {
  const id = params.matching('id', PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE, false);
  if (id !== undefined && !getPipeline(ctx.dbs.system, id)) {
    throw new ApiError(404, ErrorCode.PipelineNotFound, `Pipeline ${id} does not exist.`);
  }
  const date =
    params.matching('date', DAY_PATTERN, DAY_SHAPE, false) ?? ctx.time.day(ctx.clock.now());
  if (!isCalendarDay(date)) throw badParameter('date', `must be a calendar day as ${DAY_SHAPE}`);
  const index = params.integer('index', 0, 0, 1_000_000_000);
  const pageSize = params.integer('pagesize', 100, 1, 1000);
  // Taken before the read: whatever changes after it is at or after AsOf.
  const asOf = ctx.time.sinceForm(new Date(ctx.clock.now().getTime() - AS_OF_MARGIN_MS));
  const page = listRequests(ctx.dbs.status, date, id, index, pageSize, requestFilter(params));
  const names = pipelineNames(ctx.dbs.system);
  return {
    root: 'RequestList',
    body: {
      Request: page.rows.map((r) => ({
        RequestId: r.REQUESTID,
        PipelineId: r.PIPELINEID,
        Name: names.get(r.PIPELINEID) ?? '',
        Status: r.STATUS,
        Stage: r.STAGE,
        BeginDate: toSeconds(r.CREATED),
      })),
      Info: {
        ...pageInfoFields(index, pageSize, page.rows.length, page.total),
        Error: false,
        Date: date,
        Id: id ?? '',
        Total: page.total,
        AsOf: asOf,
      },
    },
  };
};

function pageInfoFields(index: number, pageSize: number, count: number, total: number) {
  const info = pageInfo(index, pageSize, count, total);
  return { Index: info.Index, Prev: info.Prev, Next: info.Next, Count: info.Count };
}

const requestdetail: Operation = (ctx, params) => {
  const requestId = requestIdParam(params);
  const withRequestLog = params.boolean('requestlog', false);
  const withAppLog = params.boolean('applog', false);
  const request = getRequest(ctx.dbs.status, requestId);
  if (!request)
    throw new ApiError(404, ErrorCode.RequestNotFound, `Request ${requestId} does not exist.`);
  const pipeline = getPipeline(ctx.dbs.system, request.pipelineId);
  const body: Record<string, Tree[keyof Tree]> = {
    RequestId: request.requestId,
    PipelineId: request.pipelineId,
    Name: pipeline?.name ?? '',
    Status: request.status,
    Stage: request.stage,
    BeginTime: toSeconds(request.beginTime),
    EndTime: toSeconds(request.endTime),
    SensorTime: formatDuration(request.sensorMs),
    FilterTime: formatDuration(request.filterMs),
    JointTime: formatDuration(request.jointMs),
    SensorFile: new CData(request.sensorFile ?? request.filename),
    FileSize: formatFileSize(request.fileSize),
    ...(request.sensorRows !== null ? { SensorRows: request.sensorRows } : {}),
    ...(request.filterKept !== null ? { FilterKept: request.filterKept } : {}),
    ...(request.jointRows !== null ? { JointRows: request.jointRows } : {}),
  };
  if (withRequestLog) {
    body.RequestLog = {
      Log: readRequestLog(ctx.dbs.status, requestId).map((l) => ({
        Date: l.date,
        Stage: l.stage,
        Event: l.event,
        Status: l.status,
        ActionOrder: l.actionOrder,
        Message: l.message,
      })),
    };
  }
  if (withAppLog) {
    body.AppLog = {
      Log: readAppLog(ctx.dbs.status, requestId).map((l) => ({
        Index: l.index,
        Date: l.date,
        Type: l.type,
        Message: l.message,
      })),
    };
  }
  return { root: 'RequestDetail', body };
};

function existingRequest(ctx: ServiceContext, params: Params): string {
  const requestId = requestIdParam(params);
  if (!getRequest(ctx.dbs.status, requestId)) {
    throw new ApiError(404, ErrorCode.RequestNotFound, `Request ${requestId} does not exist.`);
  }
  return requestId;
}

const requestretry: Operation = (ctx, params) => {
  ctx.engine.retry(existingRequest(ctx, params));
  return ok();
};

const requestcancel: Operation = (ctx, params) => {
  ctx.engine.cancel(existingRequest(ctx, params));
  return ok();
};

const runmode =
  (mode: 'run' | 'stop'): Operation =>
  (ctx, params) => {
    const pipeline = pipelineParam(ctx, params, 'pipelineid');
    if (pipeline.runmode !== mode) {
      setRunmode(ctx.dbs.system, pipeline.id, mode, ctx.clock.now().toISOString());
      ctx.engine.wake();
    }
    return ok();
  };

const version: Operation = (ctx) => ({ root: 'Response', body: { Version: ctx.version } });

const TABLE_NAME_FORM = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function tableParam(
  ctx: ServiceContext,
  database: DatabaseName,
  params: Params,
  name: string,
): string | undefined {
  const requested = params.optional(name, 128);
  if (requested === undefined) return undefined;
  if (!TABLE_NAME_FORM.test(requested)) {
    throw badParameter(name, 'must be a table name (letters, digits and _)');
  }
  const table = ctx.dbs.catalogues[database].find(ctx.dbs.readers[database], requested);
  if (!table) {
    throw new ApiError(
      404,
      ErrorCode.TableNotFound,
      `Table ${requested} does not exist in the ${database} database.`,
    );
  }
  return table;
}

const databaseBrowser =
  (database: DatabaseName): Operation =>
  (ctx, params) => {
    const table = tableParam(ctx, database, params, 'tablename');
    const pageSize = params.integer('pagesize', 100, 1, 10_000);
    const index = params.integer('index', 0, 0, 1_000_000_000);
    const db = ctx.dbs.readers[database];
    if (table === undefined) {
      const tables = ctx.dbs.catalogues[database].tables(db);
      const slice = tables.slice(index, index + pageSize);
      return {
        root: 'Result',
        body: {
          Info: {
            ...pageInfoFields(index, pageSize, slice.length, tables.length),
            Total: tables.length,
          },
          Header: { Item: ['tablename'] },
          Record: slice.map((name) => ({ Item: [name] })),
          Status: 'OK',
        },
      };
    }
    let page;
    try {
      page = readTablePage(db, table, index, pageSize, ctx.limits.maxAnswerBytes);
    } catch (error) {
      if (!(error instanceof PageTooLargeError)) throw error;
      throw badParameter(
        'pagesize',
        `asks for a page of ${table} larger than ${formatBytes(ctx.limits.maxAnswerBytes)} (the limit of one answer); ${error.rowsThatFit} rows fit from index ${index}`,
      );
    }
    return {
      root: 'Result',
      body: {
        Info: {
          ...pageInfoFields(index, pageSize, page.rows.length, page.total),
          Total: page.total,
        },
        Header: {
          Item: page.columns.map((c) => ({ Name: c.name, Type: c.type, Key: String(c.key) })),
        },
        Record: page.rows.map((row) => ({ Item: row })),
        Status: 'OK',
      },
    };
  };

const pipelinecache: Operation = async (ctx, params) => {
  const pipeline = pipelineParam(ctx, params, 'pipelineid');
  const stages: StageName[] = [];
  if (params.boolean('sensor', false)) stages.push('Sensor');
  if (params.boolean('filter', false)) stages.push('Filter');
  if (params.boolean('joint', false)) stages.push('Joint');
  if (stages.length === 0) {
    throw new ApiError(
      400,
      ErrorCode.MissingParameter,
      'At least one of sensor, filter or joint must be true.',
    );
  }
  await ctx.engine.clearCache(pipeline.id, stages);
  return ok();
};

const tableChange =
  (change: 'delete' | 'drop'): Operation =>
  async (ctx, params) => {
    const table = tableParam(ctx, 'action', params, 'table');
    if (table === undefined) throw missingParameter('table');
    if (ctx.engine.isTableInUse(table)) {
      throw stateConflict(
        `Table ${table} is being written by a running request; try again when it ends.`,
      );
    }
    const rows = await ctx.engine.writeAction(() => {
      // Looked up again under the lock: a Joint that just ended may have created or changed it.
      const current = ctx.dbs.catalogues.action.find(ctx.dbs.action, table);
      if (!current)
        throw new ApiError(
          404,
          ErrorCode.TableNotFound,
          `Table ${table} does not exist in the action database.`,
        );
      const count =
        change === 'delete'
          ? deleteAllRows(ctx.dbs.action, current)
          : dropTable(ctx.dbs.action, current);
      // A drop changes no rows SQLite counts: cached pages of the table must still go.
      ctx.dbs.touch();
      return count;
    });
    return ok({ RowCount: rows });
  };

export const operations: Readonly<Record<OperationName, Operation>> = {
  list,
  exec,
  requestlist,
  requestdetail,
  requeststats,
  requestretry,
  requestcancel,
  resume: runmode('run'),
  suspend: runmode('stop'),
  version,
  systemdb: databaseBrowser('system'),
  statusdb: databaseBrowser('status'),
  actiondb: databaseBrowser('action'),
  pipelinecache,
  deletetable: tableChange('delete'),
  droptable: tableChange('drop'),
  inbox,
};
