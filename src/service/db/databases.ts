import { mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { actionMigrations, isInternalActionTable } from './action/migrations.ts';
import { catalogue, type Catalogue } from './catalogue.ts';
import { openDatabase, type Db } from './sqlite.ts';
import { statusMigrations } from './status/migrations.ts';
import { HIDDEN_SYSTEM_TABLES, systemMigrations } from './system/migrations.ts';

export type DatabaseName = 'system' | 'status' | 'action';

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
  close(): void;
}

/** Opens (creating when new) the three databases of a data folder. */
export function openDatabases(dataDir: string): Databases {
  mkdirSync(dataDir, { recursive: true });
  const system = openDatabase(join(dataDir, 'system.db'), systemMigrations);
  const status = openDatabase(join(dataDir, 'status.db'), statusMigrations);
  const action = openDatabase(join(dataDir, 'action.db'), actionMigrations);
  const actionReader = new Database(join(dataDir, 'action.db'), { readonly: true });
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
    close() {
      for (const db of [actionReader, system, status, action]) {
        if (db.open) db.close();
      }
    },
  };
}
