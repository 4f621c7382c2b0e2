import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type {
  ManagementConsoleClient,
  PageInfo,
  PipelineClient,
  RequestRange,
} from '../../../kit/index.ts';
import { useAuth, useClients } from '../../core/auth.ts';
import { autoRefresh, chosenInterval } from '../../core/auto-refresh.ts';
import { currentService } from '../../core/current-service.ts';
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
      const { signal } = context;
      const page = (): Promise<RefreshedList> =>
        client.requestList(
          {
            date: params.date,
            id: params.id,
            index: params.index,
            pageSize: params.size,
            status: params.status,
            q: params.q,
          },
          'json',
          { signal },
        );
      const shown = context.client.getQueryData<RefreshedList>(context.queryKey);
      const asOf = shown?.info.asOf;
      if (!shown || !asOf) return page();
      const changes = await client.requestList(
        {
          date: params.date,
          id: params.id,
          q: params.q,
          since: asOf,
          pageSize: CHANGES_BOUND,
        },
        'json',
        { signal },
      );
      return mergeChanges(shown, changes, params) ?? page();
    },
    placeholderData: keepPreviousData,
    // Polls only while the tab is visible (react-query pauses intervals in the background).
    ...autoRefresh(chosenInterval(refreshSeconds)),
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

/** What a range of days is asked for; part of its key, so each page is cached on its own. */
export interface RangeParams {
  readonly from: string;
  readonly to: string;
  readonly pipeline: string | undefined;
  readonly status: readonly string[];
  readonly q: string | undefined;
  readonly index: number;
  readonly size: number;
}

/**
 * A page of the requests of several days with their exact counts (`GET /mcapi/requests/range`,
 * our server's extension): from the status database for the embedded service, from the
 * index for an upstream. Under the lists' key, so that a retry or cancel refreshes it.
 */
export const requestRangeQuery = (
  mc: ManagementConsoleClient,
  service: string | undefined,
  params: RangeParams,
  refreshSeconds: number,
) =>
  queryOptions<RequestRange>({
    queryKey: [...requestKeys.lists(), 'range', params],
    queryFn: ({ signal }) =>
      mc.requestRange(
        {
          service,
          from: params.from,
          to: params.to,
          id: params.pipeline,
          status: params.status,
          q: params.q,
          index: params.index,
          pageSize: params.size,
        },
        { signal },
      ),
    placeholderData: keepPreviousData,
    ...autoRefresh(chosenInterval(refreshSeconds)),
  });

/** The range's page, for a signed-in person only (an API key has no session to ask with). */
export function useRequestRange(params: RangeParams, refreshSeconds: number, enabled: boolean) {
  const auth = useAuth();
  const { console: mc } = useClients();
  return useQuery({
    ...requestRangeQuery(mc, currentService().id, params, refreshSeconds),
    enabled: enabled && auth?.kind === 'session',
  });
}

/** The range's answer as the page's pager reads a page: Prev and Next as the service tells. */
export function rangePageInfo(range: RequestRange): PageInfo {
  return {
    index: range.index,
    prev: range.index > 0 ? Math.max(0, range.index - range.pageSize) : -1,
    next: range.next,
    count: range.requests.length,
    total: range.total,
  };
}
