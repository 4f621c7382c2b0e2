import type { Migration } from '../sqlite.ts';

/**
 * The gateway's own index of its upstreams' requests (contract section 8): one row per
 * request a poller has seen, the days it watched, and each service's poller state.
 * Requests are ordered by begin time, then by `seq`, the order the upstream listed them in
 * (newest highest), since begin times tie within a second and serials count per pipeline.
 */
export const indexMigrations: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE indexed_request (
          service     TEXT NOT NULL,
          request_id  TEXT NOT NULL,
          day         TEXT NOT NULL,
          seq         INTEGER NOT NULL,
          pipeline_id TEXT NOT NULL,
          name        TEXT NOT NULL,
          status      TEXT NOT NULL,
          stage       TEXT NOT NULL,
          begin_date  TEXT NOT NULL,
          hour        INTEGER NOT NULL,
          end_time    TEXT NOT NULL DEFAULT '',
          terminal    INTEGER NOT NULL,
          first_ms    INTEGER NOT NULL,
          changed_ms  INTEGER NOT NULL,
          checked_ms  INTEGER NOT NULL,
          PRIMARY KEY (service, request_id)
        ) WITHOUT ROWID;
        CREATE INDEX indexed_request_day ON indexed_request (service, day, begin_date, seq);
        CREATE INDEX indexed_request_pipeline
          ON indexed_request (service, day, pipeline_id, begin_date, seq);
        CREATE INDEX indexed_request_status ON indexed_request (service, day, status);
        CREATE INDEX indexed_request_open ON indexed_request (service, checked_ms)
          WHERE terminal = 0;
        CREATE TABLE indexed_day (
          service  TEXT NOT NULL,
          day      TEXT NOT NULL,
          complete INTEGER NOT NULL,
          PRIMARY KEY (service, day)
        ) WITHOUT ROWID;
        CREATE TABLE indexed_service (
          service        TEXT PRIMARY KEY,
          today          TEXT,
          indexed_at     TEXT,
          offset_minutes INTEGER,
          first_seq      INTEGER NOT NULL DEFAULT 1,
          last_seq       INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 2,
    up(db) {
      // Issue 25: each request's file (SensorFile) and its failure messages, for `q`, and
      // each attempt as the pollers saw it, with the evidence of a failure read when it was
      // first seen (a vendor rewrites its log on retry). `evidence`: '' (none needed), due
      // (to be read within the budget), kept, or lost (the request had moved on first).
      db.exec(`
        ALTER TABLE indexed_request ADD COLUMN sensor_file TEXT NOT NULL DEFAULT '';
        ALTER TABLE indexed_request ADD COLUMN failure TEXT NOT NULL DEFAULT '';
        -- Whether a requestdetail told its file yet (a list does not): spare reads ask.
        ALTER TABLE indexed_request ADD COLUMN file_asked INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX indexed_request_fileless ON indexed_request (service, first_ms)
          WHERE file_asked = 0;
        CREATE TABLE request_attempt (
          service    TEXT NOT NULL,
          request_id TEXT NOT NULL,
          attempt    INTEGER NOT NULL,
          status     TEXT NOT NULL,
          stage      TEXT NOT NULL,
          seen_ms    INTEGER NOT NULL,
          ended_ms   INTEGER,
          begin_time TEXT NOT NULL DEFAULT '',
          end_time   TEXT NOT NULL DEFAULT '',
          changes    TEXT NOT NULL DEFAULT '[]',
          failed     INTEGER NOT NULL DEFAULT 0,
          message    TEXT NOT NULL DEFAULT '',
          log        TEXT NOT NULL DEFAULT '[]',
          evidence   TEXT NOT NULL DEFAULT '',
          tries      INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (service, request_id, attempt)
        ) WITHOUT ROWID;
        CREATE INDEX request_attempt_due ON request_attempt (service, ended_ms)
          WHERE evidence = 'due';
      `);
    },
  },
  {
    version: 3,
    up(db) {
      // Issue 28: one poller per upstream under a lease. With PostgreSQL the lease is the
      // shared store's LEASE; in this file (one process) it is kept the same way, so that
      // the poller has one code path (db/leases.ts).
      db.exec(
        'CREATE TABLE LEASE (NAME VARCHAR PRIMARY KEY, HOLDER VARCHAR NOT NULL, EXPIRES INTEGER NOT NULL)',
      );
    },
  },
  {
    version: 4,
    up(db) {
      // An offset told by a first round (the day's newest request may be hours old) is an
      // estimate, and the dashboard says so until a request seen to begin tells it.
      db.exec('ALTER TABLE indexed_service ADD COLUMN offset_estimated INTEGER NOT NULL DEFAULT 0');
    },
  },
];
