import type { Db } from '../db/sqlite.ts';
import type { Sql, SqlValue } from '../db/sql.ts';

// Moving one gateway's shared state from its data folder's SQLite into the PostgreSQL that
// several gateways will share (contract section 11): people, their roles and sessions, the
// API settings and key, personal tokens, the audit log, notifications, bulk jobs, and the
// request index with each attempt's evidence (which a vendor may no longer give). Done once,
// into a database no gateway has written to yet, in one transaction: all of it or nothing.

/** The system database's shared tables, each after the tables it refers to. */
const SYSTEM_TABLES = [
  'SETTING',
  'USERS',
  'USER_SERVICE_ROLE',
  'SESSIONS',
  'API_TOKEN',
  'AUDIT',
  'NOTIFICATION',
  'BULK_JOB',
  'BULK_ITEM',
  'API_COOKIE_END',
] as const;

/** The request index's tables (db/index), in PostgreSQL beside the rest. */
const INDEX_TABLES = ['indexed_request', 'indexed_day', 'indexed_service', 'request_attempt'];

/** Identity and serial columns: their sequences go past the ids copied. */
const SEQUENCES = [
  ['USERS', 'ID'],
  ['API_TOKEN', 'ID'],
  ['AUDIT', 'SEQ'],
  ['NOTIFICATION', 'SEQ'],
  ['BULK_JOB', 'ID'],
] as const;

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH_ROWS = 500;

export interface ImportCounts {
  readonly [table: string]: number;
}

/** Why an import was refused before anything was written. */
export class ImportRefused extends Error {
  override readonly name = 'ImportRefused';
}

const columnsOf = (db: Db, table: string): string[] =>
  (db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name);

/**
 * Copies the shared tables of `system` (and of `index`, a gateway's request index file, when
 * it has one) into `target`, a PostgreSQL store at the current schema, and sets its
 * sequences past the ids copied. Refused, writing nothing, when the target already holds
 * any row of those tables. The table and column names are this module's own and SQLite's
 * schema's, never a user's.
 */
export async function importSqlite(options: {
  readonly system: Db;
  readonly index?: Db | undefined;
  readonly target: Sql;
}): Promise<ImportCounts> {
  const { system, index, target } = options;
  if (target.engine !== 'postgres') throw new ImportRefused('the target must be PostgreSQL');
  const sources: [Db, string][] = [
    ...SYSTEM_TABLES.map((table) => [system, table] as [Db, string]),
    ...(index ? INDEX_TABLES.map((table) => [index, table] as [Db, string]) : []),
  ];
  const occupied: string[] = [];
  for (const [, table] of sources) {
    const row = await target.get<{ n: number }>(`SELECT COUNT(*) AS "n" FROM ${table}`);
    if (Number(row?.n ?? 0) > 0) occupied.push(table);
  }
  if (occupied.length > 0) {
    throw new ImportRefused(
      `the database already holds rows in ${occupied.join(', ')}: import into a database no gateway has started on yet`,
    );
  }
  const counts: Record<string, number> = {};
  await target.transaction(async (tx) => {
    for (const [db, table] of sources) {
      const targetColumns = new Set(
        (
          await tx.all<{ name: string }>(
            'SELECT column_name AS "name" FROM information_schema.columns WHERE table_name = lower(?)',
            [table],
          )
        ).map((column) => column.name.toUpperCase()),
      );
      const columns = columnsOf(db, table);
      const missing = columns.filter((column) => !targetColumns.has(column.toUpperCase()));
      if (missing.length > 0) {
        throw new ImportRefused(
          `${table}: the database has no column ${missing.join(', ')}; start a gateway of this version on it first`,
        );
      }
      const list = columns.join(', ');
      const row = `(${columns.map(() => '?').join(', ')})`;
      let batch: SqlValue[] = [];
      let rows = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const count = batch.length / columns.length;
        await tx.run(
          `INSERT INTO ${table} (${list}) VALUES ${Array.from({ length: count }, () => row).join(', ')}`,
          batch,
        );
        batch = [];
      };
      for (const values of db
        .prepare(`SELECT ${list} FROM ${table}`)
        .raw()
        .iterate() as IterableIterator<SqlValue[]>) {
        batch.push(...values);
        rows++;
        if (batch.length >= BATCH_ROWS * columns.length) await flush();
      }
      await flush();
      counts[table] = rows;
    }
    for (const [table, column] of SEQUENCES) {
      await tx.get(
        `SELECT setval(pg_get_serial_sequence(lower(?), lower(?)), COALESCE((SELECT MAX(${column}) FROM ${table}), 0) + 1, false) AS "next"`,
        [table, column],
      );
    }
  });
  return counts;
}
