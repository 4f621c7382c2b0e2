import type { TablePage } from '../../../kit/index.ts';

export type Row = readonly (string | null)[];

/** A sort of the loaded rows by a column, named so that a link keeps meaning the same. */
export interface Sort {
  readonly column: string;
  readonly descending: boolean;
}

const NUMERIC = ['INTEGER', 'BIGINT', 'DOUBLE'];

/**
 * The loaded rows that hold the filter text in any value (case aside), sorted: NULL as the
 * smallest value, numbers by value, text by the browser's collation. The service pages; this only arranges
 * what one page brought.
 */
export function arrangeRows(
  data: Pick<TablePage, 'columns' | 'rows'>,
  filter: string,
  sort: Sort | undefined,
): Row[] {
  const needle = filter.trim().toLowerCase();
  const rows = needle
    ? data.rows.filter((r) => r.some((v) => v !== null && v.toLowerCase().includes(needle)))
    : [...data.rows];
  const at = sort ? data.columns.findIndex((c) => c.name === sort.column) : -1;
  if (!sort || at < 0) return rows;
  const numeric = NUMERIC.includes(data.columns[at]?.type ?? '');
  return rows.sort((a, b) => {
    const x = a[at] ?? null;
    const y = b[at] ?? null;
    // NULL is the smallest value, as in SQLite: first going up, last going down.
    const order =
      x === y
        ? 0
        : x === null
          ? -1
          : y === null
            ? 1
            : numeric
              ? Number(x) - Number(y)
              : x.localeCompare(y);
    return sort.descending ? -order : order;
  });
}

/** `NAME` sorts up and `-NAME` down, in the URL's `sort`. */
export function sortFrom(value: string | null): Sort | undefined {
  if (!value || value === '-') return undefined;
  return value.startsWith('-')
    ? { column: value.slice(1), descending: true }
    : { column: value, descending: false };
}

export function sortParam(sort: Sort | undefined): string | undefined {
  return sort ? `${sort.descending ? '-' : ''}${sort.column}` : undefined;
}
