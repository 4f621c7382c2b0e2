import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Fleet, FleetService, ManagementConsoleClient } from '../../kit/index.ts';
import { useAuth, useClients } from '../core/auth.ts';
import { autoRefresh, POLL_MS } from '../core/auto-refresh.ts';

// Every service's today at once (`GET /mcapi/fleet`): the fleet page reads it, and so may
// the header's service picker (its failed count per service). One query, one cache entry,
// whatever the number of readers.

export const fleetKeys = {
  all: () => ['fleet'] as const,
  fleet: () => ['fleet', 'services'] as const,
  trends: (service: string, pipelineId: string, days: number) =>
    ['fleet', 'trends', { service, pipelineId, days }] as const,
};

export const fleetQuery = (mc: ManagementConsoleClient) =>
  queryOptions<Fleet>({
    queryKey: fleetKeys.fleet(),
    queryFn: ({ signal }) => mc.fleet({ signal }),
    ...autoRefresh(POLL_MS.fleet),
    retry: false,
  });

/**
 * The fleet, for a signed-in person (an API key has no session to ask with: then nothing).
 * `failedOf(id)` is a service's failed count today, undefined while unknown: what the
 * service picker shows beside each name.
 */
export function useFleet(): {
  fleet: Fleet | undefined;
  isLoading: boolean;
  error: unknown;
  refetch: () => void;
  failedOf: (serviceId: string) => number | undefined;
  serviceOf: (serviceId: string) => FleetService | undefined;
} {
  const auth = useAuth();
  const { console: mc } = useClients();
  const query = useQuery({ ...fleetQuery(mc), enabled: auth?.kind === 'session' });
  const serviceOf = (id: string) => query.data?.services.find((s) => s.id === id);
  return {
    fleet: query.data,
    isLoading: query.isLoading,
    error: query.error,
    refetch: () => void query.refetch(),
    failedOf: (id) => serviceOf(id)?.counts.failed,
    serviceOf,
  };
}
