import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { AuditFilter, ManagementConsoleClient } from '../../kit/index.ts';
import { useClients, type Auth } from '../core/auth.ts';

/*
 * The server's audit log (`GET /mcapi/audit`, administrators, read by the kit): the Audit
 * page pages it and the request detail shows who retried or cancelled a request. Both read
 * it, so it is here.
 */

/** A page of the audit log as the dashboard asks for it: the kit's filter, and its page. */
export type AuditParams = AuditFilter & { readonly index: number; readonly size: number };

export const auditKeys = {
  all: ['audit'] as const,
  page: (params: AuditParams) => [...auditKeys.all, params] as const,
};

export const auditQuery = (mc: ManagementConsoleClient, params: AuditParams) =>
  queryOptions({
    queryKey: auditKeys.page(params),
    queryFn: ({ signal }) => {
      const { size, ...filter } = params;
      return mc.audit({ ...filter, pageSize: size }, { signal });
    },
    placeholderData: keepPreviousData,
  });

export function useAudit(params: AuditParams, enabled = true) {
  return useQuery({ ...auditQuery(useClients().console, params), enabled });
}

export function isAdministrator(auth: Auth | null): boolean {
  return auth?.kind === 'session' && auth.role === 'administrator';
}
