/** Every link of the dashboard is built here, so routes and links cannot drift apart. */

import { dayOfRequestId, type AuditFilter, type DatabaseName } from '../kit/index.ts';
import { currentService } from './core/current-service.ts';

/**
 * The requests page's address: one day (`date`) or several (`from` to `to`, yyyymmdd, at most
 * 31 days), a pipeline, statuses comma-separated as the service's `status` takes them, and
 * `q`, a substring of the request id, file name or error message; then the page.
 */
export type RequestsQuery = {
  readonly [field in 'date' | 'from' | 'to' | 'pipeline' | 'status' | 'q']?: string | undefined;
} & { readonly [field in 'index' | 'size']?: number | undefined };

/**
 * The path with its query; every link keeps the service being looked at (`service`, left
 * out for the first service of the server's list), so links and bookmarks are exact.
 */
function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  const service = currentService().param;
  if (service !== undefined && path !== '/sign-in') params.set('service', service);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * What the audit page shows; every filter is in the URL. The filter is the kit's (the one
 * definition the server reads too); the page has no request id filter of its own.
 */
export type AuditQuery = Omit<AuditFilter, 'requestId'> & {
  readonly index?: number | undefined;
  readonly size?: number | undefined;
};

/** Where the databases page's list of tables stands: its page and its filter. */
export interface TableListQuery {
  readonly listIndex?: number | undefined;
  readonly filter?: string | undefined;
}

export const paths = {
  overview: () => withQuery('/', {}),
  signIn: (next?: string) => withQuery('/sign-in', { next }),
  pipelines: (filter?: string) => withQuery('/pipelines', { q: filter }),
  requests: (query: RequestsQuery = {}) =>
    withQuery('/requests', {
      date: query.date,
      from: query.from,
      to: query.to,
      pipeline: query.pipeline,
      status: query.status,
      q: query.q,
      index: query.index || undefined,
      size: query.size,
    }),
  /**
   * A request's page; `from` is the requests list it is opened from (path and query), so that
   * its back link returns to the same day, filters and page (see requestsListFrom).
   */
  request: (requestId: string, tab?: 'request' | 'app' | 'raw', from?: string) =>
    withQuery(`/requests/${encodeURIComponent(requestId)}`, { tab, from }),
  database: (
    database: DatabaseName,
    table?: string,
    page: { index?: number; size?: number } = {},
    list: TableListQuery = {},
  ) =>
    withQuery(`/databases/${database}`, {
      listIndex: list.listIndex || undefined,
      filter: list.filter,
      table,
      index: page.index || undefined,
      size: page.size,
    }),
  /** Every service's today at once (issue 25), where a server of several lands. */
  fleet: () => withQuery('/fleet', {}),
  /** A pipeline's last days by outcome and duration. */
  trends: (pipelineId: string, days?: number) =>
    withQuery(`/pipelines/${encodeURIComponent(pipelineId)}/trends`, { days }),
  settings: () => withQuery('/settings', {}),
  // Not /services: the server keeps that prefix for /services/<id>/pipelineapi.
  services: () => withQuery('/service-list', {}),
  audit: (query: AuditQuery = {}) =>
    withQuery('/audit', {
      from: query.from,
      to: query.to,
      user: query.user,
      // The audit's own filter: `service` would switch the service every page shows.
      auditService: query.service,
      operation: query.operation,
      index: query.index || undefined,
      size: query.size,
    }),
} as const;

/** Today in the browser's calendar as yyyymmdd. */
export function todayYmd(now = new Date()): string {
  return `${now.getFullYear()}${String(now.getMonth() + 1).padStart(2, '0')}${String(now.getDate()).padStart(2, '0')}`;
}

export function ymdToIso(ymd: string): string {
  return `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;
}

export function isoToYmd(iso: string): string {
  return iso.replaceAll('-', '');
}

export function shiftDay(ymd: string, days: number): string {
  const date = new Date(
    Number(ymd.slice(0, 4)),
    Number(ymd.slice(4, 6)) - 1,
    Number(ymd.slice(6, 8)) + days,
  );
  return todayYmd(date);
}

/**
 * The day a request belongs to: the one its id names (`pl_1-20261121_09-000001` →
 * `20261121`), else the day of its begin time when known (`2026-11-21 09:14:03`): a service
 * behind the gateway may name its requests its own way. Undefined when neither tells.
 */
export function dayOfRequest(requestId: string, beginTime = ''): string | undefined {
  const begun = /^(\d{4})-(\d{2})-(\d{2})\b/.exec(beginTime.trim());
  return dayOfRequestId(requestId) ?? (begun ? `${begun[1]}${begun[2]}${begun[3]}` : undefined);
}

/** A stand-in origin to read the dashboard's own links with URL; never fetched. */
const DASHBOARD_ORIGIN = 'http://dashboard.invalid';

/**
 * The requests list a request's page was opened from (its `from` parameter), when it is one:
 * only the path of this dashboard's requests page with its query is taken. Anything else (an
 * external address such as `//evil.example/x` or `https://…`, `javascript:…`, another page)
 * is refused, so that a crafted link cannot turn the back link into a way off the dashboard;
 * the page then falls back to the request's own day.
 */
export function requestsListFrom(from: string | null | undefined): string | undefined {
  // A path of ours starts with one slash; `//host` and `/\host` are another site's.
  if (!from || !/^\/(?![/\\])/.test(from)) return undefined;
  let url: URL;
  try {
    url = new URL(from, DASHBOARD_ORIGIN);
  } catch {
    return undefined;
  }
  if (url.origin !== DASHBOARD_ORIGIN || url.pathname !== '/requests') return undefined;
  // Rebuilt from what the parser read: never the raw text, whatever it held besides.
  return `${url.pathname}${url.search}`;
}

/** Whether a requests list's address is a range of several days rather than one day. */
export function isRangeList(list: string): boolean {
  const query = new URL(list, DASHBOARD_ORIGIN).searchParams;
  const from = query.get('from');
  return from !== null && query.get('to') !== null && from !== query.get('to');
}

/** A dashboard link into another service: the same path with that service's parameter. */
export function inService(link: string, param: string | undefined): string {
  const url = new URL(link, DASHBOARD_ORIGIN);
  if (param === undefined) url.searchParams.delete('service');
  else url.searchParams.set('service', param);
  return `${url.pathname}${url.search}`;
}
