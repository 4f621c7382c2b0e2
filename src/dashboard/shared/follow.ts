import { useQueries, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import {
  TERMINAL_STATUSES,
  failureWordsOf,
  type RequestDetail,
  type RequestStatus,
} from '../../kit/index.ts';
import { useClients } from '../core/auth.ts';
import { autoRefresh, POLL_MS } from '../core/auto-refresh.ts';
import { requestKeys } from './queries.ts';
import { useStatusSemantics } from './use-status-semantics.ts';

/**
 * After an action the service accepted (retry, cancel, execute), what became of the request:
 * the dashboard reports outcomes, not acceptance. Each request is read every 2 s until it
 * has ended (a terminal status of ours, or an EndTime from a service whose words we do not
 * know), and no longer once the component that follows it is gone.
 */
export interface FollowedRequest {
  readonly requestId: string;
  /**
   * `following` until the request ends; `unknown` while the service cannot tell it yet;
   * `untouched` while it is exactly as it was before the action (a service that queues a
   * retry answers OK and leaves the failed request as it was until it takes the retry up).
   */
  readonly state: 'following' | 'ended' | 'unknown' | 'untouched';
  readonly detail: RequestDetail | undefined;
  /** Why it failed, in the service's words (from its logs), when it ended in a failure. */
  readonly failure: string | undefined;
}

const hasEnded = (detail: Pick<RequestDetail, 'status' | 'endTime'>): boolean =>
  TERMINAL_STATUSES.includes(detail.status as RequestStatus) || detail.endTime.trim() !== '';

/** What tells one run of a request from the next: its state, its times, its logs' length. */
const runOf = (d: RequestDetail): string =>
  JSON.stringify([
    d.status,
    d.stage,
    d.beginTime,
    d.endTime,
    d.requestLog?.length,
    d.requestLog?.at(-1),
    d.appLog?.length,
  ]);

/** The details to read before an action and while following it, alike, so that they compare. */
export const FOLLOWED_LOGS = { requestLog: true, appLog: true } as const;

/** Whether a request is still exactly as it was before the action (`before`, when read). */
export const untouched = (detail: RequestDetail, before: RequestDetail | undefined): boolean =>
  before !== undefined && runOf(detail) === runOf(before);

const endedSince = (detail: RequestDetail, before: RequestDetail | undefined): boolean =>
  hasEnded(detail) && !untouched(detail, before);

/**
 * Follows each request of `requestIds` until it ends; `[]` follows nothing. `before`: each
 * one's detail as read before the action (read with FOLLOWED_LOGS): an ended request just as
 * it was then is not taken for the action's outcome, but followed until it changes.
 */
export function useFollowedRequests(
  requestIds: readonly string[],
  before: ReadonlyMap<string, RequestDetail> = new Map(),
): FollowedRequest[] {
  const { pipeline } = useClients();
  const failedWords = useStatusSemantics().failed;
  const isFailed = (status: string) => failedWords.includes(status);
  const queryClient = useQueryClient();
  const results = useQueries({
    queries: requestIds.map((requestId) => ({
      queryKey: [...requestKeys.detail(requestId), 'followed'] as const,
      queryFn: ({ signal }) => pipeline.requestDetail(requestId, FOLLOWED_LOGS, 'json', { signal }),
      // The outcome is what the user waits for: keep reading while the tab is hidden.
      ...autoRefresh<RequestDetail>(
        (detail) =>
          detail && endedSince(detail, before.get(requestId)) ? false : POLL_MS.followedRequest,
        { inBackground: true },
      ),
      staleTime: 0,
    })),
  });
  // Once a followed request ends, the lists and counts that show it are read again at once,
  // not at their next refresh: the page behind the dialog then shows what the dialog says.
  const endedCount = results.filter(
    (r, i) => r.data !== undefined && endedSince(r.data, before.get(requestIds[i] ?? '')),
  ).length;
  const told = useRef(0);
  useEffect(() => {
    if (endedCount > told.current)
      void queryClient.invalidateQueries({ queryKey: requestKeys.lists() });
    told.current = endedCount;
  }, [endedCount, queryClient]);
  return requestIds.map((requestId, i) => {
    const detail = results[i]?.data;
    const was = before.get(requestId);
    const ended = detail !== undefined && endedSince(detail, was);
    return {
      requestId,
      state:
        detail === undefined
          ? 'unknown'
          : ended
            ? 'ended'
            : untouched(detail, was)
              ? 'untouched'
              : 'following',
      detail,
      failure: detail && ended ? failureWordsOf(detail, isFailed) : undefined,
    };
  });
}
