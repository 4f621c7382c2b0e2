import { HttpError, NetworkError, TimeoutError } from './errors.ts';
import type { ExecuteResult, RequestDetail, RequestList } from './records.ts';
import type { Format } from './result.ts';
import type { CallOptions } from './transport.ts';
import { REQUEST_ID_PATTERN } from './wire.ts';

// Starting a request and following it to its end against any service, ours or a vendor's.
// interfaces.md's exec answer has no RequestId and its status words are an open set, so
// both are found out the way the gateway does (docs/gateway.md, "Pointing the dashboard at a real
// pipeline service"): the new request by comparing the pipeline's list of the day before
// and after, the end by a set EndTime or a terminal status.

/**
 * The three operations starting and following need: a PipelineClient has them. Named here
 * so that this module needs nothing of the client's (which offers both as methods).
 */
export interface RequestOperations {
  exec(
    pipelineId: string,
    filename: string,
    args: Readonly<Record<string, string>>,
    format: Format,
    options: CallOptions,
  ): Promise<ExecuteResult>;
  requestList(
    query: { id?: string; pageSize?: number },
    format: Format,
    options: CallOptions,
  ): Promise<RequestList>;
  requestDetail(
    requestId: string,
    logs: Record<string, never>,
    format: Format,
    options: CallOptions,
  ): Promise<RequestDetail>;
}

/** Statuses that end a request whatever its EndTime says: our contract's terminal ones. */
export const END_STATUSES: readonly string[] = ['Finish', 'Error', 'Stop'];

/** Statuses of a request that ended well, unless told otherwise. */
export const OK_STATUSES: readonly string[] = ['Finish'];

/** How many requests of a pipeline's day are compared (our server's largest page). */
const LIST_BOUND = 1000;

/**
 * Whether a request has ended: its detail states an EndTime, or its status is one of
 * `endStatuses` (a service that never writes EndTime still says Finish).
 *
 * @example
 * requestHasEnded(await client.requestDetail(id)) // true once it finished, failed or stopped
 */
export function requestHasEnded(
  detail: Pick<RequestDetail, 'endTime' | 'status'>,
  endStatuses: readonly string[] = END_STATUSES,
): boolean {
  return detail.endTime.trim() !== '' || endStatuses.includes(detail.status);
}

/** A request id of interfaces.md's shape standing alone anywhere in a text. */
const REQUEST_ID_IN_TEXT = new RegExp(
  `(?<![\\w-])${REQUEST_ID_PATTERN.source.slice(1, -1)}(?![\\w-])`,
  'g',
);

/**
 * Whether `other` could be a request made after `requestId`, of its pipeline: a new request
 * begins later, so its day, hour and serial come after.
 */
function laterOfPipeline(other: string, requestId: string): boolean {
  const [, pipeline, ...when] = REQUEST_ID_PATTERN.exec(other) ?? [];
  const [, ownPipeline, ...ownWhen] = REQUEST_ID_PATTERN.exec(requestId) ?? [];
  return pipeline !== undefined && pipeline === ownPipeline && when.join() > ownWhen.join();
}

/**
 * An id's form: its text with each run of digits standing for any number. interfaces.md
 * shows one shape of request id but promises none, and two request ids of one product share
 * their form (`REQ/2026/12/02#5` and `REQ/2026/12/02#6`) where a job's number does not.
 */
function idForm(id: string): { readonly key: string; readonly inText: RegExp } {
  const parts = id.split(/\d+/);
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const body = parts.map(literal).join('\\d+');
  // Standing alone: not inside a longer word at either end.
  const before = /^[\p{L}\p{N}_]/u.test(id) ? '(?<![\\p{L}\\p{N}_-])' : '';
  const after = /[\p{L}\p{N}_]$/u.test(id) ? '(?![\\p{L}\\p{N}_-])' : '';
  return { key: parts.join('\u0000'), inText: new RegExp(`${before}${body}${after}`, 'gu') };
}

const numbersOf = (id: string): string[] => id.match(/\d+/g) ?? [];

/** Whether the numbers of `other` come after those of `id`, read left to right as numbers. */
function numberedLater(other: string, id: string): boolean {
  const [mine, theirs] = [numbersOf(id), numbersOf(other)];
  for (let i = 0; i < Math.min(mine.length, theirs.length); i++) {
    const [a, b] = [BigInt(theirs[i] as string), BigInt(mine[i] as string)];
    if (a !== b) return a > b;
  }
  return false;
}

/**
 * The request a retry's answer says runs the retry when that is another request: a service
 * whose retry makes a new request. Its RequestId, else the one other request id its Message
 * names; undefined when it names none (the same request runs again) or several.
 *
 * An id counts as a request's when it has interfaces.md's shape, or the form of the request
 * retried (its text with other numbers: the product's own ids). An id in the Message is
 * followed only when it comes later (of the same pipeline, for interfaces.md's shape): words
 * such as "queued behind pl_1-…" name a request that does not run this one.
 *
 * @example
 * retriedAs(await client.retry(id), id) // 'pl_1-20261129_09-000124', or undefined
 */
export function retriedAs(
  answer: Pick<ExecuteResult, 'requestId' | 'message'>,
  requestId: string,
): string | undefined {
  const specShaped = REQUEST_ID_PATTERN.test(requestId);
  const form = idForm(requestId);
  // A RequestId of another form (a job's number) names no request that can be followed.
  const stated = answer.requestId?.trim();
  if (
    stated &&
    stated !== requestId &&
    (REQUEST_ID_PATTERN.test(stated) || idForm(stated).key === form.key)
  )
    return stated;
  const named = new Set(
    specShaped
      ? [...answer.message.matchAll(REQUEST_ID_IN_TEXT)]
          .map((match) => match[0])
          .filter((id) => laterOfPipeline(id, requestId))
      : [...answer.message.matchAll(form.inText)]
          .map((match) => match[0])
          .filter((id) => id !== requestId && numberedLater(id, requestId)),
  );
  return named.size === 1 ? [...named][0] : undefined;
}

/** An exec's answer, with the request it started when that could be told. */
export interface StartedRequest extends ExecuteResult {
  /**
   * Where `requestId` came from: `service` (its answer named it), `list` (the one request
   * new in the pipeline's list of the day), or undefined when neither told it.
   */
  readonly requestIdFrom: 'service' | 'list' | undefined;
  /**
   * With `find`, when the service named no request: the requests new in the pipeline's
   * list after the exec. Exactly one is the request (then also `requestId`); none or
   * several (another client started one at the same time) cannot be told apart.
   */
  readonly newRequestIds?: readonly string[];
}

export interface StartOptions {
  readonly format?: Format;
  /**
   * When the service names no RequestId, find the new request by listing the pipeline's
   * requests of the service's today just before the exec and just after: two more calls,
   * the first made whatever the service then answers.
   */
  readonly find?: boolean;
  /** Cancels the calls: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

async function requestIdsOfToday(
  client: RequestOperations,
  pipelineId: string,
  format: Format,
  call: CallOptions,
): Promise<Set<string>> {
  // No date: the service's own today, whatever the client's clock and zone say.
  const list = await client.requestList({ id: pipelineId, pageSize: LIST_BOUND }, format, call);
  return new Set(list.requests.map((r) => r.requestId));
}

/**
 * Runs exec and tells which request it started: the RequestId the service names, or with
 * `find` the one request new in the pipeline's list of the day.
 *
 * @example
 * const started = await startRequest(client, 'pl_1', 'orders.csv', {}, { find: true });
 * if (started.requestId === undefined) console.log('accepted; which request is not known');
 */
export async function startRequest(
  client: RequestOperations,
  pipelineId: string,
  filename: string,
  args: Readonly<Record<string, string>> = {},
  options: StartOptions = {},
): Promise<StartedRequest> {
  const format = options.format ?? 'json';
  const call = { signal: options.signal };
  const before = options.find
    ? await requestIdsOfToday(client, pipelineId, format, call)
    : undefined;
  const result = await client.exec(pipelineId, filename, args, format, call);
  if (result.requestId) return { ...result, requestIdFrom: 'service' };
  if (before === undefined) return { ...result, requestId: undefined, requestIdFrom: undefined };
  const after = await requestIdsOfToday(client, pipelineId, format, call);
  const fresh = [...after].filter((id) => !before.has(id));
  return fresh.length === 1
    ? { ...result, requestId: fresh[0], requestIdFrom: 'list', newRequestIds: fresh }
    : { ...result, requestId: undefined, requestIdFrom: undefined, newRequestIds: fresh };
}

export interface FollowOptions {
  readonly format?: Format;
  /** Statuses that end a request even without an EndTime (default END_STATUSES). */
  readonly endStatuses?: readonly string[];
  /** Statuses of a request that ended well (default OK_STATUSES); any other end is `failed`. */
  readonly okStatuses?: readonly string[];
  /** Give up, with outcome `running`, after this many milliseconds (default 0 = never). */
  readonly timeoutMs?: number;
  /** First wait between two looks, doubled after each up to `maxPollMs` (default 250). */
  readonly pollMs?: number;
  /** Longest wait between two looks (default 5000). */
  readonly maxPollMs?: number;
  /** Failed looks in a row that are given up on (unreachable, no answer, a 5xx; default 5). */
  readonly maxFailures?: number;
  /** Stops following: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Called with every look whose status or stage differs from the one before. */
  readonly onChange?: (detail: RequestDetail) => void;
}

/** How following a request ended. */
export interface FollowedRequest {
  readonly requestId: string;
  /**
   * `ok`: it ended in one of the ok statuses; `failed`: it ended in another; `running`: it
   * had not ended when `timeoutMs` ran out.
   */
  readonly outcome: 'ok' | 'failed' | 'running';
  /** The last detail seen. */
  readonly detail: RequestDetail;
}

/**
 * Whether a call failed for a passing reason (unreachable, no answer, a 5xx): worth trying
 * again, as following a request does.
 * @example if (isTransientFailure(error)) await retryLater();
 */
export function isTransientFailure(error: unknown): boolean {
  return (
    error instanceof NetworkError ||
    error instanceof TimeoutError ||
    (error instanceof HttpError && error.status >= 500)
  );
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Looks at a request (requestdetail) until it ends, then tells whether it ended well.
 * Looks grow apart from `pollMs` to `maxPollMs`; a look that fails for a passing reason is
 * tried again, `maxFailures` times in a row at most; a refusal (no such request) throws.
 *
 * @example
 * const { outcome, detail } = await followRequest(client, id, { timeoutMs: 600_000 });
 * if (outcome === 'failed') console.log(`${id} ended ${detail.status}`);
 */
export async function followRequest(
  client: RequestOperations,
  requestId: string,
  options: FollowOptions = {},
): Promise<FollowedRequest> {
  const format = options.format ?? 'json';
  const endStatuses = options.endStatuses ?? END_STATUSES;
  const okStatuses = options.okStatuses ?? OK_STATUSES;
  const timeoutMs = options.timeoutMs ?? 0;
  const maxPollMs = options.maxPollMs ?? 5000;
  const maxFailures = options.maxFailures ?? 5;
  const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
  let wait = Math.min(options.pollMs ?? 250, maxPollMs);
  let failures = 0;
  let last: RequestDetail | undefined;
  let lastError: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const detail = await client.requestDetail(requestId, {}, format, {
        signal: options.signal,
      });
      failures = 0;
      if (last === undefined || last.status !== detail.status || last.stage !== detail.stage)
        options.onChange?.(detail);
      last = detail;
      // An ok status ends a request too: a caller's own word for done is an end.
      if (requestHasEnded(detail, [...endStatuses, ...okStatuses])) {
        return {
          requestId,
          outcome: okStatuses.includes(detail.status) ? 'ok' : 'failed',
          detail,
        };
      }
    } catch (error) {
      if (!isTransientFailure(error) || ++failures >= maxFailures) throw error;
      lastError = error;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      // Never seen at all: what kept it from being seen is the answer.
      if (last === undefined) throw lastError;
      return { requestId, outcome: 'running', detail: last };
    }
    await pause(Math.min(wait, left), options.signal);
    wait = Math.min(wait * 2, maxPollMs);
  }
}
