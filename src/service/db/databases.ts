import { mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { DatabaseName } from '../../kit/wire.ts';
import { actionMigrations, isInternalActionTable } from './action/migrations.ts';
import { catalogue, type Catalogue } from './catalogue.ts';
import { migrate, openDatabase, type Db, type Migration } from './sqlite.ts';
import { statusMigrations } from './status/migrations.ts';
import { HIDDEN_SYSTEM_TABLES, systemMigrations } from './system/migrations.ts';

export interface Databases {
  readonly system: Db;
  readonly status: Db;
  readonly action: Db;
  readonly catalogues: Readonly<Record<DatabaseName, Catalogue>>;
  /**
   * Connections for reads on behalf of clients. The action database gets its own, so
   * that a client never sees the rows of a Joint transaction that has not committed.
   */
  readonly readers: Readonly<Record<DatabaseName, Db>>;
  /**
   * Grows whenever anything in the three databases changes (rows written by this process,
   * plus commits and rollbacks marked with `touch`): the key of cached answers.
   */
  version(): number;
  /** Marks a change rows alone do not show, such as the commit of an open transaction. */
  touch(): void;
  close(): void;
}

/**
 * Opens (creating when new) the three databases of a data folder. Without an embedded
 * service (a gateway in front of others, contract section 7) only the system database is
 * a file: the status and action databases are empty ones in memory, so that nothing of a
 * pipeline service is created on disk while the code that reads them needs no branches.
 */
export function openDatabases(dataDir: string, options: { embedded?: boolean } = {}): Databases {
  mkdirSync(dataDir, { recursive: true });
  const embedded = options.embedded ?? true;
  const system = openDatabase(join(dataDir, 'system.db'), systemMigrations);
  const status = embedded
    ? openDatabase(join(dataDir, 'status.db'), statusMigrations)
    : inMemory(statusMigrations);
  const action = embedded
    ? openDatabase(join(dataDir, 'action.db'), actionMigrations)
    : inMemory(actionMigrations);
  const actionReader = embedded
    ? new Database(join(dataDir, 'action.db'), { readonly: true })
    : action;
  const changes = {
    system: system.prepare('SELECT total_changes()').pluck(),
    status: status.prepare('SELECT total_changes()').pluck(),
    action: action.prepare('SELECT total_changes()').pluck(),
  } as Record<DatabaseName, { get(): number }>;
  let touched = 0;
  return {
    system,
    status,
    action,
    catalogues: {
      system: catalogue((name) => HIDDEN_SYSTEM_TABLES.has(name)),
      status: catalogue(() => false),
      action: catalogue(isInternalActionTable),
    },
    readers: { system, status, action: actionReader },
    version() {
      return changes.system.get() + changes.status.get() + changes.action.get() + touched;
    },
    touch() {
      touched++;
    },
    close() {
      for (const db of new Set([actionReader, system, status, action])) {
        if (db.open) db.close();
      }
    },
  };
}

function inMemory(migrations: readonly Migration[]): Db {
  const db = new Database(':memory:');
  migrate(db, migrations);
  return db;
}
