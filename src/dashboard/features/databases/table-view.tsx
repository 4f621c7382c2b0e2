import { useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { DatabaseName } from '../../../kit/index.ts';
import { forbiddenReason, useAuth } from '../../app/auth.ts';
import { notify } from '../../app/notices.ts';
import { PAGE_SIZES } from '../../app/preferences.ts';
import { Button } from '../../components/button.tsx';
import { SpacerRow, useVirtualRows } from '../../components/virtual-rows.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, Select, TextInput } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { paths } from '../../paths.ts';
import { CellValue } from './cells.tsx';
import { exportCsv, exportJson } from './export.ts';
import { useTablePage } from './queries.ts';
import { strings } from './strings.ts';
import { TableChangeDialog } from './table-change-dialog.tsx';

const ROW_HEIGHT = 30;

export function TableView({
  database,
  table,
  index,
  size,
  onPage,
  onChanged,
}: {
  database: DatabaseName;
  table: string;
  index: number;
  size: number;
  onPage: (index: number, size: number) => void;
  onChanged: () => void;
}) {
  const auth = useAuth();
  const page = useTablePage(database, table, index, size);
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<{ column: number; descending: boolean }>();
  const [full, setFull] = useState<{ column: string; value: string }>();
  const [change, setChange] = useState<'delete' | 'drop'>();
  const scroller = useRef<HTMLDivElement>(null);
  const data = page.data;
  const rows = useMemo(() => {
    if (!data) return [];
    const needle = filter.trim().toLowerCase();
    let out = needle
      ? data.rows.filter((r) => r.some((v) => v !== null && v.toLowerCase().includes(needle)))
      : [...data.rows];
    if (sort) {
      const numeric =
        data.columns[sort.column] &&
        ['INTEGER', 'BIGINT', 'DOUBLE'].includes(data.columns[sort.column]?.type ?? '');
      out = out.sort((a, b) => {
        const x = a[sort.column] ?? null;
        const y = b[sort.column] ?? null;
        if (x === y) return 0;
        if (x === null) return -1;
        if (y === null) return 1;
        const order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return sort.descending ? -order : order;
      });
    }
    return out;
  }, [data, filter, sort]);
  const { items, padTop, padBottom } = useVirtualRows(rows.length, scroller, ROW_HEIGHT, 20);

  const dialogs = (
    <>
      {full ? (
        <Dialog
          open
          title={strings.fullValue(full.column)}
          onClose={() => setFull(undefined)}
          wide
          footer={<Button onClick={() => setFull(undefined)}>{strings.close}</Button>}
        >
          <pre className="font-mono text-xs break-all whitespace-pre-wrap">{full.value}</pre>
        </Dialog>
      ) : null}
      {change ? (
        <TableChangeDialog
          table={table}
          rows={data?.info.total}
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
  const statusDay = database === 'status' ? /^STATUS(\d{8})$/.exec(table)?.[1] : undefined;
  const copy = async (value: string | null) => {
    await navigator.clipboard.writeText(value ?? '');
    notify({ kind: 'success', text: strings.copied });
  };

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
              {strings.requestsOfDay}
            </Link>
          ) : null}
        </div>
        <div className="flex flex-wrap items-end gap-2">
          <Button
            size="sm"
            onClick={() =>
              exportCsv(`${table}-${info.index + 1}-${info.index + info.count}`, data, rows)
            }
          >
            {strings.exportCsv}
          </Button>
          <Button
            size="sm"
            onClick={() =>
              exportJson(`${table}-${info.index + 1}-${info.index + info.count}`, data, rows)
            }
          >
            {strings.exportJson}
          </Button>
          {database === 'action' ? (
            <>
              <Button
                size="sm"
                variant="danger"
                disabledReason={forbiddenReason(auth, 'deletetable')}
                onClick={() => setChange('delete')}
              >
                {strings.deleteRows}
              </Button>
              <Button
                size="sm"
                variant="danger"
                disabledReason={forbiddenReason(auth, 'droptable')}
                onClick={() => setChange('drop')}
              >
                {strings.dropTable}
              </Button>
            </>
          ) : null}
        </div>
      </div>
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div className="flex flex-wrap items-end gap-2">
          <Field label={strings.filterRows}>
            <TextInput type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
          </Field>
          <p className="pb-2 text-xs text-slate-500 dark:text-slate-400">{strings.localNote}</p>
        </div>
        <div className="flex items-end gap-2 text-sm">
          <Field label={strings.pageSize}>
            <Select value={size} onChange={(e) => onPage(0, Number(e.target.value))}>
              {PAGE_SIZES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </Select>
          </Field>
          <span className="pb-2" data-testid="row-range">
            {info.count === 0
              ? '0'
              : strings.range(info.index + 1, info.index + info.count, info.total)}
          </span>
          <Button
            size="sm"
            disabled={info.prev < 0}
            onClick={() => onPage(Math.max(0, info.prev), size)}
          >
            ‹ {strings.previous}
          </Button>
          <Button size="sm" disabled={info.next < 0} onClick={() => onPage(info.next, size)}>
            {strings.next} ›
          </Button>
        </div>
      </div>
      <div
        ref={scroller}
        className="max-h-[calc(100vh-18rem)] min-h-40 overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
      >
        <table className="w-full font-mono text-xs" data-testid="table-rows">
          <thead className="sticky top-0 z-10 bg-slate-50 font-sans dark:bg-slate-800">
            <tr>
              {data.columns.map((column, i) => (
                <th
                  key={column.name}
                  scope="col"
                  className="border-b border-slate-200 px-2 py-1.5 text-left whitespace-nowrap dark:border-slate-700"
                >
                  <button
                    type="button"
                    onClick={() =>
                      setSort(
                        sort?.column === i
                          ? { column: i, descending: !sort.descending }
                          : { column: i, descending: false },
                      )
                    }
                    aria-label={strings.sortBy(column.name)}
                    className="flex items-center gap-1 font-semibold hover:underline"
                  >
                    {column.key ? (
                      // Text, not an emoji: emoji fonts are missing on many servers' browsers.
                      <span
                        title={strings.key}
                        className="rounded bg-amber-100 px-1 text-[9px] font-bold text-amber-900 dark:bg-amber-900 dark:text-amber-100"
                      >
                        KEY
                      </span>
                    ) : null}
                    {column.name}
                    {sort?.column === i ? (
                      <span aria-hidden="true">{sort.descending ? '▼' : '▲'}</span>
                    ) : null}
                  </button>
                  <span className="block text-[10px] font-normal text-slate-500 uppercase dark:text-slate-400">
                    {column.type}
                  </span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <SpacerRow height={padTop} colSpan={data.columns.length} />
            {items.map((item) => {
              const row = rows[item.index] as readonly (string | null)[];
              return (
                <tr
                  key={item.key}
                  style={{ height: ROW_HEIGHT }}
                  className="border-b border-slate-100 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800/40"
                >
                  {row.map((value, i) => {
                    const column = data.columns[i]?.name ?? '';
                    return (
                      <td
                        key={i}
                        onClick={() => void copy(value)}
                        title={value ?? strings.nullValue}
                        className="max-w-[28rem] cursor-copy truncate px-2 whitespace-nowrap"
                        data-null={value === null ? 'true' : undefined}
                      >
                        <CellValue
                          column={column}
                          value={value}
                          onShowFull={() => setFull({ column, value: value ?? '' })}
                        />
                      </td>
                    );
                  })}
                </tr>
              );
            })}
            <SpacerRow height={padBottom} colSpan={data.columns.length} />
          </tbody>
        </table>
      </div>
      {dialogs}
    </div>
  );
}
