import type { TFunction } from 'i18next';
import { Link } from 'react-router';
import { REQUEST_STATUSES } from '../../../kit/index.ts';
import type { ColumnDef } from '../../components/data-table.tsx';
import { paths } from '../../paths.ts';
import type { PipelineDay } from './summary.ts';

const COUNT = 'text-right tabular-nums';

// On a phone the failures (Error, Stop), Finish and the Total stay in view; the waiting and
// running states, and any status of the service's own, wait for a wider screen (the latter
// are counted in the health line above the table too).
const ON_PHONES: readonly string[] = ['Finish', 'Error', 'Stop'];

/**
 * The status columns: ours always, then any other status the day's requests have (a
 * vendor's Running, Abort...), as the service words it.
 */
export function statusColumnsOf(rows: readonly PipelineDay[]): string[] {
  const known: readonly string[] = REQUEST_STATUSES;
  const others = new Set<string>();
  for (const row of rows)
    for (const status of Object.keys(row.counts)) if (!known.includes(status)) others.add(status);
  return [...known, ...[...others].sort()];
}

/** One column per request status between the pipeline and the total. */
export function byPipelineColumns(
  t: TFunction<'overview'>,
  date: string,
  statuses: readonly string[] = REQUEST_STATUSES,
): ColumnDef<PipelineDay>[] {
  const count = (n: number) => t('count', { n });
  return [
    {
      id: 'pipeline',
      header: t('pipeline'),
      cell: (row) => (
        <Link
          to={paths.requests({ date, pipeline: row.id })}
          // 24 px high at least: WCAG 2.2's target size, with rows this close together.
          className="inline-block py-1 hover:underline"
        >
          {row.name}{' '}
          <span className="font-mono text-xs text-slate-500 dark:text-slate-400">{row.id}</span>
        </Link>
      ),
    },
    ...statuses.map((status): ColumnDef<PipelineDay> => ({
      id: status,
      header: status || t('noStatus'),
      className: COUNT,
      priority: ON_PHONES.includes(status) ? 'high' : 'medium',
      cellProps: () => ({ 'data-status': status }),
      cell: (row) => count(row.counts[status] ?? 0),
    })),
    {
      id: 'total',
      header: t('total'),
      className: COUNT,
      cellClassName: 'font-semibold',
      cellProps: () => ({ 'data-status': 'total' }),
      cell: (row) => count(row.total),
    },
  ];
}
