import { createHash } from 'node:crypto';
import type { Databases } from '../db/databases.ts';
import { quoteIdentifier } from '../db/sqlite.ts';

/** A digest of every row of every table of the three databases, for "nothing changed" checks. */
export function databaseChecksum(dbs: Databases, skip: ReadonlySet<string> = new Set()): string {
  const hash = createHash('sha256');
  for (const [name, db] of Object.entries({
    system: dbs.system,
    status: dbs.status,
    action: dbs.action,
  })) {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all() as { name: string }[];
    for (const { name: table } of tables) {
      if (skip.has(table)) continue;
      hash.update(`${name}.${table}\n`);
      const statement = db
        .prepare(`SELECT * FROM ${quoteIdentifier(table)} ORDER BY rowid`)
        .raw(true)
        .safeIntegers(true);
      for (const row of statement.iterate() as Iterable<unknown[]>) {
        hash.update(
          JSON.stringify(row, (_k, v: unknown) =>
            typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('base64') : v,
          ),
        );
        hash.update('\n');
      }
    }
  }
  return hash.digest('hex');
}
