import { queryOptions } from '@tanstack/react-query';
import { ManagementConsoleClient, type Role, type ServiceRole } from '../../kit/index.ts';
import { autoRefresh, POLL_MS } from './auto-refresh.ts';
import { BASE_PATH } from './base-path.ts';

// A person's role on each service (contract section 12): granted there, else their default.
// Read from the session's answer, again every 15 s and after any refusal, as the server reads
// it at each call: a grant or a revoke shows in the controls without signing in again.

/** A key of the server-wide lists (query-client.ts does not file it under one service). */
export const serviceRolesKey = ['services', 'roles'] as const;

/**
 * Takes the session's id (undefined for an API key sign-in or nobody: then never read), not
 * the sign-in itself, so that auth.ts can build its role checks on this without a circle.
 */
export const serviceRolesQuery = (sessionId: string | undefined) =>
  queryOptions({
    queryKey: serviceRolesKey,
    queryFn: async ({ signal }): Promise<readonly ServiceRole[]> =>
      (
        await new ManagementConsoleClient({
          credentialsMode: 'omit',
          basePath: BASE_PATH,
          sessionId,
        }).session({ signal })
      ).serviceRoles,
    enabled: sessionId !== undefined,
    ...autoRefresh(POLL_MS.serviceRoles),
    retry: false,
  });

/** The role that decides on a service, and which service that is. */
export interface RoleHere {
  readonly role: Role;
  /** The service's id; undefined while the server's roles per service are not known. */
  readonly service: string | undefined;
  /**
   * Its name from the server's list of services, which a person reads where the header and
   * the reasons name it (the id is for URLs); undefined while that list is not known.
   */
  readonly serviceName?: string | undefined;
  /** True when the server answers for more than one service: the reasons name it. */
  readonly several: boolean;
}

/**
 * The person's role on the service `serviceId` names (undefined: the first of the server's
 * list, which plain /pipelineapi reaches); their default role while the list is unknown.
 * `serviceName` is that service's name, when the list of services is known.
 */
export function roleHere(
  defaultRole: Role,
  roles: readonly ServiceRole[] | undefined,
  serviceId: string | undefined,
  serviceName?: string,
): RoleHere {
  const found =
    serviceId === undefined ? roles?.[0] : roles?.find((entry) => entry.service === serviceId);
  return {
    role: found?.role ?? defaultRole,
    service: found?.service ?? serviceId,
    // Only a name given with the id it belongs to: roles[0]'s service has none here.
    ...(serviceId !== undefined && serviceName ? { serviceName } : {}),
    several: (roles?.length ?? 0) > 1,
  };
}

/** The service a role is on, as a person reads it: its name, else (not known yet) its id. */
export function serviceShown(here: RoleHere): string | undefined {
  return here.serviceName ?? here.service;
}
