import type { PageInfo } from '../../kit/index.ts';
import { strings } from '../shared/strings.ts';
import { Button } from './button.tsx';
import { lastPageIndex, pagerState } from './pager-state.ts';

/**
 * The one pager of the dashboard: "from–to of total" and previous/next buttons, from the
 * service's page info; with `pageSize` and a known Total, first and last page too. onPage
 * gets the Index to show; the caller keeps it in the URL.
 */
export function Pager({
  info,
  onPage,
  testId,
  label,
  hideWhenSingle = false,
  pageSize,
  className = '',
}: {
  info: PageInfo;
  onPage: (index: number) => void;
  /** The range's data-testid, which the e2e specs read. */
  testId?: string;
  /** Names the pager for assistive technology where a page has more than one. */
  label?: string;
  /** Leave out the whole pager when everything fits on one page. */
  hideWhenSingle?: boolean;
  /** Offers first and last page (where the service tells its Total). */
  pageSize?: number;
  className?: string;
}) {
  const state = pagerState(info);
  const last = lastPageIndex(info, pageSize);
  if (hideWhenSingle && !state.paged) return null;
  return (
    <nav
      aria-label={label}
      className={`flex items-center gap-2 text-sm text-slate-600 dark:text-slate-300 ${className}`}
    >
      <span data-testid={testId}>
        {state.range
          ? strings.pager.range(state.range.from, state.range.to, state.total)
          : strings.pager.empty}
      </span>
      {last !== undefined ? (
        <Button
          size="sm"
          disabled={info.index === 0}
          onClick={() => onPage(0)}
          aria-label={strings.pager.first}
          title={strings.pager.first}
        >
          «
        </Button>
      ) : null}
      <Button
        size="sm"
        disabled={state.previous === undefined}
        onClick={() => state.previous !== undefined && onPage(state.previous)}
        aria-label={strings.pager.previous}
      >
        ‹ {strings.pager.previous}
      </Button>
      <Button
        size="sm"
        disabled={state.next === undefined}
        onClick={() => state.next !== undefined && onPage(state.next)}
        aria-label={strings.pager.next}
      >
        {strings.pager.next} ›
      </Button>
      {last !== undefined ? (
        <Button
          size="sm"
          disabled={info.index >= last}
          onClick={() => onPage(last)}
          aria-label={strings.pager.last}
          title={strings.pager.last}
        >
          »
        </Button>
      ) : null}
    </nav>
  );
}
