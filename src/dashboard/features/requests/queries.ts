import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { PipelineClient } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';
import { requestKeys, type RequestListParams } from '../../shared/queries.ts';
import { CHANGES_BOUND, mergeChanges, type RefreshedList } from './refresh.ts';

// Request keys, retry and cancel are shared with the overview and the request detail, so
// they live in shared/queries.ts.

/**
 * One page of a day's requests, filtered and searched by the service.
 *
 * A refresh reads only what changed: the page's answer says what time it is as of (AsOf,
 * our server's extension, on the service's clock), and the refresh asks for the requests of
 * the day (same pipeline and search, any status) changed since then. Most refreshes find
 * nothing new and cost a few hundred bytes instead of the page; mergeChanges puts what
 * changed in place, and reads the page again only where that alone cannot keep it and its
 * Total exact (see refresh.ts). A service that tells no AsOf (a vendor's, or a day the
 * gateway's index did not watch) has its page read again on each refresh.
 */
export const requestListQuery = (
  client: PipelineClient,
  params: RequestListParams,
  refreshSeconds: number,
) =>
  queryOptions<RefreshedList>({
    queryKey: requestKeys.list(params),
    queryFn: async (context) => {
      const page = (): Promise<RefreshedList> =>
        client.requestList({
          date: params.date,
          id: params.id,
          index: params.index,
          pageSize: params.size,
          status: params.status,
          q: params.q,
        });
      const shown = context.client.getQueryData<RefreshedList>(context.queryKey);
      const asOf = shown?.info.asOf;
      if (!shown || !asOf) return page();
      const changes = await client.requestList({
        date: params.date,
        id: params.id,
        q: params.q,
        since: asOf,
        pageSize: CHANGES_BOUND,
      });
      return mergeChanges(shown, changes, params) ?? page();
    },
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
