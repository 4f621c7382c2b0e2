import type { TFunction } from 'i18next';
import { Link } from 'react-router';
import type { ColumnInfo, DatabaseName } from '../../../kit/index.ts';
import { notify } from '../../core/notices.ts';
import type { ColumnDef } from '../../components/data-table.tsx';
import { paths, type TableListQuery } from '../../paths.ts';
import { CellValue } from './cells.tsx';
import type { RowCount } from './queries.ts';
import type { Row, Sort } from './rows.ts';

export interface ListedTable {
  readonly name: string;
  readonly rows: RowCount | undefined;
}

/** The list of tables has one column: each name links to the table, with its row count. */
export function tableListColumns(
  t: TFunction<'databases'>,
  database: DatabaseName,
  current: string | undefined,
  list: TableListQuery,
): ColumnDef<ListedTable>[] {
  return [
    {
      id: 'table',
      header: t('tables'),
      flush: true,
      cell: (row) => (
        <Link
          to={paths.database(database, row.name, {}, list)}
          aria-current={row.name === current ? 'true' : undefined}
          className={`flex items-center justify-between gap-2 px-3 py-1.5 ${
            row.name === current ? 'bg-teal-50 font-semibold dark:bg-teal-950' : ''
          }`}
        >
          <span className="truncate font-mono text-xs">{row.name}</span>
          <span className="shrink-0 text-xs text-slate-500 dark:text-slate-400">
            {row.rows === undefined
              ? t('rowsUnknown')
              : row.rows.atLeast
                ? t('rowsAtLeast', { count: row.rows.count })
                : t('rows', { count: row.rows.count })}
          </span>
        </Link>
      ),
    },
  ];
}

async function copy(value: string | null, copied: string) {
  await navigator.clipboard.writeText(value ?? '');
  notify({ kind: 'success', text: copied });
}

/** One column per column of the table: a sort button, key marker and type in its header. */
export function rowColumns(
  t: TFunction<'databases'>,
  columns: readonly ColumnInfo[],
  sort: Sort | undefined,
  onSort: (sort: Sort) => void,
  onShowFull: (column: string, value: string) => void,
): ColumnDef<Row>[] {
  return columns.map((column, i) => ({
    id: `${i}:${column.name}`,
    header: (
      <span className="font-sans normal-case">
        <button
          type="button"
          onClick={() =>
            onSort({
              column: column.name,
              descending: sort?.column === column.name ? !sort.descending : false,
            })
          }
          aria-label={t('sortBy', { column: column.name })}
          className="flex items-center gap-1 font-semibold hover:underline"
        >
          {column.key ? (
            // Text, not an emoji: emoji fonts are missing on many servers' browsers.
            <span
              title={t('key')}
              className="rounded bg-amber-100 px-1 text-[9px] font-bold text-amber-900 dark:bg-amber-900 dark:text-amber-100"
            >
              {t('keyMarker')}
            </span>
          ) : null}
          {column.name}
          {sort?.column === column.name ? (
            <span aria-hidden="true">{sort.descending ? '▼' : '▲'}</span>
          ) : null}
        </button>
        <span className="block text-[10px] font-normal text-slate-500 uppercase dark:text-slate-400">
          {column.type}
        </span>
      </span>
    ),
    cellClassName: 'max-w-[28rem] cursor-copy truncate whitespace-nowrap',
    cellProps: (row) => {
      const value = row[i] ?? null;
      return {
        onClick: () => void copy(value, t('copied')),
        title: value ?? t('nullValue'),
        'data-null': value === null ? 'true' : undefined,
      };
    },
    cell: (row) => {
      const value = row[i] ?? null;
      return (
        <CellValue
          column={column.name}
          value={value}
          onShowFull={() => onShowFull(column.name, value ?? '')}
        />
      );
    },
  }));
}
