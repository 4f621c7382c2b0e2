import type { Migration } from '../sqlite.ts';

export const systemMigrations: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE SETTING (
          NAME VARCHAR PRIMARY KEY,
          VALUE VARCHAR
        );
        CREATE TABLE PIPELINE (
          ID VARCHAR PRIMARY KEY,
          NUM INTEGER NOT NULL UNIQUE,
          NAME VARCHAR NOT NULL,
          RUNMODE VARCHAR NOT NULL CHECK (RUNMODE IN ('run', 'stop')),
          DESCRIPTION VARCHAR NOT NULL,
          CREATED TIMESTAMP NOT NULL,
          UPDATED TIMESTAMP NOT NULL
        );
        CREATE TABLE PIPELINE_ARG (
          PIPELINEID VARCHAR NOT NULL REFERENCES PIPELINE(ID) ON DELETE CASCADE,
          POSITION INTEGER NOT NULL,
          NAME VARCHAR NOT NULL,
          DEFAULTVALUE VARCHAR NOT NULL,
          PRIMARY KEY (PIPELINEID, POSITION)
        );
        CREATE TABLE PIPELINE_ACTION (
          PIPELINEID VARCHAR NOT NULL REFERENCES PIPELINE(ID) ON DELETE CASCADE,
          STAGE VARCHAR NOT NULL CHECK (STAGE IN ('Sensor', 'Filter', 'Joint')),
          ACTIONORDER INTEGER NOT NULL,
          TYPE VARCHAR NOT NULL,
          CONFIG VARCHAR NOT NULL,
          PRIMARY KEY (PIPELINEID, STAGE, ACTIONORDER)
        );
      `);
    },
  },
  {
    version: 2,
    up(db) {
      db.exec(`
        CREATE TABLE USERS (
          NAME VARCHAR PRIMARY KEY,
          PASSWORDHASH VARCHAR NOT NULL,
          ROLE VARCHAR NOT NULL CHECK (ROLE IN ('administrator', 'developer', 'operator')),
          CREATED TIMESTAMP NOT NULL
        );
        -- Session ids are stored hashed: the database alone cannot be used to sign in.
        CREATE TABLE SESSIONS (
          IDHASH VARCHAR PRIMARY KEY,
          KIND VARCHAR NOT NULL CHECK (KIND IN ('mc', 'fs')),
          USERNAME VARCHAR NOT NULL REFERENCES USERS(NAME) ON DELETE CASCADE,
          CREATED INTEGER NOT NULL,
          LASTUSED INTEGER NOT NULL,
          TIMEOUTMS INTEGER NOT NULL,
          EXPIRES INTEGER NOT NULL
        );
        CREATE INDEX SESSIONS_BY_EXPIRY ON SESSIONS (EXPIRES);
      `);
    },
  },
  {
    version: 3,
    up(db) {
      db.exec(`
        -- Who changed what, through this server (contract section 7); pruned by age.
        -- SEQ is the rowid: newest first by it; no AUTOINCREMENT, so an entry touches no
        -- other table (sqlite_sequence).
        CREATE TABLE AUDIT (
          SEQ INTEGER PRIMARY KEY,
          TIME TIMESTAMP NOT NULL,
          DAY VARCHAR NOT NULL,
          USERNAME VARCHAR,
          VIA VARCHAR NOT NULL,
          ADDRESS VARCHAR NOT NULL,
          SERVICE VARCHAR,
          OPERATION VARCHAR NOT NULL,
          PARAMETERS VARCHAR NOT NULL,
          HTTPSTATUS INTEGER NOT NULL,
          STATUS VARCHAR NOT NULL,
          MESSAGE VARCHAR NOT NULL,
          REQUESTID VARCHAR
        );
        CREATE INDEX AUDIT_BY_DAY ON AUDIT (DAY, SEQ);
        CREATE INDEX AUDIT_BY_REQUEST ON AUDIT (REQUESTID);
      `);
    },
  },
  {
    version: 4,
    up(db) {
      db.exec(`
        -- Notifications of failed requests (contract section 9): one row per request,
        -- state and receiver, which is what keeps a notification from going out twice.
        -- TARGET is the receiver's origin only: a webhook's path is its secret.
        CREATE TABLE NOTIFICATION (
          SEQ INTEGER PRIMARY KEY,
          TIME TIMESTAMP NOT NULL,
          TARGET VARCHAR NOT NULL,
          TARGETHASH VARCHAR NOT NULL,
          REQUESTID VARCHAR NOT NULL,
          STATUS VARCHAR NOT NULL,
          ATTEMPTS INTEGER NOT NULL DEFAULT 0,
          OUTCOME VARCHAR NOT NULL,
          MESSAGE VARCHAR NOT NULL DEFAULT '',
          UNIQUE (REQUESTID, STATUS, TARGETHASH)
        );
      `);
    },
  },
  {
    version: 5,
    up(db) {
      db.exec(`
        -- Bulk retry or cancel of a day's requests by filter (src/service/bulk): the job
        -- with who asked and why, and its requests chosen once at the start, each with its
        -- outcome, so that a restart resumes the job and reports exactly what was done.
        CREATE TABLE BULK_JOB (
          ID INTEGER PRIMARY KEY,
          SERVICE VARCHAR NOT NULL,
          ACTION VARCHAR NOT NULL,
          DAY VARCHAR NOT NULL,
          PIPELINEID VARCHAR,
          STATUSES VARCHAR NOT NULL,
          Q VARCHAR,
          REASON VARCHAR NOT NULL,
          USERNAME VARCHAR,
          VIA VARCHAR NOT NULL,
          ADDRESS VARCHAR NOT NULL,
          CREATED TIMESTAMP NOT NULL,
          RESUMED TIMESTAMP,
          FINISHED TIMESTAMP,
          STATE VARCHAR NOT NULL,
          TOTAL INTEGER NOT NULL,
          SUCCEEDED INTEGER NOT NULL DEFAULT 0,
          REFUSED INTEGER NOT NULL DEFAULT 0,
          FAILED INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX BULK_JOB_BY_STATE ON BULK_JOB (STATE);
        CREATE TABLE BULK_ITEM (
          JOBID INTEGER NOT NULL,
          SEQ INTEGER NOT NULL,
          REQUESTID VARCHAR NOT NULL,
          OUTCOME VARCHAR NOT NULL,
          MESSAGE VARCHAR NOT NULL DEFAULT '',
          TIME TIMESTAMP,
          PRIMARY KEY (JOBID, SEQ)
        );
        CREATE INDEX BULK_ITEM_BY_OUTCOME ON BULK_ITEM (JOBID, OUTCOME, SEQ);
      `);
    },
  },
  {
    version: 6,
    up(db) {
      // Typed Args (contract section 10): the rules a definition declares, as JSON.
      db.exec("ALTER TABLE PIPELINE_ARG ADD COLUMN RULES VARCHAR NOT NULL DEFAULT '{}'");
    },
  },
];

/**
 * Tables holding secrets or who did what; never shown by the systemdb browser (the audit
 * log is for administrators, through /mcapi/audit).
 */
export const HIDDEN_SYSTEM_TABLES: ReadonlySet<string> = new Set([
  'SETTING',
  'USERS',
  'SESSIONS',
  'AUDIT',
  'NOTIFICATION',
  'BULK_JOB',
  'BULK_ITEM',
]);
