import { Mutex } from 'async-mutex';
import { prepared, type Db } from './sqlite.ts';
import { storable, type Sql, type SqlValue } from './sql.ts';

/**
 * The portable SQL of sql.ts on a better-sqlite3 connection. Each statement runs at once
 * (better-sqlite3 is synchronous); a transaction holds a lock that keeps this client's other
 * statements out until it ends, since its work awaits between statements.
 */
export function sqliteSql(db: Db): Sql {
  const lock = new Mutex();
  const direct = (inTransaction: boolean): Sql => {
    const ready = async (): Promise<void> => {
      if (!inTransaction && lock.isLocked()) await lock.waitForUnlock();
    };
    const client: Sql = {
      engine: 'sqlite',
      async all<T>(sql: string, params: readonly SqlValue[] = []) {
        await ready();
        return prepared(db, sql).all(...storable(params)) as T[];
      },
      async get<T>(sql: string, params: readonly SqlValue[] = []) {
        await ready();
        return prepared(db, sql).get(...storable(params)) as T | undefined;
      },
      async run(sql, params = []) {
        await ready();
        const statement = prepared(db, sql);
        // A change with RETURNING hands rows back; it is still run once.
        const values = storable(params);
        return statement.reader
          ? statement.all(...values).length
          : statement.run(...values).changes;
      },
      async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
        if (inTransaction) return work(client);
        return lock.runExclusive(async () => {
          db.prepare('BEGIN IMMEDIATE').run();
          try {
            const result = await work(direct(true));
            db.prepare('COMMIT').run();
            return result;
          } catch (error) {
            if (db.inTransaction) db.prepare('ROLLBACK').run();
            throw error;
          }
        });
      },
    };
    return client;
  };
  return direct(false);
}
