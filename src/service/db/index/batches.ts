import type { SqlValue } from '../sql.ts';

// Many rows in few statements (issue 28): the index's writes and lookups of a whole day go to
// the store in statements of many rows each, so that PostgreSQL takes a day in a few round
// trips rather than one per request. Statement texts are cached per engine (prepared
// statements in SQLite, numbered texts in PostgreSQL), so their sizes are kept to powers of
// two: a few texts per statement, whatever the number of rows.

/** Rows a statement carries at most (a power of two). */
export const ROWS_PER_STATEMENT = 256;

/** Values an `IN (…)` lookup binds at most (a power of two, well under either engine's limit). */
export const IDS_PER_LOOKUP = 4096;

/**
 * `items` in pieces whose lengths are powers of two, none above `max` (a power of two):
 * 700 items of 256 at most are 256, 256, 128, 32, 16, 8, 4.
 */
export function* pieces<T>(items: readonly T[], max = ROWS_PER_STATEMENT): Generator<T[]> {
  let from = 0;
  while (from < items.length) {
    let size = max;
    while (size > items.length - from) size /= 2;
    yield items.slice(from, from + size);
    from += size;
  }
}

/**
 * `values` padded to a power of two with copies of the last (which changes no `IN (…)`), so
 * that a lookup of any number of values takes one of a few statement texts.
 */
export function paddedList(values: readonly SqlValue[]): SqlValue[] {
  let size = 1;
  while (size < values.length) size *= 2;
  const last = values.at(-1) ?? null;
  return [...values, ...Array.from({ length: size - values.length }, () => last)];
}

/** `(?, ?, …), (?, ?, …)`: `rows` rows of `columns` placeholders. */
export const valuesRows = (rows: number, columns: number): string =>
  Array.from(
    { length: rows },
    () => `(${Array.from({ length: columns }, () => '?').join(', ')})`,
  ).join(', ');
