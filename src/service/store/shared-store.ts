import type { Db } from '../db/sqlite.ts';
import { parseDatabaseUrl } from './database-url.ts';
import { migratePostgres } from './postgres-migrations.ts';
import { postgresPool } from './postgres-sql.ts';
import type { Engine, Sql } from '../db/sql.ts';
import { sqliteSql } from '../db/sqlite-sql.ts';

/**
 * Where the gateway's shared state lives (contract section 11): the system database of the
 * data folder by default, or a PostgreSQL that several gateways share.
 */
export interface SharedStore {
  readonly sql: Sql;
  readonly engine: Engine;
  /** What /readyz and messages call it: the system database, or the URL, password masked. */
  readonly name: string;
  /** Throws when the database does not answer now. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the shared state: PostgreSQL at `databaseUrl` (migrated, under an advisory lock),
 * else the system database. A database that cannot be reached at start stops the start,
 * naming the flag and the reason.
 */
export async function openSharedStore(options: {
  readonly databaseUrl?: string | undefined;
  readonly system: Db;
  readonly log: (message: string) => void;
}): Promise<SharedStore> {
  if (options.databaseUrl === undefined) {
    const sql = sqliteSql(options.system);
    return {
      sql,
      engine: 'sqlite',
      name: 'system database',
      async check() {
        await sql.get('SELECT 1 AS "one"');
      },
      async close() {
        // The system database closes with the other databases.
      },
    };
  }
  const { url, masked } = parseDatabaseUrl(options.databaseUrl);
  const { sql, pool, end } = postgresPool(url, masked, options.log);
  try {
    await migratePostgres(pool, masked);
  } catch (error) {
    await end().catch(() => undefined);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      message.startsWith('--database') ? message : `--database ${masked}: ${message}`,
    );
  }
  return {
    sql,
    engine: 'postgres',
    name: `database ${masked}`,
    async check() {
      await sql.get('SELECT 1 AS "one"');
    },
    close: end,
  };
}
