import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { dayOfStatusTable, type DatabaseName } from '../../../kit/index.ts';
import { useForbidden } from '../../core/auth.ts';
import { Button } from '../../components/button.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, Options, SearchField, UrlSelect } from '../../components/fields.tsx';
import { Pager } from '../../components/pager.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { paths } from '../../paths.ts';
import { EXPORTS } from './export.ts';
import { rowCountOf, useTablePage } from './queries.ts';
import { rowColumns } from './columns.tsx';
import { arrangeRows, sortParam, type Sort } from './rows.ts';
import { TABLE_PAGE_SIZES, type RowsViewChange } from './view.ts';
import { TableChangeDialog } from './table-change-dialog.tsx';

/** An action table's changes: the operation a role may be refused, the button's words. */
const TABLE_CHANGES = [
  { change: 'delete', operation: 'deletetable', label: 'deleteRows' },
  { change: 'drop', operation: 'droptable', label: 'dropTable' },
] as const;

const ROW_HEIGHT = 30;
const SCROLLER =
  'max-h-[calc(100vh-18rem)] min-h-40 overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900';

export function TableView({
  database,
  table,
  index,
  size,
  filter,
  sort,
  onView,
  onChanged,
}: {
  database: DatabaseName;
  table: string;
  index: number;
  size: number;
  filter: string;
  sort: Sort | undefined;
  /** The URL parameters of the rows' view that change; the others stay as they are. */
  onView: (changes: RowsViewChange) => void;
  onChanged: () => void;
}) {
  const { t } = useTranslation('databases');
  const forbidden = useForbidden();
  const page = useTablePage(database, table, index, size);
  const [full, setFull] = useState<{ column: string; value: string }>();
  const [change, setChange] = useState<'delete' | 'drop'>();
  const data = page.data;
  const rows = useMemo(() => (data ? arrangeRows(data, filter, sort) : []), [data, filter, sort]);

  const dialogs = (
    <>
      {full ? (
        <Dialog
          open
          title={t('fullValue', { column: full.column })}
          onClose={() => setFull(undefined)}
          wide
          footer={<Button onClick={() => setFull(undefined)}>{t('close')}</Button>}
        >
          <pre className="font-mono text-xs break-all whitespace-pre-wrap">{full.value}</pre>
        </Dialog>
      ) : null}
      {change ? (
        <TableChangeDialog
          table={table}
          rows={data ? rowCountOf(data.info) : undefined}
          drop={change === 'drop'}
          onClose={(changed) => {
            setChange(undefined);
            // A dropped table is gone: back to the list. After a delete the emptied table stays.
            if (changed && change === 'drop') onChanged();
          }}
        />
      ) : null}
    </>
  );
  if (page.error || !data) {
    return (
      <>
        {page.error ? (
          <ErrorView error={page.error} onRetry={() => void page.refetch()} />
        ) : (
          <Spinner />
        )}
        {dialogs}
      </>
    );
  }
  const info = data.info;
  const statusDay = database === 'status' ? dayOfStatusTable(table) : undefined;

  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div className="flex flex-wrap items-end gap-2">
          <h2 className="font-mono text-base font-semibold">{table}</h2>
          {statusDay ? (
            <Link
              to={paths.requests({ date: statusDay })}
              className="text-sm text-teal-700 hover:underline dark:text-teal-400"
            >
              {t('requestsOfDay')}
            </Link>
          ) : null}
        </div>
        <div className="flex flex-wrap items-end gap-2">
          {EXPORTS.map(({ label, save }) => (
            <Button
              key={label}
              size="sm"
              onClick={() =>
                save(`${table}-${info.index + 1}-${info.index + info.count}`, data, rows)
              }
            >
              {t(label)}
            </Button>
          ))}
          {database === 'action'
            ? TABLE_CHANGES.map(({ change, operation, label }) => (
                <Button
                  key={change}
                  size="sm"
                  variant="danger"
                  disabledReason={forbidden(operation)}
                  onClick={() => setChange(change)}
                >
                  {t(label)}
                </Button>
              ))
            : null}
        </div>
      </div>
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div className="flex flex-wrap items-end gap-2">
          <SearchField label={t('filterRows')} value={filter} onText={(rows) => onView({ rows })} />
          <p className="pb-2 text-xs text-slate-500 dark:text-slate-400">{t('localNote')}</p>
        </div>
        <div className="flex flex-wrap items-end gap-2 text-sm">
          <Field label={t('pageSize')}>
            <UrlSelect value={size} onPick={(picked) => onView({ index: 0, size: Number(picked) })}>
              <Options values={TABLE_PAGE_SIZES} label={(n) => t('count', { n })} />
            </UrlSelect>
          </Field>
          <Pager
            // Past the bound no total is known: the pager says the range alone.
            info={info.bound === undefined ? info : { ...info, total: undefined }}
            testId="row-range"
            label={t('rowPages')}
            className="pb-1"
            onPage={(nextIndex) => onView({ index: nextIndex })}
          />
        </div>
      </div>
      {info.bound !== undefined ? (
        // A gateway read only the first rows of a longer table: no total is known, so none
        // is shown, here or in the pager.
        <p
          data-testid="row-bound"
          className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          {t('bound', { count: info.bound })}
        </p>
      ) : null}
      <DataTable
        columns={rowColumns(
          t,
          data.columns,
          sort,
          (next) => onView({ sort: sortParam(next) }),
          (column, value) => setFull({ column, value }),
        )}
        rows={rows}
        rowKey={(_row, index) => String(index)}
        testId="table-rows"
        density="compact"
        className="font-mono text-xs"
        virtual={{ rowHeight: ROW_HEIGHT, overscan: 20, scrollerClassName: SCROLLER }}
      />
      {dialogs}
    </div>
  );
}
