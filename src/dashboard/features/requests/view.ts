import { todayYmd } from '../../paths.ts';
import { dayFrom, indexFrom, pageSizeFrom, withParams } from '../../shared/url-state.ts';

/** What the requests page shows, all of it from the URL. */
export interface RequestsView {
  readonly date: string;
  readonly pipeline: string | undefined;
  readonly status: string | undefined;
  readonly index: number;
  readonly size: number;
}

export function readRequestsView(search: URLSearchParams, defaultSize: number): RequestsView {
  return {
    date: dayFrom(search.get('date'), todayYmd),
    pipeline: search.get('pipeline') || undefined,
    status: search.get('status') || undefined,
    index: indexFrom(search.get('index')),
    size: pageSizeFrom(search.get('size'), defaultSize),
  };
}

/**
 * The query string after a change of the view. Any change but paging itself goes back to the
 * first page, since the old Index belongs to another list; empty values and Index 0 are left
 * out so that links stay short.
 */
export function searchWith(
  search: URLSearchParams,
  changes: Readonly<Record<string, string | number | undefined>>,
): URLSearchParams {
  const next = withParams(search, changes);
  if (!('index' in changes)) next.delete('index');
  return next;
}
