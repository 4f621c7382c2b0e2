import { escapeControls, notText } from './text.ts';

// The gateway's shared state (contract section 11) lives in SQLite (the default) or in
// PostgreSQL. Its queries are written once, in the SQL both engines speak, against this
// interface; sqlite-sql.ts and postgres-sql.ts carry it to each engine. Nothing above the
// store knows which engine it has.
//
// Portable SQL, as the store's modules write it:
// - `?` placeholders (postgres-sql.ts numbers them);
// - rows as objects keyed by quoted aliases (`ID AS "ID"`), since PostgreSQL folds
//   unquoted names to lower case and SQLite keeps them;
// - `lower(x) = lower(?)` for "regardless of case" (ASCII in both: names allow ASCII only);
// - `INSERT … ON CONFLICT … DO UPDATE`, `RETURNING`, and numbers as INTEGER/BIGINT, read as
//   JavaScript numbers.

export type SqlValue = string | number | null;

/**
 * The values of a statement as both engines bind them: text holding a control character
 * other than tab, line feed and carriage return (or a lone surrogate) goes in with it
 * written out as `\u0000` (db/text.ts). The routes refuse such text from clients before it
 * gets here; what reaches this is an upstream's words (the request index, a refusal's
 * message), which must be kept whatever they hold. PostgreSQL refuses NUL outright ("invalid
 * byte sequence 0x00", a 500 for whoever called), and SQLite is held to the same, so both
 * keep and find the same text. The values come back unchanged when nothing needs it.
 */
export function storable(params: readonly SqlValue[]): readonly SqlValue[] {
  if (!params.some((value) => typeof value === 'string' && notText(value, MULTI) !== undefined))
    return params;
  return params.map((value) => (typeof value === 'string' ? escapeControls(value, MULTI) : value));
}

const MULTI = { multiLine: true } as const;

export type Engine = 'sqlite' | 'postgres';

export interface Sql {
  readonly engine: Engine;
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Runs a change and says how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /** Runs `work` in one transaction: all of its statements or none. */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
}

/** `column IN (?, ?, …)` with one bound parameter per value (never the values as SQL). */
export function inList(column: string, values: readonly SqlValue[]): string {
  return values.length === 0 ? '0 = 1' : `${column} IN (${values.map(() => '?').join(', ')})`;
}

/**
 * `A AS "A", B AS "B", …`: a row's columns, each under its own quoted name (PostgreSQL
 * would fold `SELECT *`'s and unquoted aliases to lower case), checked against the row's type.
 */
export function columnsOf<Row>(columns: readonly (keyof Row & string)[]): string {
  return columns.map((column) => `${column} AS "${column}"`).join(', ');
}

/** The first column of a query's first row (a count, an id, one field), undefined without a row. */
export async function scalar<T extends SqlValue>(
  sql: Sql,
  query: string,
  params?: readonly SqlValue[],
): Promise<T | undefined> {
  const row = await sql.get<Record<string, T>>(query, params);
  return row && Object.values(row)[0];
}

/**
 * The store could not be reached or refused to work (PostgreSQL down, a lost connection):
 * the server answers 503 naming the database, and serves again once it is back.
 */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  constructor(
    /** The database, its password masked. */
    readonly database: string,
    readonly reason: string,
  ) {
    super(`The database ${database} is unavailable: ${reason}`);
  }
}
