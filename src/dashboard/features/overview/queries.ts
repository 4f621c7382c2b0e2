import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { PipelineClient, RequestSummary } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';
import { requestKeys } from '../../shared/queries.ts';

/** Requests counted at most for a day's overview. */
export const OVERVIEW_LIMIT = 20_000;
const PAGE = 1000;

export interface DayRequests {
  readonly requests: readonly RequestSummary[];
  readonly total: number;
  readonly truncated: boolean;
}

/** How often a day is read again: never below 5 s, since each read may be 20 calls. */
export function dayRefetchInterval(refreshSeconds: number): number | false {
  return refreshSeconds > 0 ? Math.max(refreshSeconds, 5) * 1000 : false;
}

/** Every request of a day (up to OVERVIEW_LIMIT, newest first), page by page. */
export const dayRequestsQuery = (client: PipelineClient, date: string, refreshSeconds: number) =>
  queryOptions<DayRequests>({
    // Under the request lists, so a retry, cancel or execute refreshes it too.
    queryKey: requestKeys.day(date),
    queryFn: async () => {
      const requests: RequestSummary[] = [];
      let index = 0;
      let total = 0;
      for (;;) {
        const page = await client.requestList({ date, index, pageSize: PAGE });
        requests.push(...page.requests);
        total = page.info.total ?? requests.length;
        if (page.info.next < 0 || requests.length >= OVERVIEW_LIMIT) break;
        index = page.info.next;
      }
      return { requests, total, truncated: requests.length < total };
    },
    placeholderData: keepPreviousData,
    refetchInterval: dayRefetchInterval(refreshSeconds),
  });

/** The last error message of a failed request, from its application log. */
export const errorMessageQuery = (client: PipelineClient, requestId: string) =>
  queryOptions({
    // Under the request's detail, so a retry of it refreshes the message too.
    queryKey: requestKeys.errorMessage(requestId),
    queryFn: async () => {
      const detail = await client.requestDetail(requestId, { appLog: true });
      return [...(detail.appLog ?? [])].reverse().find((l) => l.type === 'ERROR')?.message ?? '';
    },
    staleTime: 30_000,
  });

export function useDayRequests(date: string, refreshSeconds: number, enabled = true) {
  return useQuery({ ...dayRequestsQuery(useClients().pipeline, date, refreshSeconds), enabled });
}

export function useErrorMessage(requestId: string) {
  return useQuery(errorMessageQuery(useClients().pipeline, requestId));
}
