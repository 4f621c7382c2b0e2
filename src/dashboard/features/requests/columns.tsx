import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { RequestSummary } from '../../../kit/index.ts';
import { RequestActionButtons } from '../../components/request-action-buttons.tsx';
import type { ColumnDef } from '../../components/data-table.tsx';
import { useActionReasons } from '../../shared/request-actions.ts';
import { useServiceDown } from '../../shared/service-down.ts';
import { requestCellColumns } from './request-cells.tsx';

/** The requests table's columns; selection and actions come from the page. */
export function requestColumns({
  selected,
  allSelected,
  onSelectAll,
  onSelect,
  onAction,
  t,
}: {
  t: TFunction<'requests'>;
  selected: ReadonlySet<string>;
  allSelected: boolean;
  onSelectAll: (checked: boolean) => void;
  onSelect: (requestId: string, checked: boolean) => void;
  onAction: (action: 'retry' | 'cancel', ids: string[]) => void;
}): ColumnDef<RequestSummary>[] {
  const shared = requestCellColumns<RequestSummary>(t, 'py-0');
  return [
    {
      id: 'select',
      header: (
        <input
          type="checkbox"
          aria-label={t('selectAll')}
          checked={allSelected}
          onChange={(e) => onSelectAll(e.target.checked)}
        />
      ),
      className: 'w-10',
      cellClassName: 'py-0',
      cell: (row) => (
        <input
          type="checkbox"
          aria-label={t('selectRow', { id: row.requestId })}
          checked={selected.has(row.requestId)}
          onChange={(e) => onSelect(row.requestId, e.target.checked)}
        />
      ),
    },
    shared.id,
    {
      id: 'pipeline',
      header: t('columns.pipeline'),
      cellClassName: 'py-0',
      // The request id starts with the pipeline's id: a phone can do without this column.
      priority: 'medium',
      cell: (row) => (
        <>
          {row.name}{' '}
          <span className="font-mono text-xs text-slate-500 dark:text-slate-400">
            {row.pipelineId}
          </span>
        </>
      ),
    },
    shared.status,
    shared.stage,
    shared.begin,
    {
      id: 'actions',
      header: t('columns.actions'),
      cellClassName: 'py-0',
      cell: (row) => <RowActions row={row} onAction={onAction} />,
    },
  ];
}

function RowActions({
  row,
  onAction,
}: {
  row: RequestSummary;
  onAction: (action: 'retry' | 'cancel', ids: string[]) => void;
}) {
  const { t } = useTranslation('actions');
  const { retry: retryReason, cancel: cancelReason } = useActionReasons(row.status);
  // A service that is down takes no action: said on the button, as its other reasons are.
  const down = useServiceDown();
  return (
    // Wraps when the words are long (Japanese on a phone), so the table stays in its box.
    <div className="flex flex-wrap gap-1 py-1">
      <RequestActionButtons
        size="sm"
        reasons={{ retry: retryReason ?? down?.reason, cancel: cancelReason ?? down?.reason }}
        words={(action) => t(action)}
        label={(action) => t(`${action}One`, { id: row.requestId })}
        onAction={(action) => onAction(action, [row.requestId])}
      />
    </div>
  );
}
