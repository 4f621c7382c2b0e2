import type { RequestList, RequestSummary } from '../../../kit/index.ts';
import type { RequestListParams } from '../../shared/queries.ts';

/**
 * A page of a day's requests, with what the refresh learnt of requests not on it: their
 * last status and stage seen, so that a change read twice (AsOf overlaps by design) or a
 * request elsewhere on the day is not taken for news.
 */
export interface RefreshedList extends RequestList {
  readonly seen?: ReadonlyMap<string, string>;
}

/** At most this many changes in one answer; more and the page is read again instead. */
export const CHANGES_BOUND = 500;

const stateOf = (r: RequestSummary) => `${r.status}\u0000${r.stage}\u0000${r.name}`;

/**
 * The page brought up to date with the requests that changed since it was read, or
 * undefined when only reading the page again keeps it exact. Kept exact:
 * - a request on the page that changed is updated where it is, unless it left the status
 *   filter (the page and its Total then shift: read again);
 * - with a status filter, a request elsewhere that entered it, or whose earlier status is
 *   not known, may move the Total: read again;
 * - without one, requests newer than the page's newest are new to the day: on the first
 *   page they are put on top (the page counts them as new and keeps the rows in place),
 *   and the Total grows by their number; on a later page they shift it: read again.
 */
export function mergeChanges(
  page: RefreshedList,
  changes: RequestList,
  params: Pick<RequestListParams, 'status' | 'size' | 'index'>,
): RefreshedList | undefined {
  if (changes.requests.length >= CHANGES_BOUND || changes.info.next !== -1) return undefined;
  const onPage = new Map(page.requests.map((r) => [r.requestId, r]));
  const seen = new Map(page.seen);
  const filtered = params.status.length > 0;
  const inFilter = (status: string) => !filtered || params.status.includes(status);
  const newest = page.requests[0]?.beginDate ?? '';
  const updated = new Map<string, RequestSummary>();
  const added: RequestSummary[] = [];
  for (const change of changes.requests) {
    const id = change.requestId;
    const before = onPage.get(id);
    const earlier = before ? stateOf(before) : seen.get(id);
    seen.set(id, stateOf(change));
    if (earlier === stateOf(change)) continue;
    if (before) {
      if (!inFilter(change.status)) return undefined;
      updated.set(id, change);
      continue;
    }
    if (filtered) {
      // Elsewhere on the day: only a request known to have been, and to stay, outside the
      // filter cannot move this page or its Total.
      const earlierStatus = earlier?.split('\u0000')[0];
      if (earlierStatus !== undefined && !inFilter(earlierStatus) && !inFilter(change.status))
        continue;
      return undefined;
    }
    if (earlier !== undefined || change.beginDate < newest) continue;
    // A request of the page's newest second that is not on it cannot be placed for sure.
    if (change.beginDate === newest || params.index > 0) return undefined;
    added.push(change);
  }
  const asOf = changes.info.asOf ?? page.info.asOf;
  if (updated.size === 0 && added.length === 0) {
    return { ...page, info: { ...page.info, ...(asOf ? { asOf } : {}) }, seen };
  }
  added.sort((a, b) => (a.beginDate < b.beginDate ? 1 : a.beginDate > b.beginDate ? -1 : 0));
  const rows = [...added, ...page.requests.map((r) => updated.get(r.requestId) ?? r)].slice(
    0,
    params.size,
  );
  const total = page.info.total === undefined ? undefined : page.info.total + added.length;
  const next =
    total !== undefined && params.index + rows.length < total ? params.index + rows.length : -1;
  return {
    requests: rows,
    info: { ...page.info, count: rows.length, next, total, ...(asOf ? { asOf } : {}) },
    seen,
  };
}
