import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import {
  ErrorCode,
  HttpError,
  type PipelineClient,
  type RequestSummary,
} from '../../../kit/index.ts';
import { useClients } from '../../core/auth.ts';
import { autoRefresh, chosenInterval } from '../../core/auto-refresh.ts';
import { requestKeys } from '../../shared/queries.ts';
import { summarizeDay, summarizeStats, type DayCounts } from './summary.ts';

/** Requests counted at most where the service has no requeststats (see dayCountsQuery). */
export const OVERVIEW_LIMIT = 20_000;
const PAGE = 1000;
/** Errors the overview lists by name. */
export const LATEST_ERRORS = 5;

export interface OverviewDay extends DayCounts {
  /** False where the counts come from the newest OVERVIEW_LIMIT requests only. */
  readonly exact: boolean;
  /** Requests read to count them: the day's Total when exact. */
  readonly counted: number;
}

/** How often a day is read again: as the user chose, never below 5 s. */
export function dayRefetchInterval(refreshSeconds: number): number | false {
  return chosenInterval(refreshSeconds, 5);
}

/** requeststats is ours (contract 8): a vendor service, or a gateway without its index, lacks it. */
function lacksStats(error: unknown): boolean {
  return (
    error instanceof HttpError &&
    error.status === 404 &&
    (error.code === ErrorCode.UnknownApi || error.code === undefined)
  );
}

/** Every request of a day up to OVERVIEW_LIMIT, newest first, page by page. */
async function readDay(
  client: PipelineClient,
  date: string,
  signal: AbortSignal,
): Promise<OverviewDay> {
  const requests: RequestSummary[] = [];
  let index = 0;
  let total = 0;
  for (;;) {
    const page = await client.requestList({ date, index, pageSize: PAGE }, 'json', { signal });
    requests.push(...page.requests);
    total = page.info.total ?? requests.length;
    if (page.info.next < 0 || requests.length >= OVERVIEW_LIMIT) break;
    index = page.info.next;
  }
  return {
    ...summarizeDay(requests),
    total,
    exact: requests.length >= total,
    counted: requests.length,
  };
}

/**
 * A day's counts per pipeline, status and hour. From requeststats, one answer of a few KB
 * however large the day, so that a refresh costs the same at 100 requests or 100,000; only
 * a service without it (a vendor's, behind the gateway until its index exists) is read page
 * by page, up to OVERVIEW_LIMIT, and the page says so.
 */
export const dayCountsQuery = (client: PipelineClient, date: string, refreshSeconds: number) =>
  queryOptions<OverviewDay>({
    queryKey: requestKeys.stats(date),
    queryFn: async ({ signal }) => {
      try {
        const stats = await client.requestStats({ date }, 'json', { signal });
        return { ...summarizeStats(stats), exact: true, counted: stats.total };
      } catch (error) {
        if (lacksStats(error)) return readDay(client, date, signal);
        throw error;
      }
    },
    placeholderData: keepPreviousData,
    ...autoRefresh(dayRefetchInterval(refreshSeconds)),
  });

/**
 * The newest errors of a day. Not polled: its key holds the day's count of errors, so it is
 * read again only when the counts say that count changed (or an action refreshes the lists),
 * and a refresh of an unchanged day downloads the counts alone.
 */
export const latestErrorsQuery = (
  client: PipelineClient,
  date: string,
  errors: number,
  failed: readonly string[],
) =>
  queryOptions({
    // The failed words are part of the key: a service's words told later read again.
    queryKey: [...requestKeys.latestErrors(date, errors), failed.join(',')],
    queryFn: async ({ signal }) =>
      errors === 0
        ? []
        : (
            await client.requestList(
              { date, status: [...failed], pageSize: LATEST_ERRORS },
              'json',
              { signal },
            )
          ).requests,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });

/** The last error message of a failed request, from its application log. */
export const errorMessageQuery = (client: PipelineClient, requestId: string) =>
  queryOptions({
    // Under the request's detail, so a retry of it refreshes the message too.
    queryKey: requestKeys.errorMessage(requestId),
    queryFn: async ({ signal }) => {
      const detail = await client.requestDetail(requestId, { appLog: true }, 'json', {
        signal,
      });
      return [...(detail.appLog ?? [])].reverse().find((l) => l.type === 'ERROR')?.message ?? '';
    },
    staleTime: 30_000,
  });

export function useDayCounts(date: string, refreshSeconds: number, enabled = true) {
  return useQuery({
    ...dayCountsQuery(useClients().pipeline, date, refreshSeconds),
    enabled,
  });
}

export function useLatestErrors(
  date: string,
  errors: number | undefined,
  failed: readonly string[],
) {
  return useQuery({
    ...latestErrorsQuery(useClients().pipeline, date, errors ?? 0, failed),
    enabled: errors !== undefined,
  });
}

export function useErrorMessage(requestId: string) {
  return useQuery(errorMessageQuery(useClients().pipeline, requestId));
}
