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
];

/** Tables holding secrets; never shown by the systemdb browser. */
export const HIDDEN_SYSTEM_TABLES: ReadonlySet<string> = new Set(['SETTING', 'USERS', 'SESSIONS']);
