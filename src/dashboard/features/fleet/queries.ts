import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { decodeTrends, type Trends } from '../../../kit/index.ts';
import { useAuth, type Auth } from '../../app/auth.ts';
import { mcapiGet } from '../../app/mcapi.ts';
import { fleetKeys } from '../../shared/fleet.ts';

/** Past days change little; today's counts do: read again once a minute. */
const TRENDS_REFRESH_MS = 60_000;

export const trendsQuery = (auth: Auth | null, service: string, pipelineId: string, days: number) =>
  queryOptions<Trends>({
    queryKey: fleetKeys.trends(service, pipelineId, days),
    queryFn: async () =>
      decodeTrends(
        await mcapiGet(auth, '/trends', { service, pipelineid: pipelineId, days: String(days) }),
      ),
    refetchInterval: TRENDS_REFRESH_MS,
    placeholderData: keepPreviousData,
  });

export function useTrends(service: string, pipelineId: string, days: number) {
  const auth = useAuth();
  return useQuery({
    ...trendsQuery(auth, service, pipelineId, days),
    enabled: auth?.kind === 'session',
  });
}
