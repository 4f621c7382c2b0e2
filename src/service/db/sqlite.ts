import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { getOrInsertComputed } from '../maps.ts';

export type Db = Database.Database;
export type Statement = Database.Statement;

/** Opens a database file in WAL mode and brings its schema up to date. */
export function openDatabase(file: string, migrations: readonly Migration[]): Db {
  restrictToOwner(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL keeps WAL commits durable across a process crash (not across power loss),
  // which is what kill -9 safety needs, at a fraction of FULL's fsync cost.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

/**
 * The databases hold the API key and password hashes: only the service's own user may read
 * them. SQLite creates the -wal and -shm files with the database file's permissions.
 */
function restrictToOwner(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path)) chmodSync(path, 0o600);
  }
}

/** A numbered schema step; number n brings `user_version` from n-1 to n. */
export interface Migration {
  readonly version: number;
  readonly up: (db: Db) => void;
}

export function migrate(db: Db, migrations: readonly Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const pending = migrations
    .filter((m) => m.version > current)
    .sort((a, b) => a.version - b.version);
  for (const migration of pending) {
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}

const cache = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement, prepared once per database and reused. */
export function prepared(db: Db, sql: string): Statement {
  const statements = getOrInsertComputed(cache, db, () => new Map<string, Statement>());
  return getOrInsertComputed(statements, sql, () => db.prepare(sql));
}

/** Quotes an identifier that came from the database's own catalogue. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `text` as a LIKE pattern (with `ESCAPE '\\'`) matching it literally anywhere. */
export const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
