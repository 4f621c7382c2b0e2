import { ParseError } from './errors.ts';
import type { CallOptions, Method, RequestData } from './transport.ts';
import { decodeOk, type PipelineResult } from './result.ts';
import type { TreeObject, TreeValue } from './tree.ts';

// Bulk retry and cancel of a day's requests by filter: an extension of our server (docs/api-extensions.md
// "Bulk retry and cancel"), JSON only, so these decoders read the JSON form alone.

export type BulkAction = 'retry' | 'cancel';
export type BulkOutcome = 'pending' | 'started' | 'ok' | 'refused' | 'failed';
export type BulkJobState = 'running' | 'done' | 'stopped';

/** A job's State; a word this kit does not know is read as still running. */
const stateOf = (value: string): BulkJobState =>
  value === 'done' || value === 'stopped' ? value : 'running';

/** Which requests of a day a bulk call takes. */
export interface BulkSelection {
  readonly action: BulkAction;
  /** yyyymmdd. */
  readonly date: string;
  /** One pipeline, or all. */
  readonly id?: string | undefined;
  /** Statuses (default Error for retry, Wait for cancel). */
  readonly statuses?: readonly string[] | undefined;
  /** A substring of the request id, file name or error message. */
  readonly q?: string | undefined;
}

export interface BulkPreview {
  readonly action: BulkAction;
  readonly date: string;
  readonly total: number;
  /** The first requests the job would do, newest first. */
  readonly requestIds: readonly string[];
}

export interface BulkItem {
  readonly requestId: string;
  readonly outcome: BulkOutcome;
  readonly message: string;
  readonly time: string | null;
}

export interface BulkJob {
  readonly jobId: number;
  readonly service: string;
  readonly action: BulkAction;
  readonly date: string;
  readonly id: string;
  readonly statuses: readonly string[];
  readonly q: string;
  readonly reason: string;
  readonly user: string;
  readonly created: string;
  /** When a restart resumed it, if one did. */
  readonly resumed: string | null;
  readonly finished: string | null;
  /** `stopped`: ended early, its starter having lost the role it needs (`stopped` says why). */
  readonly state: BulkJobState;
  /** Why a stopped job stopped, in the service's words; null otherwise. */
  readonly stopped: string | null;
  readonly total: number;
  readonly done: number;
  readonly succeeded: number;
  readonly refused: number;
  readonly failed: number;
  /** A page of its requests with their outcomes (`job` only). */
  readonly items: readonly BulkItem[];
  /** Matching items of that page's filter (`job` only). */
  readonly itemTotal: number | undefined;
  /** Once the job is done (`job` only): what became of the requests whose calls were accepted. */
  readonly now: BulkJobNow | undefined;
}

export interface BulkJobNow {
  readonly accepted: number;
  /** Accepted requests the service no longer knows. */
  readonly unknown: number;
  /** How many are in each status now, in the service's words. */
  readonly statuses: readonly { readonly status: string; readonly count: number }[];
}

function fail(what: string): never {
  throw new ParseError(`unexpected bulk answer: ${what}`, '');
}

function obj(value: TreeValue | undefined, what: string): TreeObject {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value))
    return fail(`${what} is not an object`);
  return value;
}

const str = (o: TreeObject, name: string): string =>
  typeof o[name] === 'string' ? (o[name] as string) : '';
const num = (o: TreeObject, name: string): number =>
  typeof o[name] === 'number' ? (o[name] as number) : fail(`${name} is not a number`);
const strOrNull = (o: TreeObject, name: string): string | null =>
  typeof o[name] === 'string' ? (o[name] as string) : null;

function selectionData(s: BulkSelection): Record<string, string | undefined> {
  return {
    action: s.action,
    date: s.date,
    id: s.id,
    status: s.statuses?.join(','),
    q: s.q,
  };
}

export function decodeBulkPreview(tree: TreeObject): BulkPreview {
  const p = obj(tree.BulkPreview, 'BulkPreview');
  const ids = Array.isArray(p.RequestId) ? p.RequestId : [];
  return {
    action: str(p, 'Action') as BulkAction,
    date: str(p, 'Date'),
    total: num(p, 'Total'),
    requestIds: ids.map(String),
  };
}

function job(j: TreeObject): BulkJob {
  const items = Array.isArray(j.Item) ? j.Item : [];
  const info = j.Info === undefined ? undefined : obj(j.Info, 'Info');
  return {
    jobId: num(j, 'JobId'),
    service: str(j, 'Service'),
    action: str(j, 'Action') as BulkAction,
    date: str(j, 'Date'),
    id: str(j, 'Id'),
    statuses: str(j, 'Status').split(',').filter(Boolean),
    q: str(j, 'Q'),
    reason: str(j, 'Reason'),
    user: str(j, 'User'),
    created: str(j, 'Created'),
    resumed: strOrNull(j, 'Resumed'),
    finished: strOrNull(j, 'Finished'),
    state: stateOf(str(j, 'State')),
    stopped: strOrNull(j, 'Stopped'),
    total: num(j, 'Total'),
    done: num(j, 'Done'),
    succeeded: num(j, 'Succeeded'),
    refused: num(j, 'Refused'),
    failed: num(j, 'Failed'),
    items: items.map((value) => {
      const i = obj(value, 'Item');
      return {
        requestId: str(i, 'RequestId'),
        outcome: str(i, 'Outcome') as BulkOutcome,
        message: str(i, 'Message'),
        time: strOrNull(i, 'Time'),
      };
    }),
    itemTotal: info === undefined ? undefined : num(info, 'Total'),
    now: j.Now === undefined ? undefined : jobNow(obj(j.Now, 'Now')),
  };
}

function jobNow(n: TreeObject): BulkJobNow {
  const statuses = Array.isArray(n.Status) ? n.Status : [];
  return {
    accepted: num(n, 'Accepted'),
    unknown: num(n, 'Unknown'),
    statuses: statuses.map((value) => {
      const s = obj(value, 'Status');
      return { status: str(s, 'Name'), count: num(s, 'Count') };
    }),
  };
}

export function decodeBulkJob(tree: TreeObject): BulkJob {
  return job(obj(tree.BulkJob, 'BulkJob'));
}

export function decodeBulkJobs(tree: TreeObject): BulkJob[] {
  const list = obj(tree.BulkJobs, 'BulkJobs').BulkJob;
  return (Array.isArray(list) ? list : []).map((j) => job(obj(j, 'BulkJob')));
}

/** What BulkClient needs of a PipelineClient: its calls with the client's credentials. */
interface Caller {
  request(
    method: Method,
    path: string,
    data: RequestData | undefined,
    headers: Readonly<Record<string, string>>,
    options: CallOptions,
  ): Promise<PipelineResult>;
}

/**
 * Bulk retry and cancel of a day's requests by filter, on a PipelineClient's connection
 * and credentials (`client.bulk`).
 */
export class BulkClient {
  constructor(private readonly client: Caller) {}

  private async call<T>(
    method: Method,
    path: string,
    data: RequestData,
    decode: (tree: TreeObject) => T,
    options: CallOptions,
  ): Promise<T> {
    return decodeOk(await this.client.request(method, path, data, {}, options), decode);
  }

  /**
   * What a bulk retry or cancel would do: the exact count and the first request ids.
   * @example (await client.bulk.preview({ action: 'retry', date: '20261122', id: 'pl_2' })).total
   */
  preview(selection: BulkSelection, options: CallOptions = {}): Promise<BulkPreview> {
    return this.call('GET', '/bulk/json', selectionData(selection), decodeBulkPreview, options);
  }

  /**
   * Starts a job; `expect` (the preview's total) refuses a selection that changed since.
   * @example await client.bulk.start(selection, 'input re-delivered', preview.total)
   */
  start(
    selection: BulkSelection,
    reason: string,
    expect?: number,
    options: CallOptions = {},
  ): Promise<BulkJob> {
    const data = { ...selectionData(selection), reason, expect };
    return this.call('POST', '/bulk/json', data, decodeBulkJob, options);
  }

  /** A job's progress and a page of its requests. @example await client.bulk.job(3, { outcome: 'refused' }) */
  job(
    jobId: number,
    page: { outcome?: BulkOutcome; index?: number; pageSize?: number } = {},
    options: CallOptions = {},
  ): Promise<BulkJob> {
    const data = { job: jobId, outcome: page.outcome, index: page.index, pagesize: page.pageSize };
    return this.call('GET', '/bulkjob/json', data, decodeBulkJob, options);
  }

  /** The service's recent jobs, newest first. @example await client.bulk.jobs() */
  jobs(options: CallOptions = {}): Promise<BulkJob[]> {
    return this.call('GET', '/bulkjobs/json', {}, decodeBulkJobs, options);
  }
}
