import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { PipelineClient, RequestList } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';
import { requestKeys, type RequestListParams } from '../../shared/queries.ts';

// Request keys, retry and cancel are shared with the overview and the request detail, so
// they live in shared/queries.ts.

/**
 * One page of a day's requests, filtered and searched by the service.
 *
 * A refresh asks again for this one page, not for what changed `since` the last read: the
 * page is at most `size` rows (50 by default, about 6 KB), and the changed rows alone cannot
 * keep it exact. A request that left the filtered status is not among the `since` answer of
 * that filter, new requests shift every row to later pages, and Total must stay the exact
 * count; each needs the page again anyway. `since` also takes a time on the service's
 * clock and in its zone, which no answer tells a browser, and the gateway refuses it for
 * vendor services (interfaces.md has no change time). So one page per refresh, only while
 * the tab is visible, is both the smaller and the exact choice.
 */
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
        status: params.status,
        q: params.q,
      }),
    placeholderData: keepPreviousData,
    // Polls only while the tab is visible (react-query pauses intervals in the background).
    refetchInterval: refreshSeconds > 0 ? refreshSeconds * 1000 : false,
    refetchIntervalInBackground: false,
  });

export function useRequestList(params: RequestListParams, refreshSeconds: number, enabled = true) {
  return useQuery({ ...requestListQuery(useClients().pipeline, params, refreshSeconds), enabled });
}

/**
 * Whether a request id exists on a day: the service searches the day for it (`q` matches
 * ids, on our server and behind the gateway) and only an exact id counts, so "r1" does not
 * find "r10".
 */
export async function findRequestOnDay(
  client: PipelineClient,
  date: string,
  requestId: string,
): Promise<boolean> {
  const list = await client.requestList({ date, q: requestId, pageSize: 1000 });
  return list.requests.some((r) => r.requestId === requestId);
}
