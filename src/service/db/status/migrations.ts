import { STATUS_TABLE_PATTERN } from '../../../kit/wire.ts';
import type { Migration } from '../sqlite.ts';
import { countDay, REQUEST_COUNT_TABLE } from './request-counts.ts';

export const statusMigrations: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE REQUEST (
          REQUESTID VARCHAR PRIMARY KEY,
          PIPELINEID VARCHAR NOT NULL,
          DAY VARCHAR NOT NULL,
          FILENAME VARCHAR NOT NULL,
          ARGS VARCHAR NOT NULL,
          BEGINTIME TIMESTAMP,
          ENDTIME TIMESTAMP,
          SENSORMS INTEGER,
          FILTERMS INTEGER,
          JOINTMS INTEGER,
          SENSORFILE VARCHAR,
          FILESIZE BIGINT,
          ATTEMPT INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE REQUEST_LOG (
          REQUESTID VARCHAR NOT NULL,
          SEQ INTEGER NOT NULL,
          DATE TIMESTAMP NOT NULL,
          STAGE VARCHAR NOT NULL,
          EVENT VARCHAR NOT NULL,
          STATUS VARCHAR NOT NULL,
          ACTIONORDER INTEGER NOT NULL,
          MESSAGE VARCHAR NOT NULL
        );
        CREATE UNIQUE INDEX REQUEST_LOG_BY_REQUEST ON REQUEST_LOG (REQUESTID, SEQ);
        CREATE TABLE APP_LOG (
          REQUESTID VARCHAR NOT NULL,
          IDX INTEGER NOT NULL,
          DATE TIMESTAMP NOT NULL,
          TYPE VARCHAR NOT NULL,
          MESSAGE VARCHAR NOT NULL
        );
        CREATE UNIQUE INDEX APP_LOG_BY_REQUEST ON APP_LOG (REQUESTID, IDX);
        -- Last serial handed out per pipeline and day: serials are never reused, and since
        -- status rows are never deleted it is also the day's request count per pipeline.
        CREATE TABLE REQUEST_SERIAL (
          DAY VARCHAR NOT NULL,
          PIPELINEID VARCHAR NOT NULL,
          LAST INTEGER NOT NULL,
          PRIMARY KEY (DAY, PIPELINEID)
        );
        -- Requests not yet terminal, in the order they were queued.
        CREATE TABLE REQUEST_QUEUE (
          SEQ INTEGER PRIMARY KEY AUTOINCREMENT,
          REQUESTID VARCHAR NOT NULL UNIQUE,
          PIPELINEID VARCHAR NOT NULL
        );
      `);
    },
  },
  {
    version: 2,
    up(db) {
      // A cancel that was answered OK must survive a crash: recovery ends the request Stop.
      db.exec('ALTER TABLE REQUEST_QUEUE ADD COLUMN CANCELREQUESTED INTEGER NOT NULL DEFAULT 0');
    },
  },
  {
    version: 3,
    up(db) {
      // Exact counts of any day without reading the day (requeststats): one pass over each
      // existing day here, triggers from then on (request-counts.ts).
      db.exec(REQUEST_COUNT_TABLE);
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'STATUS%'")
        .pluck()
        .all() as string[];
      for (const table of tables) {
        const day = STATUS_TABLE_PATTERN.exec(table)?.[1];
        if (day !== undefined) countDay(db, day);
      }
    },
  },
  {
    version: 4,
    up(db) {
      // Rows per stage (contract section 10): read by the Sensor, kept by the Filter,
      // written by the Joint; NULL while unknown.
      db.exec(`
        ALTER TABLE REQUEST ADD COLUMN SENSORROWS INTEGER;
        ALTER TABLE REQUEST ADD COLUMN FILTERKEPT INTEGER;
        ALTER TABLE REQUEST ADD COLUMN JOINTROWS INTEGER;
      `);
    },
  },
  {
    version: 5,
    up(db) {
      // Each attempt of a request (issue 25): its status changes with their times, and a
      // failure's message and last application-log lines, kept when a retry moves on.
      db.exec(`
        CREATE TABLE REQUEST_ATTEMPT (
          REQUESTID VARCHAR NOT NULL,
          ATTEMPT INTEGER NOT NULL,
          STATUS VARCHAR NOT NULL,
          STAGE VARCHAR NOT NULL,
          STARTEDMS INTEGER NOT NULL,
          ENDEDMS INTEGER,
          BEGINTIME VARCHAR NOT NULL DEFAULT '',
          ENDTIME VARCHAR NOT NULL DEFAULT '',
          CHANGES VARCHAR NOT NULL DEFAULT '[]',
          FAILED INTEGER NOT NULL DEFAULT 0,
          MESSAGE VARCHAR NOT NULL DEFAULT '',
          LOGLINES VARCHAR NOT NULL DEFAULT '[]',
          PRIMARY KEY (REQUESTID, ATTEMPT)
        );
      `);
    },
  },
];
