import {
  keepPreviousData,
  queryOptions,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { PipelineClient, RequestList } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';
import { requestKeys } from './keys.ts';

export { requestKeys };

export interface ListParams {
  readonly date: string;
  readonly id: string | undefined;
  readonly index: number;
  readonly size: number;
}

export const requestListQuery = (
  client: PipelineClient,
  params: ListParams,
  refreshSeconds: number,
) =>
  queryOptions<RequestList>({
    queryKey: requestKeys.list(params),
    queryFn: () =>
      client.requestList({
        date: params.date,
        id: params.id,
        index: params.index,
        pageSize: params.size,
      }),
    placeholderData: keepPreviousData,
    // Polls only while the tab is visible (react-query pauses intervals in the background).
    refetchInterval: refreshSeconds > 0 ? refreshSeconds * 1000 : false,
    refetchIntervalInBackground: false,
  });

export function useRequestList(params: ListParams, refreshSeconds: number) {
  return useQuery(requestListQuery(useClients().pipeline, params, refreshSeconds));
}

/** Retry or cancel one request; the lists and its detail are refreshed after. */
export function useRequestAction() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ action, requestId }: { action: 'retry' | 'cancel'; requestId: string }) =>
      action === 'retry' ? pipeline.retry(requestId) : pipeline.cancel(requestId),
    onSettled: async (_data, _error, { requestId }) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: requestKeys.lists() }),
        queryClient.invalidateQueries({ queryKey: requestKeys.detail(requestId) }),
      ]);
    },
  });
}
