import type { PageInfo } from '../../kit/index.ts';

/** What a pager shows and where its buttons lead, from the service's Index/Prev/Next/Total. */
export interface PagerState {
  /** First and last row shown, 1-based; undefined for an empty page. */
  readonly range: { readonly from: number; readonly to: number } | undefined;
  readonly total: number | undefined;
  /** The Index to ask for, or undefined where there is no such page. */
  readonly previous: number | undefined;
  readonly next: number | undefined;
  /** False when everything fits on one page, so a pager can hide its buttons. */
  readonly paged: boolean;
}

export function pagerState(info: PageInfo): PagerState {
  // The service answers Prev/Next -1 where there is no page; a Prev below 0 any other way
  // would still mean "the first page".
  const previous = info.prev < 0 ? undefined : Math.max(0, info.prev);
  const next = info.next < 0 ? undefined : info.next;
  return {
    range: info.count > 0 ? { from: info.index + 1, to: info.index + info.count } : undefined,
    total: info.total,
    previous,
    next,
    paged: previous !== undefined || next !== undefined,
  };
}

/**
 * The Index of the last page, where the service tells its Total and the page size is known;
 * undefined otherwise (a vendor service without Total has no last page to jump to).
 */
export function lastPageIndex(info: PageInfo, pageSize: number | undefined): number | undefined {
  if (info.total === undefined || pageSize === undefined || pageSize < 1) return undefined;
  return info.total === 0 ? 0 : Math.floor((info.total - 1) / pageSize) * pageSize;
}
