import type { TFunction } from 'i18next';
import { Link, useLocation } from 'react-router';
import type { RequestSummary } from '../../../kit/index.ts';
import { StageBadge, StatusBadge } from '../../components/badge.tsx';
import type { ColumnDef } from '../../components/data-table.tsx';
import { ServiceTime } from '../../components/time.tsx';
import { paths } from '../../paths.ts';

/** What both request tables know of a request: a day's list and a range of days. */
type RequestCells = Pick<RequestSummary, 'requestId' | 'status' | 'stage' | 'beginDate'>;

const cx = (...classes: (string | undefined)[]) => classes.filter(Boolean).join(' ');

/**
 * A request's id, leading to its page with this list's address along (`from`), so that the
 * page's back link returns to the same day, filters and page rather than the whole day.
 */
function RequestIdLink({ requestId }: { requestId: string }) {
  const list = useLocation();
  return (
    <Link
      to={paths.request(requestId, undefined, `${list.pathname}${list.search}`)}
      className="text-teal-700 hover:underline focus-visible:outline-2 focus-visible:outline-teal-600 dark:text-teal-400"
    >
      {requestId}
    </Link>
  );
}

/**
 * The columns a request shows alike in a day's list and in a range, so the two cannot drift.
 * `cellPadding` is the day list's `py-0`: its rows hold checkboxes and buttons, which set the
 * row's height themselves.
 */
export function requestCellColumns<Row extends RequestCells>(
  t: TFunction<'requests'>,
  cellPadding?: 'py-0',
): Record<'id' | 'status' | 'stage' | 'begin', ColumnDef<Row>> {
  return {
    id: {
      id: 'id',
      header: t('columns.id'),
      // Wrapped on a phone, so that the status and actions stay on screen.
      cellClassName: cx(
        cellPadding,
        'font-mono text-xs break-all sm:break-normal sm:whitespace-nowrap',
      ),
      cell: (row) => <RequestIdLink requestId={row.requestId} />,
    },
    status: {
      id: 'status',
      header: t('columns.status'),
      cellClassName: cellPadding,
      cell: (row) => <StatusBadge status={row.status} />,
    },
    stage: {
      id: 'stage',
      header: t('columns.stage'),
      cellClassName: cellPadding,
      priority: 'low',
      cell: (row) => <StageBadge stage={row.stage} />,
    },
    begin: {
      id: 'begin',
      header: t('columns.begin'),
      cellClassName: cx(
        cellPadding,
        'text-xs whitespace-nowrap text-slate-600 dark:text-slate-400',
      ),
      priority: 'low',
      cell: (row) => <ServiceTime stamp={row.beginDate} />,
    },
  };
}
