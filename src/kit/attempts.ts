import { ParseError } from './errors.ts';

// A request's attempts and requests over a range of days: extensions of our server's
// Part A (issue 25; docs/api-extensions.md "Attempts, search and ranges of days"), read with ManagementConsoleClient.read:
//
//   const data = await mc.read('/requests/attempts', { service: 'prod', requestid: id });
//   const { attempts } = decodeAttempts(data);
//
// The decoders are strict about the shape and lenient about words: a status, a via or an
// evidence word this kit does not know passes as the text it is.

/** Who retried or cancelled a request through the server, and when (the audit log's). */
export interface AttemptActor {
  /** null for the shared API key or a cookie it started. */
  readonly userName: string | null;
  /** session, key, cookie or `token <name>`. */
  readonly via: string;
  /** ISO instant. */
  readonly at: string;
  readonly bulkJob: number | null;
  readonly reason: string | null;
}

export interface AttemptAction extends AttemptActor {
  readonly action: 'retry' | 'cancel';
}

export interface AttemptChange {
  readonly status: string;
  readonly stage: string;
  /** ISO instant it was seen (a gateway) or written (the embedded service); null unknown. */
  readonly at: string | null;
}

export interface AttemptLogLine {
  readonly date: string;
  readonly type: string;
  readonly message: string;
}

/** How a failure's words were had: kept when first seen, still due, or lost to a retry first. */
export type AttemptEvidence = '' | 'due' | 'kept' | 'lost';

export interface RequestAttempt {
  readonly attempt: number;
  readonly status: string;
  readonly stage: string;
  /**
   * ISO instants: when a gateway first saw it begun and ended (`observed`), or when the
   * embedded service wrote it; null unknown (endedAt: or not ended).
   */
  readonly startedAt: string | null;
  readonly endedAt: string | null;
  /**
   * When it began and ended as the service states them, on its own clock
   * (`YYYY-MM-DD hh:mm:ss`, in the service's zone): behind a gateway the vendor's BeginTime
   * and EndTime, or for an earlier attempt its request log's dated lines; '' where the
   * service states none.
   */
  readonly beginTime: string;
  readonly endTime: string;
  /**
   * Whether startedAt, endedAt and the changes' times are a gateway's observations (when its
   * index saw each), not the service's own record: a reader shows beginTime and endTime, and
   * an observation only where they are '' and said to be one. False for the embedded service.
   */
  readonly observed: boolean;
  readonly changes: readonly AttemptChange[];
  readonly failed: boolean;
  /** The failure in the service's words, '' when none was kept. */
  readonly message: string;
  /** The last application-log lines at the failure. */
  readonly log: readonly AttemptLogLine[];
  readonly evidence: AttemptEvidence;
  readonly retriedBy: AttemptActor | null;
  readonly cancelledBy: AttemptActor | null;
}

export interface RequestAttempts {
  readonly service: string;
  readonly requestId: string;
  /** Oldest first. */
  readonly attempts: readonly RequestAttempt[];
  /** Every retry and cancel of the request through the server, oldest first. */
  readonly actions: readonly AttemptAction[];
}

export interface RangeDay {
  readonly day: string;
  readonly count: number;
  /** complete: exact; missed: the index could not list all of it; unwatched: not indexed. */
  readonly state: string;
}

export interface RangeRequest {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly status: string;
  readonly stage: string;
  readonly beginDate: string;
  readonly day: string;
}

export interface RequestRange {
  readonly service: string;
  readonly from: string;
  readonly to: string;
  readonly total: number;
  /** Every day's count is exact. */
  readonly exact: boolean;
  readonly days: readonly RangeDay[];
  readonly statuses: readonly { readonly status: string; readonly count: number }[];
  readonly index: number;
  readonly pageSize: number;
  /** Index of the next page, -1 when none follows. */
  readonly next: number;
  readonly requests: readonly RangeRequest[];
}

type Json = Readonly<Record<string, unknown>>;

function object(value: unknown, what: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ParseError(`${what} is not an object`, JSON.stringify(value) ?? '');
  return value as Json;
}

function array(value: unknown, what: string): readonly unknown[] {
  if (!Array.isArray(value))
    throw new ParseError(`${what} is not a list`, JSON.stringify(value) ?? '');
  return value;
}

const str = (o: Json, name: string): string => {
  const value = o[name];
  if (typeof value !== 'string')
    throw new ParseError(`${name} is not text`, JSON.stringify(o[name]) ?? '');
  return value;
};
const strOrNull = (o: Json, name: string): string | null =>
  o[name] === null || o[name] === undefined ? null : str(o, name);
const num = (o: Json, name: string): number => {
  const value = o[name];
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ParseError(`${name} is not a number`, JSON.stringify(o[name]) ?? '');
  return value;
};

/** A list of objects; `what` names one of them in a ParseError. */
const objects = (value: unknown, name: string, what: string): Json[] =>
  array(value, name).map((item) => object(item, what));

/** Fields read alike, each under its own name: `alike(o, str, 'status', 'stage')`. */
function alike<N extends string, T>(
  o: Json,
  read: (o: Json, name: N) => T,
  ...names: N[]
): Record<N, T> {
  return Object.fromEntries(names.map((name) => [name, read(o, name)])) as Record<N, T>;
}

function actorOf(value: unknown): AttemptActor | null {
  if (value === null || value === undefined) return null;
  const o = object(value, 'an actor');
  return {
    userName: strOrNull(o, 'userName'),
    ...alike(o, str, 'via', 'at'),
    bulkJob: o.bulkJob === null || o.bulkJob === undefined ? null : num(o, 'bulkJob'),
    reason: strOrNull(o, 'reason'),
  };
}

const EVIDENCE: readonly AttemptEvidence[] = ['', 'due', 'kept', 'lost'];

/** The data of `GET /mcapi/requests/attempts`. @example decodeAttempts(await mc.read('/requests/attempts', { requestid })) */
export function decodeAttempts(data: unknown): RequestAttempts {
  const root = object(data, 'the attempts answer');
  return {
    ...alike(root, str, 'service', 'requestId'),
    attempts: objects(root.attempts, 'attempts', 'an attempt').map((a) => {
      const evidence = str(a, 'evidence');
      return {
        attempt: num(a, 'attempt'),
        ...alike(a, str, 'status', 'stage'),
        ...alike(a, strOrNull, 'startedAt', 'endedAt'),
        ...alike(a, str, 'beginTime', 'endTime'),
        // Absent from a server before it: read as false, its times shown as they were then.
        observed: a.observed === true,
        changes: objects(a.changes, 'changes', 'a change').map((c) => ({
          ...alike(c, str, 'status', 'stage'),
          at: strOrNull(c, 'at'),
        })),
        failed: a.failed === true,
        message: str(a, 'message'),
        log: objects(a.log, 'log', 'a log line').map((l) =>
          alike(l, str, 'date', 'type', 'message'),
        ),
        evidence: (EVIDENCE as readonly string[]).includes(evidence)
          ? (evidence as AttemptEvidence)
          : '',
        retriedBy: actorOf(a.retriedBy),
        cancelledBy: actorOf(a.cancelledBy),
      };
    }),
    actions: objects(root.actions, 'actions', 'an action').flatMap((o): AttemptAction[] => {
      const action = str(o, 'action');
      const actor = actorOf(o);
      // An action this kit does not know is left out rather than told as another.
      return (action === 'retry' || action === 'cancel') && actor ? [{ action, ...actor }] : [];
    }),
  };
}

/** The data of `GET /mcapi/requests/range`. @example decodeRequestRange(await mc.read('/requests/range', { from, to })) */
export function decodeRequestRange(data: unknown): RequestRange {
  const root = object(data, 'the range answer');
  return {
    ...alike(root, str, 'service', 'from', 'to'),
    total: num(root, 'total'),
    exact: root.exact === true,
    days: objects(root.days, 'days', 'a day').map((d) => ({
      day: str(d, 'day'),
      count: num(d, 'count'),
      state: str(d, 'state'),
    })),
    statuses: objects(root.statuses, 'statuses', 'a status count').map((s) => ({
      status: str(s, 'status'),
      count: num(s, 'count'),
    })),
    ...alike(root, num, 'index', 'pageSize', 'next'),
    requests: objects(root.requests, 'requests', 'a request').map((r) =>
      alike(r, str, 'requestId', 'pipelineId', 'status', 'stage', 'beginDate', 'day'),
    ),
  };
}
