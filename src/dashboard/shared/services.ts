import { queryOptions, useQuery } from '@tanstack/react-query';
import {
  DAY_PATTERN,
  EMBEDDED_ONLY,
  type ManagementConsoleClient,
  type PipelineClient,
  type ServiceInfo,
} from '../../kit/index.ts';
import { useAuth, useClients } from '../core/auth.ts';
import { autoRefresh, POLL_MS } from '../core/auto-refresh.ts';
import { todayYmd } from '../paths.ts';
import { currentService } from '../core/current-service.ts';

export const servicesKeys = {
  list: () => ['services', 'list'] as const,
  today: (serviceId: string) => ['services', 'today', serviceId] as const,
};

/** The services the server stands in front of, checked again every 30 s as the server does. */
export const servicesQuery = (mc: ManagementConsoleClient) =>
  queryOptions({
    queryKey: servicesKeys.list(),
    queryFn: ({ signal }) => mc.services({ signal }),
    ...autoRefresh(POLL_MS.services),
    retry: false,
  });

/**
 * The services, or the embedded one alone when the list cannot be read (an API key
 * sign-in has no session to ask with; an older server has no list).
 */
export function useServices(): {
  services: readonly ServiceInfo[];
  known: boolean;
  isLoading: boolean;
  error: unknown;
} {
  const auth = useAuth();
  const { console: mc } = useClients();
  const query = useQuery({ ...servicesQuery(mc), enabled: auth?.kind === 'session' });
  const services = query.data && query.data.length > 0 ? query.data : EMBEDDED_ONLY;
  return {
    services,
    known: query.data !== undefined,
    isLoading: query.isLoading,
    error: query.error,
  };
}

/**
 * The service the dashboard is looking at: the one the URL's `service` names (the layout
 * has set it, see core/current-service.ts), else the first of the list (plain /pipelineapi).
 */
export function useCurrentService(): ServiceInfo {
  const { services } = useServices();
  const id = currentService().id;
  return services.find((s) => s.id === id) ?? services[0] ?? (EMBEDDED_ONLY[0] as ServiceInfo);
}

/**
 * A service's name for an id a server's answer names it by (an audit entry's, a token's):
 * what a person reads, while the id stays in URLs and data-* attributes. An id the list
 * does not hold (a service since removed from the services file) is all there is to show.
 */
export function serviceNameOf(services: readonly ServiceInfo[], id: string): string {
  return services.find((s) => s.id === id)?.name || id;
}

/** The service a URL's `service` parameter chooses, or why it cannot. */
export function chooseService(
  services: readonly ServiceInfo[],
  param: string | null,
): ServiceInfo | undefined {
  return param ? services.find((s) => s.id === param) : services[0];
}

/** A day the service wrote as yyyymmdd or yyyy-mm-dd, as yyyymmdd; else undefined. */
export function dayOfInfoDate(value: string): string | undefined {
  const digits = value.replace(/\D/g, '').slice(0, 8);
  return DAY_PATTERN.test(digits) ? digits : undefined;
}

/** The service's own today: the Info.Date of a request list asked for without a date. */
export const serviceTodayQuery = (client: PipelineClient, serviceId: string) =>
  queryOptions({
    queryKey: servicesKeys.today(serviceId),
    queryFn: async ({ signal }) => {
      const list = await client.requestList({ index: 0, pageSize: 1 }, 'json', { signal });
      return dayOfInfoDate(list.info.date) ?? null;
    },
    staleTime: 60_000,
    ...autoRefresh(POLL_MS.serviceToday),
  });

/**
 * "Today" for the pages that default to it: the service's day once known. Until the
 * service has answered (or if it names no day), `ready` is false and the browser's day
 * stands in.
 */
export function useServiceToday(): { today: string; ready: boolean } {
  const { pipeline } = useClients();
  const service = useCurrentService();
  const query = useQuery(serviceTodayQuery(pipeline, service.id));
  const day = query.data ?? undefined;
  return { today: day ?? todayYmd(), ready: query.data !== undefined || query.isError };
}
