/** Readers of page state from the URL, which is its source of truth on every page. */

import { DAY_PATTERN } from '../../kit/index.ts';

/** A page's first row from `index`: a whole number of at least 0, else 0. */
export function indexFrom(value: string | null): number {
  return Math.max(0, Number.parseInt(value ?? '0', 10) || 0);
}

/** A day as yyyymmdd from `date`, else the fallback (today, for the pages that show one). */
export function dayFrom(value: string | null, fallback: () => string): string {
  return value !== null && DAY_PATTERN.test(value) ? value : fallback();
}

/** Page sizes every paged table offers. */
export const PAGE_SIZES = [50, 100, 500, 1000] as const;

/** The page size a URL asks for, when it is one of PAGE_SIZES; else the fallback. */
export function pageSizeFrom(param: string | null, fallback: number): number {
  const size = Number(param);
  return (PAGE_SIZES as readonly number[]).includes(size) ? size : fallback;
}

/**
 * The query string with some parameters changed: an undefined or empty value, or an Index
 * of 0, takes the parameter out, so that links stay short and one view has one URL.
 */
export function withParams(
  search: URLSearchParams,
  changes: Readonly<Record<string, string | number | undefined>>,
): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === '' || value === 0) next.delete(name);
    else next.set(name, String(value));
  }
  return next;
}

/** URL parameters of the view to change; an undefined or empty value takes one out. */
export type ViewChanges = Readonly<Record<string, string | number | undefined>>;

/**
 * The query string after a change of the view. Any change but paging itself goes back to the
 * first page, since the old Index belongs to another list; empty values and Index 0 are left
 * out so that links stay short.
 */
export function searchWith(search: URLSearchParams, changes: ViewChanges): URLSearchParams {
  const next = withParams(search, changes);
  if (!('index' in changes)) next.delete('index');
  return next;
}

/**
 * A fresh query string of these values that still keeps the service being looked at: a
 * page that resets its own parameters must not drop the service the URL names.
 */
export function freshParams(
  search: URLSearchParams,
  values: Readonly<Record<string, string | undefined>> = {},
): URLSearchParams {
  const next = new URLSearchParams();
  const service = search.get('service');
  if (service) next.set('service', service);
  for (const [name, value] of Object.entries(values)) if (value) next.set(name, value);
  return next;
}
