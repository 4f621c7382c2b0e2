import { DAY_PATTERN, statusTableName } from '../../../kit/wire.ts';
import { prepared, quoteIdentifier, type Db } from '../sqlite.ts';

// A day's requests counted per pipeline, hour and status (contract section 8), kept by
// triggers on the day's status table: every write of a status row, by the engine, its
// worker thread or anything else, moves a count in the same transaction, so requeststats
// reads a few dozen rows whatever the size of the day and is exact by construction.

/** The hour of a stored stamp (`YYYY-MM-DD hh:mm:ss.mmm`, service zone) as an integer. */
const hourOf = (row: 'NEW' | 'OLD') => `CAST(substr(${row}.CREATED, 12, 2) AS INTEGER)`;

// A rowid table like every other: the status browser pages tables by rowid.
export const REQUEST_COUNT_TABLE = `
  CREATE TABLE IF NOT EXISTS REQUEST_COUNT (
    DAY VARCHAR NOT NULL,
    PIPELINEID VARCHAR NOT NULL,
    HOUR INTEGER NOT NULL,
    STATUS VARCHAR NOT NULL,
    N INTEGER NOT NULL,
    PRIMARY KEY (DAY, PIPELINEID, HOUR, STATUS)
  )`;

/**
 * The triggers that keep REQUEST_COUNT for one day's table, and its index by status. The day is part of the SQL
 * (triggers take no parameters); it is checked to be eight digits first.
 */
export function countTriggers(day: string): string {
  if (!DAY_PATTERN.test(day)) throw new Error(`not a day: ${day}`);
  const table = statusTableName(day);
  const on = quoteIdentifier(table);
  const name = (what: string) => quoteIdentifier(`${table}_COUNT_${what}`);
  const add = `INSERT INTO REQUEST_COUNT (DAY, PIPELINEID, HOUR, STATUS, N)
      VALUES ('${day}', NEW.PIPELINEID, ${hourOf('NEW')}, NEW.STATUS, 1)
      ON CONFLICT (DAY, PIPELINEID, HOUR, STATUS) DO UPDATE SET N = N + 1;`;
  const remove = `UPDATE REQUEST_COUNT SET N = N - 1
      WHERE DAY = '${day}' AND PIPELINEID = OLD.PIPELINEID AND HOUR = ${hourOf('OLD')} AND STATUS = OLD.STATUS;`;
  // The status index serves lists by status (requestlist's `status`, bulk jobs) without a
  // pass over the day; rowids inside an index entry keep the newest-first order cheap.
  return `
    CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${table}_BY_STATUS`)} ON ${on} (STATUS);
    CREATE TRIGGER IF NOT EXISTS ${name('INSERT')} AFTER INSERT ON ${on} BEGIN ${add} END;
    CREATE TRIGGER IF NOT EXISTS ${name('UPDATE')} AFTER UPDATE OF STATUS, PIPELINEID, CREATED ON ${on}
      WHEN OLD.STATUS IS NOT NEW.STATUS OR OLD.PIPELINEID IS NOT NEW.PIPELINEID
        OR ${hourOf('OLD')} IS NOT ${hourOf('NEW')}
      BEGIN ${remove} ${add} END;
    CREATE TRIGGER IF NOT EXISTS ${name('DELETE')} AFTER DELETE ON ${on} BEGIN ${remove} END;`;
}

/** Counts an existing day's table from scratch (a migration's one pass), adds its triggers and index. */
export function countDay(db: Db, day: string): void {
  const table = quoteIdentifier(statusTableName(day));
  db.prepare('DELETE FROM REQUEST_COUNT WHERE DAY = ?').run(day);
  db.prepare(
    `INSERT INTO REQUEST_COUNT (DAY, PIPELINEID, HOUR, STATUS, N)
     SELECT ?, PIPELINEID, CAST(substr(CREATED, 12, 2) AS INTEGER), STATUS, COUNT(*)
     FROM ${table} GROUP BY 2, 3, 4`,
  ).run(day);
  db.exec(countTriggers(day));
}

export interface RequestCount {
  readonly pipelineId: string;
  readonly hour: number;
  readonly status: string;
  readonly count: number;
}

/** A day's non-zero counts, optionally of one pipeline: a range of the primary key. */
export function readRequestCounts(db: Db, day: string, pipelineId?: string): RequestCount[] {
  const rows = (
    pipelineId === undefined
      ? prepared(
          db,
          'SELECT PIPELINEID, HOUR, STATUS, N FROM REQUEST_COUNT WHERE DAY = ? AND N > 0',
        ).all(day)
      : prepared(
          db,
          'SELECT PIPELINEID, HOUR, STATUS, N FROM REQUEST_COUNT WHERE DAY = ? AND PIPELINEID = ? AND N > 0',
        ).all(day, pipelineId)
  ) as { PIPELINEID: string; HOUR: number; STATUS: string; N: number }[];
  return rows.map((r) => ({
    pipelineId: r.PIPELINEID,
    hour: r.HOUR,
    status: r.STATUS,
    count: r.N,
  }));
}
