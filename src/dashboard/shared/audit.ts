import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { PageInfo } from '../../kit/index.ts';
import { useAuth, type Auth } from '../app/auth.ts';
import { mcapiGet } from '../app/mcapi.ts';

/**
 * The server's audit log (`GET /mcapi/audit`, administrators): the Audit page pages it and
 * the request detail shows who retried or cancelled a request. Both read it, so it is here.
 */
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

export interface AuditParams {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly user?: string | undefined;
  readonly service?: string | undefined;
  readonly operation?: string | undefined;
  readonly requestId?: string | undefined;
  readonly index: number;
  readonly size: number;
}

const text = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : v === null || v === undefined
      ? ''
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v as number | boolean);

export function decodeAudit(data: Record<string, unknown>, params: AuditParams): AuditPage {
  const list = Array.isArray(data.entries) ? (data.entries as unknown[]) : [];
  const entries = list.flatMap((value): AuditEntry[] => {
    if (value === null || typeof value !== 'object') return [];
    const e = value as Record<string, unknown>;
    const httpStatus = Number(e.httpStatus);
    return [
      {
        time: text(e.time),
        day: text(e.day),
        userName: text(e.userName),
        via: text(e.via),
        address: text(e.address),
        service: text(e.service),
        operation: text(e.operation),
        parameters: text(e.parameters),
        httpStatus: Number.isFinite(httpStatus) && e.httpStatus !== null ? httpStatus : null,
        status: text(e.status),
        message: text(e.message),
        requestId: text(e.requestId),
      },
    ];
  });
  const total = typeof data.total === 'number' ? data.total : entries.length;
  const index = typeof data.index === 'number' ? data.index : params.index;
  const pageSize = typeof data.pageSize === 'number' ? data.pageSize : params.size;
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

export const auditKeys = {
  all: ['audit'] as const,
  page: (params: AuditParams) => [...auditKeys.all, params] as const,
};

export const auditQuery = (auth: Auth | null, params: AuditParams) =>
  queryOptions({
    queryKey: auditKeys.page(params),
    queryFn: async () =>
      decodeAudit(
        await mcapiGet(auth, '/audit', {
          from: params.from,
          to: params.to,
          user: params.user,
          service: params.service,
          operation: params.operation,
          requestid: params.requestId,
          index: params.index,
          pagesize: params.size,
        }),
        params,
      ),
    placeholderData: keepPreviousData,
  });

export function useAudit(params: AuditParams, enabled = true) {
  const auth = useAuth();
  return useQuery({ ...auditQuery(auth, params), enabled });
}

export function isAdministrator(auth: Auth | null): boolean {
  return auth?.kind === 'session' && auth.role === 'administrator';
}
