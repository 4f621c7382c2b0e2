import { useEffect, useRef } from 'react';
import { useSearchParams, type NavigateOptions } from 'react-router';

// Changes made since a commit last showed one of them; more than this and the oldest go.
const MAX_UNSHOWN = 100;

/** A change of the query string, from the one it builds on. */
export type SearchChange = (now: URLSearchParams) => URLSearchParams;

/**
 * The page's query string, and a setter whose every change builds on the one before it even
 * when no render came between. React Router shows a navigation in a transition, and its own
 * setter (function form included) starts from what the last render saw: two quick changes
 * (a From day, then a To day; a stage picked and the search cleared) would keep only the
 * second. Changes not yet shown are kept until a commit shows the last of them, or a URL
 * none of them made (back, a link).
 */
export function useSearchChanges(): readonly [
  URLSearchParams,
  (change: SearchChange, options?: NavigateOptions) => void,
] {
  const [search, setSearch] = useSearchParams();
  const unshown = useRef<readonly URLSearchParams[]>([]);
  useEffect(() => {
    const now = search.toString();
    const at = unshown.current.findIndex((sent) => sent.toString() === now);
    unshown.current = at >= 0 ? unshown.current.slice(at + 1) : [];
  }, [search]);
  const changeSearch = (change: SearchChange, options?: NavigateOptions) => {
    const next = change(unshown.current.at(-1) ?? search);
    unshown.current = [...unshown.current, next].slice(-MAX_UNSHOWN);
    setSearch(next, options);
  };
  return [search, changeSearch] as const;
}
