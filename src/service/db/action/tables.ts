import { countRows } from '../catalogue.ts';
import { quoteIdentifier, type Db } from '../sqlite.ts';

/** Deletes every row of a catalogued table; returns how many went. */
export function deleteAllRows(db: Db, table: string): number {
  return db.prepare(`DELETE FROM ${quoteIdentifier(table)}`).run().changes;
}

/** Drops a catalogued table; returns how many rows it held. */
export function dropTable(db: Db, table: string): number {
  return db.transaction(() => {
    const rows = countRows(db, table);
    db.exec(`DROP TABLE ${quoteIdentifier(table)}`);
    return rows;
  })();
}
