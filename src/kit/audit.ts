import { answerFields, numberOf, objectsOf, textOf } from './liberal.ts';
import type { PageInfo } from './records.ts';
import type { RequestData } from './transport.ts';

// The server's audit log (`GET /mcapi/audit` and `GET /mcapi/audit/export`, contract
// section 7; administrators): its filter, defined once for the client that asks and the
// server that reads it, the answer as the server writes it, and the page a client reads.

// Each filter of the audit log with the query parameter that carries it: the filter's fields
// are this object's, so that a field cannot lack its parameter. Not exported where it is
// declared: the package test reads `export … from '…'` lines as imports, and this object's
// text has a `from` before a quote.
const FILTER_PARAMETERS = {
  /** The first day, yyyymmdd in the service's zone. */
  from: 'from',
  /** The last day, yyyymmdd. */
  to: 'to',
  /** The signed-in person's name. */
  user: 'user',
  /** The service called (the server's own sign-in and settings have none). */
  service: 'service',
  /** The operation (`requestretry`, `mc.login`…). */
  operation: 'operation',
  requestId: 'requestid',
} as const;

/** Which entries of the audit log a call takes; each filter left out takes all. */
export type AuditFilter = {
  readonly [Field in keyof typeof FILTER_PARAMETERS]?: string | undefined;
};

/** A page of the audit log: a filter, where the page begins and how long it is. */
export interface AuditPageQuery extends AuditFilter {
  readonly index: number;
  readonly pageSize: number;
}

/** The query parameter of each filter. */
export const AUDIT_FILTER_PARAMETERS = FILTER_PARAMETERS;

/** The bounds of a page's parameters, and their defaults. */
export const AUDIT_PAGING = {
  index: { parameter: 'index', fallback: 0, min: 0, max: 1_000_000_000 },
  pageSize: { parameter: 'pagesize', fallback: 100, min: 1, max: 1000 },
} as const;

/**
 * A filter as query parameters (export's too), empty ones left out.
 * @example auditFilterData({ from: '20261101', requestId: id }) // { from: '20261101', requestid: id, … }
 */
export function auditFilterData(filter: AuditFilter): Record<string, string | undefined> {
  const data: Record<string, string | undefined> = {};
  for (const [field, parameter] of Object.entries(AUDIT_FILTER_PARAMETERS))
    data[parameter] = filter[field as keyof AuditFilter];
  return data;
}

/** A page's query parameters. @example await mc.read('/audit', auditPageData({ index: 0, pageSize: 50 })) */
export function auditPageData(query: AuditPageQuery): RequestData {
  return {
    ...auditFilterData(query),
    [AUDIT_PAGING.index.parameter]: query.index,
    [AUDIT_PAGING.pageSize.parameter]: query.pageSize,
  };
}

/** A filter or page parameter that cannot be read; its message names it. */
export class AuditParameterError extends RangeError {
  override name = 'AuditParameterError';
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

const DAY = /^\d{8}$/;

/**
 * A filter from query parameters (`read` gives one's value, undefined when absent). A day
 * that is not yyyymmdd throws AuditParameterError naming it.
 * @example readAuditFilter((name) => url.searchParams.get(name) ?? undefined)
 */
export function readAuditFilter(read: (parameter: string) => string | undefined): AuditFilter {
  const day = (parameter: string) => {
    const value = read(parameter);
    if (value !== undefined && !DAY.test(value))
      throw new AuditParameterError(parameter, `Parameter ${parameter} must be a day as yyyymmdd.`);
    return value;
  };
  const p = AUDIT_FILTER_PARAMETERS;
  return {
    from: day(p.from),
    to: day(p.to),
    user: read(p.user),
    service: read(p.service),
    operation: read(p.operation),
    requestId: read(p.requestId),
  };
}

/**
 * A page parameter from the query (`index` or `pageSize`), its default when absent; a value
 * that is no whole number within its bounds throws AuditParameterError naming it.
 */
export function readAuditPaging(
  read: (parameter: string) => string | undefined,
  which: keyof typeof AUDIT_PAGING,
): number {
  const { parameter, fallback, min, max } = AUDIT_PAGING[which];
  const value = read(parameter);
  if (value === undefined) return fallback;
  if (!/^\d{1,10}$/.test(value) || Number(value) < min || Number(value) > max)
    throw new AuditParameterError(
      parameter,
      `Parameter ${parameter} must be a whole number from ${min} to ${max}.`,
    );
  return Number(value);
}

/** How the caller was known: a personal token by its name (contract section 12). */
export type AuditVia = 'session' | 'key' | 'cookie' | 'none' | `token ${string}`;

/** One entry as the server writes it (and stores it, less `truncated`). */
export interface AuditEntryAnswer {
  /** ISO 8601 in UTC. */
  readonly time: string;
  /** yyyymmdd in the service's zone. */
  readonly day: string;
  /** The signed-in person, or null for the API key, a cookie or no credentials. */
  readonly userName: string | null;
  readonly via: AuditVia;
  readonly address: string;
  /** null for the server's own sign-in and settings. */
  readonly service: string | null;
  readonly operation: string;
  readonly parameters: Readonly<Record<string, string>>;
  readonly httpStatus: number;
  readonly status: string;
  readonly message: string;
  readonly requestId: string | null;
  /** It lost parameters or text to the log's bounds. */
  readonly truncated: boolean;
}

/** The data of `GET /mcapi/audit`. */
export interface AuditAnswer {
  readonly total: number;
  readonly index: number;
  readonly pageSize: number;
  /** Where the rest begins when the answer's bytes ended the page early; -1: nothing follows. */
  readonly next: number;
  readonly entries: readonly AuditEntryAnswer[];
}

/** One entry as a client shows it: texts '' when absent, parameters as their JSON text. */
/**
 * The columns of an audit export in CSV, in the order of an entry's fields: the server's
 * export (which adds `truncated`) and the dashboard's page export write the same.
 */
export const AUDIT_CSV_FIELDS = [
  'time',
  'userName',
  'via',
  'address',
  'service',
  'operation',
  'parameters',
  'httpStatus',
  'status',
  'message',
  'requestId',
] as const satisfies readonly (keyof AuditEntry)[];

export interface AuditEntry {
  /** ISO 8601 in UTC. */
  readonly time: string;
  readonly day: string;
  readonly userName: string;
  readonly via: string;
  readonly address: string;
  readonly service: string;
  readonly operation: string;
  readonly parameters: string;
  readonly httpStatus: number | null;
  readonly status: string;
  readonly message: string;
  readonly requestId: string;
}

export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  readonly info: PageInfo;
}

/**
 * The data of `GET /mcapi/audit`, read liberally (an entry that is no object is left out);
 * `asked` stands in for an index or page size the answer does not state.
 * @example decodeAudit(await mc.read('/audit', auditPageData(query)), query).entries
 */
export function decodeAudit(
  data: unknown,
  asked: { readonly index: number; readonly pageSize: number },
): AuditPage {
  const answer = answerFields<AuditAnswer>(data, '/mcapi/audit');
  const entries = objectsOf<AuditEntryAnswer>(answer.entries, 'entries').map((e): AuditEntry => {
    const httpStatus = Number(e.httpStatus);
    return {
      time: textOf(e.time),
      day: textOf(e.day),
      userName: textOf(e.userName),
      via: textOf(e.via),
      address: textOf(e.address),
      service: textOf(e.service),
      operation: textOf(e.operation),
      parameters: textOf(e.parameters),
      httpStatus: Number.isFinite(httpStatus) && e.httpStatus !== null ? httpStatus : null,
      status: textOf(e.status),
      message: textOf(e.message),
      requestId: textOf(e.requestId),
    };
  });
  const total = numberOf(answer.total) ?? entries.length;
  const index = numberOf(answer.index) ?? asked.index;
  const pageSize = numberOf(answer.pageSize) ?? asked.pageSize;
  return {
    entries,
    info: {
      index,
      count: entries.length,
      total,
      prev: index > 0 ? Math.max(0, index - pageSize) : -1,
      next: index + entries.length < total ? index + entries.length : -1,
    },
  };
}
