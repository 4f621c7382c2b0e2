import { queryOptions, useQuery } from '@tanstack/react-query';
import {
  TERMINAL_STATUSES,
  type PipelineClient,
  type RequestDetail,
  type RequestStatus,
} from '../../../kit/index.ts';
import { useClients } from '../../core/auth.ts';
import { autoRefresh, POLL_MS } from '../../core/auto-refresh.ts';
import { requestKeys } from '../../shared/queries.ts';

export const isTerminal = (status: string): boolean =>
  TERMINAL_STATUSES.includes(status as RequestStatus);

/**
 * Whether a request can still change: not in a terminal status of ours, and without an
 * EndTime (a vendor's status words are an open set, but an ended request has ended).
 */
export const isLive = (detail: Pick<RequestDetail, 'status' | 'endTime'>): boolean =>
  !isTerminal(detail.status) && detail.endTime.trim() === '';

export const requestDetailQuery = (client: PipelineClient, requestId: string) =>
  queryOptions<RequestDetail>({
    queryKey: requestKeys.detail(requestId),
    queryFn: ({ signal }) =>
      client.requestDetail(requestId, { requestLog: true, appLog: true }, 'json', { signal }),
    // Polls while the request can still change, and stops once it is terminal or has ended.
    ...autoRefresh<RequestDetail>((detail) =>
      detail && !isLive(detail) ? false : POLL_MS.requestDetail,
    ),
  });

export const DETAIL_PARAMS = (requestId: string) => ({
  requestid: requestId,
  requestlog: 'true',
  applog: 'true',
});

/** The detail exactly as the service sends it, for the raw view. */
export const rawDetailQuery = (client: PipelineClient, requestId: string, format: 'xml' | 'json') =>
  queryOptions({
    queryKey: requestKeys.raw(requestId, format),
    queryFn: async ({ signal }) =>
      (
        await client.get(`/requestdetail/${format}`, DETAIL_PARAMS(requestId), undefined, {
          signal,
        })
      ).text(),
  });

export function useRequestDetail(requestId: string) {
  return useQuery(requestDetailQuery(useClients().pipeline, requestId));
}

export function useRawDetail(requestId: string, format: 'xml' | 'json') {
  return useQuery(rawDetailQuery(useClients().pipeline, requestId, format));
}
