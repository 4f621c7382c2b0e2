import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { PipelineClient, RequestList } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';
import { requestKeys, type RequestListParams } from '../../shared/queries.ts';

// Request keys, retry and cancel are shared with the overview and the request detail, so
// they live in shared/queries.ts.

export const requestListQuery = (
  client: PipelineClient,
  params: RequestListParams,
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

export function useRequestList(params: RequestListParams, refreshSeconds: number, enabled = true) {
  return useQuery({ ...requestListQuery(useClients().pipeline, params, refreshSeconds), enabled });
}
