import { BulkClient } from './bulk.ts';
import { ParseError } from './errors.ts';
import {
  followRequest,
  startRequest,
  type FollowOptions,
  type FollowedRequest,
  type StartOptions,
  type StartedRequest,
} from './follow.ts';
import { PipelineResult, type Format } from './result.ts';
import {
  Transport,
  type FetchLike,
  type Method,
  type RequestData,
  type TransportOptions,
} from './transport.ts';
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
import {
  API_KEY_HEADER,
  MC_SESSION_HEADER,
  OPERATIONS,
  databaseOperation,
  type DatabaseName,
  type OperationName,
} from './wire.ts';

/** How calls authenticate. */
export type Credentials =
  | { readonly kind: 'apiKey'; readonly apiKey: string }
  /** A management console session (Part A login); roles apply. */
  | { readonly kind: 'session'; readonly sessionId: string }
  /** Only the SESSIONID cookie the browser already holds. */
  | { readonly kind: 'cookie' }
  | { readonly kind: 'none' };

export interface ClientOptions extends TransportOptions {
  /** The API key issued by the pipeline service (sent as X-Pipelinewebapi). */
  readonly apiKey?: string;
  /** Other credentials; apiKey is the short form of `{ kind: 'apiKey' }`. */
  readonly credentials?: Credentials;
}

export type { DatabaseName, FetchLike, Format, RequestData };
export { PipelineResult, ResultFormat, ResultStatus } from './result.ts';

/**
 * Client of the pipeline API (Part C). Works in browsers and Node alike: it needs only
 * `fetch`, which can be injected.
 *
 * @example
 * const client = new PipelineClient({ apiKey: process.env.KEY, host: '127.0.0.1', port: 25080 });
 * const pipelines = await client.listPipelines();
 * const { requestId } = await client.exec('pl_1', 'orders.csv', { minAmount: '50' });
 */
export class PipelineClient {
  private readonly transport: Transport;
  private credentials: Credentials;

  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
    this.credentials =
      options.credentials ??
      (options.apiKey ? { kind: 'apiKey', apiKey: options.apiKey } : { kind: 'none' });
  }

  /** Switches credentials, e.g. after a sign-in. @example client.useCredentials({ kind: 'session', sessionId }) */
  useCredentials(credentials: Credentials): void {
    this.credentials = credentials;
  }

  /** The credentials in use. */
  get currentCredentials(): Credentials {
    return this.credentials;
  }

  /** The full URL of a call, e.g. for "copy as curl". @example client.urlOf('/list/xml') */
  urlOf(path: string, data?: RequestData, method: Method = 'GET'): string {
    return this.transport.urlOf(
      `/pipelineapi${path.startsWith('/') ? path : `/${path}`}`,
      data,
      method,
    );
  }

  /** Headers the current credentials add. @example client.authHeaders() // { 'X-Pipelinewebapi': '…' } */
  authHeaders(): Record<string, string> {
    switch (this.credentials.kind) {
      case 'apiKey':
        return { [API_KEY_HEADER]: this.credentials.apiKey };
      case 'session':
        return { [MC_SESSION_HEADER]: this.credentials.sessionId };
      default:
        return {};
    }
  }

  /** Sends one call; `path` is `/<api>/<type>` as in the spec. @example await client.request('GET', '/list/xml') */
  async request(
    method: Method,
    path: string,
    data?: RequestData,
    headers?: Readonly<Record<string, string>>,
  ): Promise<PipelineResult> {
    const raw = await this.transport.send(
      method,
      `/pipelineapi${path.startsWith('/') ? path : `/${path}`}`,
      data,
      {
        ...this.authHeaders(),
        ...headers,
      },
    );
    return new PipelineResult(raw.status, raw.contentType, raw.body, raw.method, raw.url);
  }

  /** @example await client.get('/requestlist/json', { date: '20261121' }) */
  get(
    path: string,
    data?: RequestData,
    headers?: Readonly<Record<string, string>>,
  ): Promise<PipelineResult> {
    return this.request('GET', path, data, headers);
  }
  /** @example await client.post('/exec/xml', { pipelineid: 'pl_1', filename: 'orders.csv' }) */
  post(
    path: string,
    data?: RequestData,
    headers?: Readonly<Record<string, string>>,
  ): Promise<PipelineResult> {
    return this.request('POST', path, data, headers);
  }
  /** @example await client.put('/resume/xml', { pipelineid: 'pl_1' }) */
  put(
    path: string,
    data?: RequestData,
    headers?: Readonly<Record<string, string>>,
  ): Promise<PipelineResult> {
    return this.request('PUT', path, data, headers);
  }
  /** @example await client.delete('/requestcancel/xml', { requestid: 'pl_1-20261121_09-000001' }) */
  delete(
    path: string,
    data?: RequestData,
    headers?: Readonly<Record<string, string>>,
  ): Promise<PipelineResult> {
    return this.request('DELETE', path, data, headers);
  }

  /** One typed call; the method is the operation's own, from OPERATIONS. */
  private async call<T>(
    api: OperationName,
    format: Format,
    data: RequestData | undefined,
    decode: (tree: TreeObject) => T,
  ): Promise<T> {
    const method = OPERATIONS[api];
    const result = await this.request(method, `/${api}/${format}`, data);
    const tree = result.expectOk();
    try {
      return decode(tree);
    } catch (error) {
      throw new ParseError(`${method} ${result.url}: ${(error as Error).message}`, result.text());
    }
  }

  /** @example const pipelines = await client.listPipelines(); */
  listPipelines(format: Format = 'json'): Promise<Pipeline[]> {
    return this.call('list', format, undefined, decodePipelineList);
  }

  /** Starts a request; `args` override the pipeline's Args defaults. @example await client.exec('pl_1', 'orders.csv') */
  exec(
    pipelineId: string,
    filename: string,
    args: Readonly<Record<string, string>> = {},
    format: Format = 'json',
  ): Promise<ExecuteResult> {
    return this.call(
      'exec',
      format,
      { ...args, pipelineid: pipelineId, filename },
      decodeExecuteResponse,
    );
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
  requestList(
    query: {
      date?: string | undefined;
      id?: string | undefined;
      index?: number | undefined;
      pageSize?: number | undefined;
      status?: readonly string[] | undefined;
      q?: string | undefined;
      since?: string | undefined;
    } = {},
    format: Format = 'json',
  ): Promise<RequestList> {
    return this.call(
      'requestlist',
      format,
      {
        date: query.date,
        id: query.id,
        index: query.index,
        pagesize: query.pageSize,
        status: query.status && query.status.length > 0 ? query.status.join(',') : undefined,
        q: query.q || undefined,
        since: query.since,
      },
      decodeRequestList,
    );
  }

  /**
   * A day's exact counts per pipeline, hour and status (contract section 8; an extension
   * of our server). @example (await client.requestStats({ date: '20261121' })).total
   */
  requestStats(
    query: { date?: string; id?: string } = {},
    format: Format = 'json',
  ): Promise<RequestStats> {
    return this.call(
      'requeststats',
      format,
      { date: query.date, id: query.id },
      decodeRequestStats,
    );
  }

  /** Bulk retry and cancel by filter (an extension of our server). @example await client.bulk.preview({ action: 'retry', date }) */
  get bulk(): BulkClient {
    return new BulkClient(this);
  }

  /** @example await client.requestDetail(id, { requestLog: true, appLog: true }) */
  requestDetail(
    requestId: string,
    logs: { requestLog?: boolean; appLog?: boolean } = {},
    format: Format = 'json',
  ): Promise<RequestDetail> {
    return this.call(
      'requestdetail',
      format,
      { requestid: requestId, requestlog: logs.requestLog ?? false, applog: logs.appLog ?? false },
      decodeRequestDetail,
    );
  }

  /** @example await client.retry(requestId) */
  retry(requestId: string, format: Format = 'json'): Promise<ExecuteResult> {
    return this.call('requestretry', format, { requestid: requestId }, decodeExecuteResponse);
  }

  /** @example await client.cancel(requestId) */
  cancel(requestId: string, format: Format = 'json'): Promise<ExecuteResult> {
    return this.call('requestcancel', format, { requestid: requestId }, decodeExecuteResponse);
  }

  /** @example await client.resume('pl_1') */
  resume(pipelineId: string, format: Format = 'json'): Promise<ExecuteResult> {
    return this.call('resume', format, { pipelineid: pipelineId }, decodeExecuteResponse);
  }

  /** @example await client.suspend('pl_1') */
  suspend(pipelineId: string, format: Format = 'json'): Promise<ExecuteResult> {
    return this.call('suspend', format, { pipelineid: pipelineId }, decodeExecuteResponse);
  }

  /**
   * The inbox's files exec may name (contract section 10; an extension of our server). A
   * service behind a gateway without such a list answers 404 (code 1204).
   * @example (await client.inbox()).map((f) => f.name)
   */
  inbox(format: Format = 'json'): Promise<InboxFile[]> {
    return this.call('inbox', format, undefined, decodeInbox);
  }

  /** @example const version = await client.version(); */
  version(format: Format = 'json'): Promise<string> {
    return this.call('version', format, undefined, decodeVersion);
  }

  /** Tables of a database. @example await client.tables('status') */
  tables(
    database: DatabaseName,
    page: { index?: number; pageSize?: number } = {},
    format: Format = 'json',
  ): Promise<TableList> {
    return this.call(
      databaseOperation(database),
      format,
      { index: page.index, pagesize: page.pageSize },
      decodeTableList,
    );
  }

  /** A page of a table. @example await client.table('action', 'ORDERS', { pageSize: 50 }) */
  table(
    database: DatabaseName,
    tableName: string,
    page: { index?: number; pageSize?: number } = {},
    format: Format = 'json',
  ): Promise<TablePage> {
    return this.call(
      databaseOperation(database),
      format,
      { tablename: tableName, index: page.index, pagesize: page.pageSize },
      decodeTablePage,
    );
  }

  /** @example await client.systemDb('PIPELINE') */
  systemDb(
    tableName?: string,
    page: { index?: number; pageSize?: number } = {},
    format: Format = 'json',
  ): Promise<TableList | TablePage> {
    return tableName === undefined
      ? this.tables('system', page, format)
      : this.table('system', tableName, page, format);
  }

  /** @example await client.statusDb('STATUS20261121') */
  statusDb(
    tableName?: string,
    page: { index?: number; pageSize?: number } = {},
    format: Format = 'json',
  ): Promise<TableList | TablePage> {
    return tableName === undefined
      ? this.tables('status', page, format)
      : this.table('status', tableName, page, format);
  }

  /** @example await client.actionDb('ORDERS') */
  actionDb(
    tableName?: string,
    page: { index?: number; pageSize?: number } = {},
    format: Format = 'json',
  ): Promise<TableList | TablePage> {
    return tableName === undefined
      ? this.tables('action', page, format)
      : this.table('action', tableName, page, format);
  }

  /** @example await client.clearCache('pl_1', { sensor: true, filter: true }) */
  clearCache(
    pipelineId: string,
    stages: { sensor?: boolean; filter?: boolean; joint?: boolean },
    format: Format = 'json',
  ): Promise<ExecuteResult> {
    return this.call(
      'pipelinecache',
      format,
      {
        pipelineid: pipelineId,
        sensor: stages.sensor ?? false,
        filter: stages.filter ?? false,
        joint: stages.joint ?? false,
      },
      decodeExecuteResponse,
    );
  }

  /** Deletes every row of an action table. @example (await client.deleteTable('ORDERS')).rowCount */
  deleteTable(table: string, format: Format = 'json'): Promise<ExecuteResult> {
    return this.call('deletetable', format, { table }, decodeExecuteResponse);
  }

  /** Drops an action table. @example await client.dropTable('ORDERS') */
  dropTable(table: string, format: Format = 'json'): Promise<ExecuteResult> {
    return this.call('droptable', format, { table }, decodeExecuteResponse);
  }
}
