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
];
