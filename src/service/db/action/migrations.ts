import type { Migration } from '../sqlite.ts';

export const actionMigrations: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      // The action cache: each stage's output of a request, in chunks of rows, so that a
      // retry resumes from the stage that failed. Tables whose names start with `_` are
      // the service's own and never visible to, or writable by, clients.
      db.exec(`
        CREATE TABLE _CACHE (
          REQUESTID VARCHAR NOT NULL,
          PIPELINEID VARCHAR NOT NULL,
          STAGE VARCHAR NOT NULL,
          CHUNK INTEGER NOT NULL,
          DATA BLOB NOT NULL,
          PRIMARY KEY (REQUESTID, STAGE, CHUNK)
        );
        CREATE INDEX _CACHE_BY_PIPELINE ON _CACHE (PIPELINEID, STAGE);
      `);
    },
  },
];

export const isInternalActionTable = (name: string): boolean => name.startsWith('_');

/** Names pipelines may give their tables. */
export const ACTION_TABLE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
