import type { PageInfo } from '../../kit/index.ts';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
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
          ? state.total === undefined
            ? t('pager.range', { from: state.range.from, to: state.range.to })
            : t('pager.rangeOf', { from: state.range.from, to: state.range.to, total: state.total })
          : t('pager.empty')}
      </span>
      {last !== undefined ? (
        <Button
          size="sm"
          disabled={info.index === 0}
          onClick={() => onPage(0)}
          aria-label={t('pager.first')}
          title={t('pager.first')}
        >
          «
        </Button>
      ) : null}
      <Button
        size="sm"
        disabled={state.previous === undefined}
        onClick={() => state.previous !== undefined && onPage(state.previous)}
        aria-label={t('pager.previous')}
      >
        ‹ {t('pager.previous')}
      </Button>
      <Button
        size="sm"
        disabled={state.next === undefined}
        onClick={() => state.next !== undefined && onPage(state.next)}
        aria-label={t('pager.next')}
      >
        {t('pager.next')} ›
      </Button>
      {last !== undefined ? (
        <Button
          size="sm"
          disabled={info.index >= last}
          onClick={() => onPage(last)}
          aria-label={t('pager.last')}
          title={t('pager.last')}
        >
          »
        </Button>
      ) : null}
    </nav>
  );
}
