import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RequestSummary } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';
import { requestKeys } from '../requests/keys.ts';

/** Requests counted at most for a day's overview. */
export const OVERVIEW_LIMIT = 20_000;
const PAGE = 1000;

export interface DayRequests {
  readonly requests: readonly RequestSummary[];
  readonly total: number;
  readonly truncated: boolean;
}

/** Every request of a day (up to OVERVIEW_LIMIT, newest first), page by page. */
export function useDayRequests(date: string, refreshSeconds: number) {
  const { pipeline } = useClients();
  return useQuery<DayRequests>({
    queryKey: [...requestKeys.lists(), 'day', date],
    queryFn: async () => {
      const requests: RequestSummary[] = [];
      let index = 0;
      let total = 0;
      for (;;) {
        const page = await pipeline.requestList({ date, index, pageSize: PAGE });
        requests.push(...page.requests);
        total = page.info.total ?? requests.length;
        if (page.info.next < 0 || requests.length >= OVERVIEW_LIMIT) break;
        index = page.info.next;
      }
      return { requests, total, truncated: requests.length < total };
    },
    placeholderData: keepPreviousData,
    refetchInterval: refreshSeconds > 0 ? Math.max(refreshSeconds, 5) * 1000 : false,
  });
}

/** The last error message of a failed request, from its application log. */
export function useErrorMessage(requestId: string) {
  const { pipeline } = useClients();
  return useQuery({
    queryKey: [...requestKeys.detail(requestId), 'error-message'],
    queryFn: async () => {
      const detail = await pipeline.requestDetail(requestId, { appLog: true });
      return [...(detail.appLog ?? [])].reverse().find((l) => l.type === 'ERROR')?.message ?? '';
    },
    staleTime: 30_000,
  });
}
