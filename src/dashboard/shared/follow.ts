import { useQueries, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { TERMINAL_STATUSES, type RequestDetail, type RequestStatus } from '../../kit/index.ts';
import { useClients } from '../core/auth.ts';
import { autoRefresh, POLL_MS } from '../core/auto-refresh.ts';
import { requestKeys } from './queries.ts';

/**
 * After an action the service accepted (retry, cancel, execute), what became of the request:
 * the dashboard reports outcomes, not acceptance. Each request is read every 2 s until it
 * has ended (a terminal status of ours, or an EndTime from a service whose words we do not
 * know), and no longer once the component that follows it is gone.
 */
export interface FollowedRequest {
  readonly requestId: string;
  /** `following` until the request ends; `unknown` while the service cannot tell it yet. */
  readonly state: 'following' | 'ended' | 'unknown';
  readonly detail: RequestDetail | undefined;
  /** Why it failed, in the service's words (from its logs), when it ended in a failure. */
  readonly failure: string | undefined;
}

const hasEnded = (detail: Pick<RequestDetail, 'status' | 'endTime'>): boolean =>
  TERMINAL_STATUSES.includes(detail.status as RequestStatus) || detail.endTime.trim() !== '';

const FAILED: readonly string[] = ['Error', 'Stop'];

/**
 * The message that says why a request failed: the last request-log entry with a message in
 * a failing status, else the last application-log entry of type error. Undefined for a
 * request that did not fail or whose service wrote no reason.
 */
export function failureOf(detail: RequestDetail): string | undefined {
  if (detail.status === 'Finish') return undefined;
  const logged = [...(detail.requestLog ?? [])]
    .reverse()
    .find((entry) => entry.message.trim() !== '' && FAILED.includes(entry.status));
  if (logged) return logged.message;
  const app = [...(detail.appLog ?? [])]
    .reverse()
    .find((entry) => /^(error|fatal)$/i.test(entry.type) && entry.message.trim() !== '');
  return app?.message;
}

/** Follows each request of `requestIds` until it ends; `[]` follows nothing. */
export function useFollowedRequests(requestIds: readonly string[]): FollowedRequest[] {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  const results = useQueries({
    queries: requestIds.map((requestId) => ({
      queryKey: [...requestKeys.detail(requestId), 'followed'] as const,
      queryFn: ({ signal }) =>
        pipeline.requestDetail(requestId, { requestLog: true, appLog: true }, 'json', { signal }),
      // The outcome is what the user waits for: keep reading while the tab is hidden.
      ...autoRefresh<RequestDetail>(
        (detail) => (detail && hasEnded(detail) ? false : POLL_MS.followedRequest),
        { inBackground: true },
      ),
      staleTime: 0,
    })),
  });
  // Once a followed request ends, the lists and counts that show it are read again at once,
  // not at their next refresh: the page behind the dialog then shows what the dialog says.
  const endedCount = results.filter((r) => r.data !== undefined && hasEnded(r.data)).length;
  const told = useRef(0);
  useEffect(() => {
    if (endedCount > told.current)
      void queryClient.invalidateQueries({ queryKey: requestKeys.lists() });
    told.current = endedCount;
  }, [endedCount, queryClient]);
  return requestIds.map((requestId, i) => {
    const detail = results[i]?.data;
    return {
      requestId,
      state: detail === undefined ? 'unknown' : hasEnded(detail) ? 'ended' : 'following',
      detail,
      failure: detail && hasEnded(detail) ? failureOf(detail) : undefined,
    };
  });
}
