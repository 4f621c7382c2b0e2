import { prepared, quoteIdentifier, type Db } from './sqlite.ts';

/** A column as the table browser reports it. */
export interface ColumnInfo {
  readonly name: string;
  readonly type: string;
  readonly key: boolean;
}

export type CellValue = string | null;

export interface TablePage {
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly CellValue[][];
  readonly total: number;
}

export interface Catalogue {
  /** Names of the tables clients may see, sorted. */
  tables(db: Db): string[];
  /** The catalogue's own spelling of a visible table, or undefined. */
  find(db: Db, name: string): string | undefined;
}

/** A catalogue showing every table except SQLite's own and those `hidden` rejects. */
export function catalogue(hidden: (name: string) => boolean): Catalogue {
  return {
    tables(db) {
      const rows = prepared(
        db,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
      ).all() as { name: string }[];
      return rows.map((r) => r.name).filter((n) => !hidden(n));
    },
    find(db, name) {
      const row = prepared(
        db,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      ).get(name) as { name: string } | undefined;
      return row && !hidden(row.name) ? row.name : undefined;
    },
  };
}

function cell(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  return String(value);
}

export function tableColumns(db: Db, table: string): ColumnInfo[] {
  const rows = prepared(db, 'SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid').all(
    table,
  ) as { name: string; type: string; pk: number }[];
  return rows.map((r) => ({ name: r.name, type: r.type || 'VARCHAR', key: r.pk > 0 }));
}

export function countRows(db: Db, table: string): number {
  const row = db.prepare(`SELECT COUNT(*) AS n FROM ${quoteIdentifier(table)}`).get() as {
    n: number;
  };
  return row.n;
}

/** Thrown when a page would grow past the size its reader allowed. */
export class PageTooLargeError extends Error {
  override readonly name = 'PageTooLargeError';
  constructor(
    readonly limitChars: number,
    /** Rows that fitted before the limit was reached. */
    readonly rowsThatFit: number,
  ) {
    super(`the page is larger than ${limitChars} characters`);
  }
}

// Markup each cell costs in the largest of the three formats (an HTML <td> or an XML <Item>).
const CELL_OVERHEAD_CHARS = 16;

/**
 * One page of a table in insertion order. `table` must come from a Catalogue, never from
 * a client. Integers are read as BigInt so that BIGINT values keep every digit. Rows are
 * read one at a time so that a page of wide rows stops at `maxChars` instead of filling
 * the memory first.
 */
export function readTablePage(
  db: Db,
  table: string,
  index: number,
  pageSize: number,
  maxChars = Number.POSITIVE_INFINITY,
): TablePage {
  const columns = tableColumns(db, table);
  const statement = prepared(
    db,
    `SELECT * FROM ${quoteIdentifier(table)} ORDER BY rowid LIMIT ? OFFSET ?`,
  );
  const rows: CellValue[][] = [];
  let chars = 0;
  for (const raw of statement.safeIntegers(true).raw(true).iterate(pageSize, index) as Iterable<
    unknown[]
  >) {
    const row = raw.map(cell);
    for (const value of row) chars += (value?.length ?? 0) + CELL_OVERHEAD_CHARS;
    if (chars > maxChars) throw new PageTooLargeError(maxChars, rows.length);
    rows.push(row);
  }
  return { columns, rows, total: countRows(db, table) };
}
