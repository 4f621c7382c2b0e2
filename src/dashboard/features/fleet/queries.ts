import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ManagementConsoleClient, Trends } from '../../../kit/index.ts';
import { useAuth, useClients } from '../../core/auth.ts';
import { autoRefresh, POLL_MS } from '../../core/auto-refresh.ts';
import { fleetKeys } from '../../shared/fleet.ts';

export const trendsQuery = (
  mc: ManagementConsoleClient,
  service: string,
  pipelineId: string,
  days: number,
) =>
  queryOptions<Trends>({
    queryKey: fleetKeys.trends(service, pipelineId, days),
    queryFn: ({ signal }) => mc.trends({ service, pipelineId, days }, { signal }),
    ...autoRefresh(POLL_MS.trends),
    placeholderData: keepPreviousData,
  });

export function useTrends(service: string, pipelineId: string, days: number) {
  const auth = useAuth();
  const { console: mc } = useClients();
  return useQuery({
    ...trendsQuery(mc, service, pipelineId, days),
    enabled: auth?.kind === 'session',
  });
}
