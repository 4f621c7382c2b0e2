import { BulkClient } from './bulk.ts';
import {
  followRequest,
  startRequest,
  type FollowOptions,
  type FollowedRequest,
  type StartOptions,
  type StartedRequest,
} from './follow.ts';
import { PipelineCalls, type ClientOptions, type Credentials } from './pipeline-calls.ts';
import { decodeOk, type Format } from './result.ts';
import type { CallOptions, FetchLike, RequestData } from './transport.ts';
import {
  decodeExecuteResponse,
  decodePipelineList,
  decodeRequestDetail,
  decodeRequestList,
  decodeRequestStats,
  decodeInbox,
  type InboxFile,
  decodeTableList,
  decodeTablePage,
  decodeVersion,
  type ExecuteResult,
  type Pipeline,
  type RequestDetail,
  type RequestList,
  type RequestStats,
  type TableList,
  type TablePage,
} from './records.ts';
import type { TreeObject } from './tree.ts';
import { OPERATIONS, databaseOperation, type DatabaseName, type OperationName } from './wire.ts';

export type { ClientOptions, Credentials, DatabaseName, FetchLike, Format, RequestData };
export type { CallOptions } from './transport.ts';
export { PipelineResult, ResultFormat, ResultStatus } from './result.ts';

/**
 * What every typed call takes last: the answer's format (default `json`, which the decoders
 * read alike with xml and html) and what the caller adds, such as a `signal`.
 */
export type FormatAndOptions = [format?: Format, options?: CallOptions];

/** A page of a list of tables or of a table's rows. */
export interface TablePaging {
  index?: number;
  pageSize?: number;
}

/** What systemDb, statusDb and actionDb take: a table's name for a page of it, else none. */
export type TablesOrTableArgs = [tableName?: string, page?: TablePaging, ...tail: FormatAndOptions];

/** The filters of a request list (the spec's, and our server's section 8 ones). */
export interface RequestListQuery {
  date?: string | undefined;
  id?: string | undefined;
  index?: number | undefined;
  pageSize?: number | undefined;
  status?: readonly string[] | undefined;
  q?: string | undefined;
  since?: string | undefined;
}

/**
 * The filters a day's list and a range of days share, as the wire names them: statuses
 * comma-separated, an empty search left out.
 */
export function requestFilterFields(
  query: Pick<RequestListQuery, 'id' | 'index' | 'pageSize' | 'status' | 'q'>,
): RequestData {
  return {
    id: query.id,
    index: query.index,
    pagesize: query.pageSize,
    status: query.status && query.status.length > 0 ? query.status.join(',') : undefined,
    q: query.q || undefined,
  };
}

/**
 * Client of the pipeline API (Part C). Works in browsers and Node alike: it needs only
 * `fetch`, which can be injected. Every operation takes, last, a CallOptions whose
 * `signal` cancels it.
 *
 * @example
 * const client = new PipelineClient({ apiKey: process.env.KEY, host: '127.0.0.1', port: 25080 });
 * const pipelines = await client.listPipelines();
 * const { requestId } = await client.exec('pl_1', 'orders.csv', { minAmount: '50' });
 * await client.requestList({ date: '20261121' }, 'json', { signal: AbortSignal.timeout(5000) });
 */
export class PipelineClient extends PipelineCalls {
  constructor(options: ClientOptions = {}) {
    super(options);
  }

  /** One typed call; the method is the operation's own, from OPERATIONS. */
  private async call<T>(
    api: OperationName,
    data: RequestData | undefined,
    decode: (tree: TreeObject) => T,
    format: Format = 'json',
    options: CallOptions = {},
  ): Promise<T> {
    const result = await this.request(OPERATIONS[api], `/${api}/${format}`, data, {}, options);
    return decodeOk(result, decode);
  }

  /** @example const pipelines = await client.listPipelines(); */
  listPipelines(...tail: FormatAndOptions): Promise<Pipeline[]> {
    return this.call('list', undefined, decodePipelineList, ...tail);
  }

  /** Starts a request; `args` override the pipeline's Args defaults. @example await client.exec('pl_1', 'orders.csv') */
  exec(
    pipelineId: string,
    filename: string,
    args: Readonly<Record<string, string>> = {},
    ...tail: FormatAndOptions
  ): Promise<ExecuteResult> {
    const data = { ...args, pipelineid: pipelineId, filename };
    return this.call('exec', data, decodeExecuteResponse, ...tail);
  }

  /**
   * exec, telling which request it started even when the service names none: with
   * `find`, the one request new in the pipeline's list of the day (see startRequest).
   * @example const { requestId, requestIdFrom } = await client.startRequest('pl_1', 'orders.csv', {}, { find: true })
   */
  startRequest(
    pipelineId: string,
    filename: string,
    args: Readonly<Record<string, string>> = {},
    options: StartOptions = {},
  ): Promise<StartedRequest> {
    return startRequest(this, pipelineId, filename, args, options);
  }

  /**
   * Follows a request to its end (an EndTime, or a terminal status): `ok`, `failed`, or
   * `running` when `timeoutMs` ran out (see followRequest).
   * @example const { outcome, detail } = await client.followRequest(requestId, { timeoutMs: 600_000 })
   */
  followRequest(requestId: string, options: FollowOptions = {}): Promise<FollowedRequest> {
    return followRequest(this, requestId, options);
  }

  /**
   * `status`, `q` and `since` are the contract's section 8 filters (our server; a vendor
   * service ignores or refuses them).
   * @example await client.requestList({ date: '20261121', id: 'pl_1', status: ['Error'], pageSize: 100 })
   */
  requestList(query: RequestListQuery = {}, ...tail: FormatAndOptions): Promise<RequestList> {
    const data = { date: query.date, ...requestFilterFields(query), since: query.since };
    return this.call('requestlist', data, decodeRequestList, ...tail);
  }

  /**
   * A day's exact counts per pipeline, hour and status (contract section 8; an extension
   * of our server). @example (await client.requestStats({ date: '20261121' })).total
   */
  requestStats(
    query: { date?: string; id?: string } = {},
    ...tail: FormatAndOptions
  ): Promise<RequestStats> {
    const data = { date: query.date, id: query.id };
    return this.call('requeststats', data, decodeRequestStats, ...tail);
  }

  /** Bulk retry and cancel by filter (an extension of our server). @example await client.bulk.preview({ action: 'retry', date }) */
  get bulk(): BulkClient {
    return new BulkClient(this);
  }

  /** @example await client.requestDetail(id, { requestLog: true, appLog: true }) */
  requestDetail(
    requestId: string,
    { requestLog = false, appLog = false }: { requestLog?: boolean; appLog?: boolean } = {},
    ...tail: FormatAndOptions
  ): Promise<RequestDetail> {
    const data = { requestid: requestId, requestlog: requestLog, applog: appLog };
    return this.call('requestdetail', data, decodeRequestDetail, ...tail);
  }

  /** @example await client.retry(requestId) */
  retry(requestId: string, ...tail: FormatAndOptions): Promise<ExecuteResult> {
    return this.change('requestretry', { requestid: requestId }, ...tail);
  }

  /** @example await client.cancel(requestId) */
  cancel(requestId: string, ...tail: FormatAndOptions): Promise<ExecuteResult> {
    return this.change('requestcancel', { requestid: requestId }, ...tail);
  }

  /** @example await client.resume('pl_1') */
  resume(pipelineId: string, ...tail: FormatAndOptions): Promise<ExecuteResult> {
    return this.change('resume', { pipelineid: pipelineId }, ...tail);
  }

  /** @example await client.suspend('pl_1') */
  suspend(pipelineId: string, ...tail: FormatAndOptions): Promise<ExecuteResult> {
    return this.change('suspend', { pipelineid: pipelineId }, ...tail);
  }

  /**
   * suspend, saying why (an extension of our server, up to 256 characters): the server keeps
   * the reason in its audit log with the call. A service behind its gateway never receives
   * it, interfaces.md's suspend having no such field; a vendor's service called directly
   * does not take it either.
   * @example await client.suspendWithReason('pl_1', 'The Joint’s disk is full')
   */
  suspendWithReason(
    pipelineId: string,
    reason: string,
    ...tail: FormatAndOptions
  ): Promise<ExecuteResult> {
    return this.change('suspend', { pipelineid: pipelineId, reason }, ...tail);
  }

  /**
   * The inbox's files exec may name (contract section 10; an extension of our server). A
   * service behind a gateway without such a list answers 404 (code 1204).
   * @example (await client.inbox()).map((f) => f.name)
   */
  inbox(...tail: FormatAndOptions): Promise<InboxFile[]> {
    return this.call('inbox', undefined, decodeInbox, ...tail);
  }

  /** @example const version = await client.version(); */
  version(...tail: FormatAndOptions): Promise<string> {
    return this.call('version', undefined, decodeVersion, ...tail);
  }

  /** Tables of a database. @example await client.tables('status') */
  tables(
    database: DatabaseName,
    page: TablePaging = {},
    ...tail: FormatAndOptions
  ): Promise<TableList> {
    const data = { index: page.index, pagesize: page.pageSize };
    return this.call(databaseOperation(database), data, decodeTableList, ...tail);
  }

  /** A page of a table. @example await client.table('action', 'ORDERS', { pageSize: 50 }) */
  table(
    database: DatabaseName,
    tableName: string,
    page: TablePaging = {},
    ...tail: FormatAndOptions
  ): Promise<TablePage> {
    const data = { tablename: tableName, index: page.index, pagesize: page.pageSize };
    return this.call(databaseOperation(database), data, decodeTablePage, ...tail);
  }

  /** A database's tables without a table name, else a page of that table. */
  private tablesOrTable(
    database: DatabaseName,
    ...[tableName, page = {}, ...tail]: TablesOrTableArgs
  ): Promise<TableList | TablePage> {
    return tableName === undefined
      ? this.tables(database, page, ...tail)
      : this.table(database, tableName, page, ...tail);
  }

  /** @example await client.systemDb('PIPELINE') */
  systemDb(...call: TablesOrTableArgs): Promise<TableList | TablePage> {
    return this.tablesOrTable('system', ...call);
  }

  /** @example await client.statusDb('STATUS20261121') */
  statusDb(...call: TablesOrTableArgs): Promise<TableList | TablePage> {
    return this.tablesOrTable('status', ...call);
  }

  /** @example await client.actionDb('ORDERS') */
  actionDb(...call: TablesOrTableArgs): Promise<TableList | TablePage> {
    return this.tablesOrTable('action', ...call);
  }

  /** @example await client.clearCache('pl_1', { sensor: true, filter: true }) */
  clearCache(
    pipelineId: string,
    {
      sensor = false,
      filter = false,
      joint = false,
    }: { sensor?: boolean; filter?: boolean; joint?: boolean },
    ...tail: FormatAndOptions
  ): Promise<ExecuteResult> {
    const data = { pipelineid: pipelineId, sensor, filter, joint };
    return this.change('pipelinecache', data, ...tail);
  }

  /** Deletes every row of an action table. @example (await client.deleteTable('ORDERS')).rowCount */
  deleteTable(table: string, ...tail: FormatAndOptions): Promise<ExecuteResult> {
    return this.change('deletetable', { table }, ...tail);
  }

  /** Drops an action table. @example await client.dropTable('ORDERS') */
  dropTable(table: string, ...tail: FormatAndOptions): Promise<ExecuteResult> {
    return this.change('droptable', { table }, ...tail);
  }

  /** An operation that answers an ExecuteResponse. */
  private change(
    api: OperationName,
    data: RequestData,
    ...tail: FormatAndOptions
  ): Promise<ExecuteResult> {
    return this.call(api, data, decodeExecuteResponse, ...tail);
  }
}
