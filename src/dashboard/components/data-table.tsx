import { useRef, type ReactNode, type TdHTMLAttributes } from 'react';
import { SpacerRow, useVirtualRows } from './virtual-rows.tsx';

/** data-* attributes, which the e2e specs and styles select rows and cells by. */
export type DataAttributes = Readonly<Record<`data-${string}`, string | undefined>>;

/**
 * One column of a DataTable, as data (after Airflow's ColumnDef): what its header says, how a
 * row's cell is drawn, and how it is styled.
 */
export interface ColumnDef<Row> {
  /** Stable and unique within the table: the React key of its header and cells. */
  readonly id: string;
  readonly header: ReactNode;
  readonly cell: (row: Row) => ReactNode;
  /** Classes of every cell of the column, header included (alignment, width). */
  readonly className?: string;
  readonly headerClassName?: string;
  readonly cellClassName?: string;
  /** Extra attributes of a row's cell: a click to copy, a title, data-* for the specs. */
  readonly cellProps?: (row: Row) => TdHTMLAttributes<HTMLTableCellElement> & DataAttributes;
  /** The cells draw their own padding: a link that fills its cell, say. */
  readonly flush?: boolean;
  /**
   * 'low' columns are left out below 1024 px, 'medium' ones on phones (below 640 px), so
   * the rest keep their room.
   */
  readonly priority?: 'high' | 'medium' | 'low';
}

export interface VirtualOptions {
  /** Every row's height in pixels: the virtualizer places rows by it. */
  readonly rowHeight: number;
  readonly overscan: number;
  /** Classes of the scrolling box, which bounds the table's height. */
  readonly scrollerClassName: string;
}

const DENSITY = {
  normal: { th: 'px-3 py-2', td: 'px-3 py-2' },
  compact: { th: 'px-2 py-1.5', td: 'px-2' },
} as const;

/** Columns left out on narrower screens (ColumnDef's priority); tables of their own use them too. */
export const PRIORITY = { low: 'hidden lg:table-cell', medium: 'hidden sm:table-cell' } as const;

const cx = (...classes: (string | false | undefined)[]) => classes.filter(Boolean).join(' ');

/** The classes of a column's header or cell, from its definition. */
export function columnClasses<Row>(column: ColumnDef<Row>, part: 'header' | 'cell'): string {
  return cx(
    column.priority !== undefined && column.priority !== 'high' && PRIORITY[column.priority],
    column.className,
    part === 'header' ? column.headerClassName : column.cellClassName,
  );
}

/**
 * The dashboard's one table: columns as data, rows as data. With `virtual` only the rows near
 * the viewport are rendered, inside a scrolling box of its own; spacer rows span every column.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  rowProps,
  testId,
  empty,
  density = 'normal',
  className = 'text-sm',
  virtual,
}: {
  columns: readonly ColumnDef<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string;
  rowProps?: (row: Row) => DataAttributes;
  /** The table's data-testid, which the e2e specs find it by. */
  testId?: string;
  /** Shown across every column when there are no rows; nothing when undefined. */
  empty?: ReactNode;
  density?: keyof typeof DENSITY;
  className?: string;
  virtual?: VirtualOptions;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const { items, padTop, padBottom } = useVirtualRows(
    virtual ? rows.length : 0,
    scroller,
    virtual?.rowHeight ?? 0,
    virtual?.overscan ?? 0,
  );
  // Without virtualization every row is drawn; the indexes stand in for the virtual items.
  const shown = virtual ? items.map((item) => item.index) : rows.map((_row, index) => index);
  const pad = DENSITY[density];

  const table = (
    // Relative: the screen-reader-only texts in its cells (position absolute) are placed
    // within it, not beyond a scrolling wrapper where they would widen the page.
    <table className={cx('relative w-full', className)} data-testid={testId}>
      <thead
        className={cx(
          'border-b border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-800',
          virtual && 'sticky top-0 z-10',
        )}
      >
        <tr className="text-left text-xs font-semibold tracking-wide text-slate-600 dark:text-slate-300">
          {columns.map((column) => (
            <th
              key={column.id}
              scope="col"
              className={cx(pad.th, 'whitespace-nowrap', columnClasses(column, 'header'))}
            >
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {virtual ? <SpacerRow height={padTop} colSpan={columns.length} /> : null}
        {shown.map((index) => {
          const row = rows[index] as Row;
          return (
            <tr
              key={rowKey(row, index)}
              {...rowProps?.(row)}
              style={virtual ? { height: virtual.rowHeight } : undefined}
              className="border-b border-slate-100 last:border-0 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800/40"
            >
              {columns.map((column) => (
                <td
                  key={column.id}
                  {...column.cellProps?.(row)}
                  className={
                    cx(!column.flush && pad.td, columnClasses(column, 'cell')) || undefined
                  }
                >
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          );
        })}
        {virtual ? <SpacerRow height={padBottom} colSpan={columns.length} /> : null}
        {rows.length === 0 && empty !== undefined ? (
          <tr>
            <td
              colSpan={columns.length}
              className="px-3 py-8 text-center text-sm text-slate-500 dark:text-slate-400"
            >
              {empty}
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
  return virtual ? (
    <div ref={scroller} className={virtual.scrollerClassName}>
      {table}
    </div>
  ) : (
    table
  );
}
