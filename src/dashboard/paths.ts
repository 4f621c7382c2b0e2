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
  request: (requestId: string, tab?: 'request' | 'app' | 'raw') =>
    withQuery(`/requests/${encodeURIComponent(requestId)}`, { tab }),
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

/** The day a RequestId belongs to: `pl_1-20261121_09-000001` → `20261121`. */
export function dayOfRequest(requestId: string): string | undefined {
  return dayOfRequestId(requestId);
}

/** A dashboard link into another service: the same path with that service's parameter. */
export function inService(link: string, param: string | undefined): string {
  const url = new URL(link, 'http://dashboard.invalid');
  if (param === undefined) url.searchParams.delete('service');
  else url.searchParams.set('service', param);
  return `${url.pathname}${url.search}`;
}
