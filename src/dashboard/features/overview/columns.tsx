import { Link } from 'react-router';
import { REQUEST_STATUSES } from '../../../kit/index.ts';
import type { ColumnDef } from '../../components/data-table.tsx';
import { paths } from '../../paths.ts';
import { strings } from './strings.ts';
import type { PipelineDay } from './summary.ts';

const COUNT = 'text-right tabular-nums';

/** One column per request status between the pipeline and the total. */
export function byPipelineColumns(date: string): ColumnDef<PipelineDay>[] {
  return [
    {
      id: 'pipeline',
      header: strings.pipeline,
      cell: (row) => (
        <Link to={paths.requests({ date, pipeline: row.id })} className="hover:underline">
          {row.name} <span className="font-mono text-xs text-slate-500">{row.id}</span>
        </Link>
      ),
    },
    ...REQUEST_STATUSES.map((status): ColumnDef<PipelineDay> => ({
      id: status,
      header: status,
      className: COUNT,
      cellProps: () => ({ 'data-status': status }),
      cell: (row) => row.counts[status] ?? 0,
    })),
    {
      id: 'total',
      header: strings.total,
      className: COUNT,
      cellClassName: 'font-semibold',
      cellProps: () => ({ 'data-status': 'total' }),
      cell: (row) => row.total,
    },
  ];
}
