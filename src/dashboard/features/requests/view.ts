import { REQUEST_STATUSES } from '../../../kit/index.ts';
import { dayFrom, indexFrom, pageSizeFrom, withParams } from '../../shared/url-state.ts';

/** What the requests page shows, all of it from the URL. */
export interface RequestsView {
  readonly date: string;
  readonly pipeline: string | undefined;
  /** Statuses the service filters on (`status=Error,Stop`); empty for all. */
  readonly status: readonly string[];
  /** The search the service runs on id, file name and error message. */
  readonly q: string | undefined;
  readonly index: number;
  readonly size: number;
}

/** The statuses of a `status` parameter: comma-separated words, blanks and repeats left out. */
export function statusesFrom(value: string | null): string[] {
  const words = (value ?? '').split(',').map((s) => s.trim());
  return [...new Set(words.filter(Boolean))];
}

/** `today` is the service's day (see useServiceToday), the date when the URL names none. */
export function readRequestsView(
  search: URLSearchParams,
  defaultSize: number,
  today: string,
): RequestsView {
  return {
    date: dayFrom(search.get('date'), () => today),
    pipeline: search.get('pipeline') || undefined,
    status: statusesFrom(search.get('status')),
    q: search.get('q')?.trim() || undefined,
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

/** The `status` parameter with one status turned on or off, in the order of the choices. */
export function toggledStatus(
  current: readonly string[],
  status: string,
  on: boolean,
  choices: readonly string[],
): string {
  const chosen = new Set(current);
  if (on) chosen.add(status);
  else chosen.delete(status);
  return [...choices, ...current]
    .filter((s, i, all) => chosen.has(s) && all.indexOf(s) === i)
    .join(',');
}

/**
 * The statuses the filter offers: ours, then any other word the service used on this page
 * or the URL asks for (statuses are an open set), as they are.
 */
export function statusChoices(
  rows: readonly { readonly status: string }[],
  current: readonly string[],
): string[] {
  const known: readonly string[] = REQUEST_STATUSES;
  const others = new Set<string>();
  for (const r of rows) if (r.status && !known.includes(r.status)) others.add(r.status);
  for (const s of current) if (!known.includes(s)) others.add(s);
  return [...known, ...[...others].sort()];
}
