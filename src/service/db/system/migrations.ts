import type { Db, Migration } from '../sqlite.ts';
import { EXTERNAL_PASSWORD } from './users.ts';

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
  {
    version: 7,
    up(db) {
      // Roles per service (contract section 12): the viewer joins the roles a user may have
      // by default, and a user may have another role on any service. SQLite cannot change a
      // CHECK, so USERS is built anew; SESSIONS, which refers to it, is moved over first, so
      // that dropping the old USERS deletes (cascades to) nothing: every session survives.
      db.exec(`
        CREATE TABLE USERS_V7 (
          NAME VARCHAR PRIMARY KEY,
          PASSWORDHASH VARCHAR NOT NULL,
          ROLE VARCHAR NOT NULL
            CHECK (ROLE IN ('administrator', 'developer', 'operator', 'viewer')),
          CREATED TIMESTAMP NOT NULL
        );
        INSERT INTO USERS_V7 (NAME, PASSWORDHASH, ROLE, CREATED)
          SELECT NAME, PASSWORDHASH, ROLE, CREATED FROM USERS;
        CREATE TABLE SESSIONS_V7 (
          IDHASH VARCHAR PRIMARY KEY,
          KIND VARCHAR NOT NULL CHECK (KIND IN ('mc', 'fs')),
          USERNAME VARCHAR NOT NULL REFERENCES USERS_V7(NAME) ON DELETE CASCADE,
          CREATED INTEGER NOT NULL,
          LASTUSED INTEGER NOT NULL,
          TIMEOUTMS INTEGER NOT NULL,
          EXPIRES INTEGER NOT NULL
        );
        INSERT INTO SESSIONS_V7 (IDHASH, KIND, USERNAME, CREATED, LASTUSED, TIMEOUTMS, EXPIRES)
          SELECT IDHASH, KIND, USERNAME, CREATED, LASTUSED, TIMEOUTMS, EXPIRES FROM SESSIONS;
        DROP TABLE SESSIONS;
        DROP TABLE USERS;
        -- Renaming also renames the reference of SESSIONS_V7 (SQLite 3.26 and later).
        ALTER TABLE USERS_V7 RENAME TO USERS;
        ALTER TABLE SESSIONS_V7 RENAME TO SESSIONS;
        CREATE INDEX SESSIONS_BY_EXPIRY ON SESSIONS (EXPIRES);

        -- A user's role on one service, over their default role (USERS.ROLE) there; the
        -- embedded service's id is 'local'. Gone with the user.
        CREATE TABLE USER_SERVICE_ROLE (
          USERNAME VARCHAR NOT NULL REFERENCES USERS(NAME) ON DELETE CASCADE ON UPDATE CASCADE,
          SERVICE VARCHAR NOT NULL,
          ROLE VARCHAR NOT NULL
            CHECK (ROLE IN ('administrator', 'developer', 'operator', 'viewer')),
          PRIMARY KEY (USERNAME, SERVICE)
        );

        -- Why a bulk job stopped before its end (its starter lost the role it needs).
        ALTER TABLE BULK_JOB ADD COLUMN STOPPED VARCHAR;
      `);
    },
  },
  {
    version: 8,
    up: identifyUsers,
  },
  {
    version: 9,
    up: personalTokens,
  },
  {
    version: 10,
    up(db) {
      // Work one process at a time does, under a lease that runs out when its holder dies
      // (db/leases.ts): the same table as on a shared PostgreSQL.
      db.exec(
        'CREATE TABLE LEASE (NAME VARCHAR PRIMARY KEY, HOLDER VARCHAR NOT NULL, EXPIRES INTEGER NOT NULL)',
      );
    },
  },
  {
    version: 11,
    up(db) {
      // SESSIONID cookies ended early (sign-out), by session id, until none of their
      // cookies could still be live (auth/api-access.ts): the same table as on PostgreSQL.
      db.exec('CREATE TABLE API_COOKIE_END (ID VARCHAR PRIMARY KEY, ENDED INTEGER NOT NULL)');
    },
  },
  {
    version: 12,
    up(db) {
      // Why a token ended before its expiry (its owner, an administrator, a password reset),
      // which its owner's list shows: the same column as on PostgreSQL.
      db.exec('ALTER TABLE API_TOKEN ADD COLUMN ENDEDWHY VARCHAR');
    },
  },
  {
    version: 13,
    up(db) {
      // Sign-in tries per address and per account name, by window (auth/guessing-limit.ts):
      // the same table as on PostgreSQL, so that every gateway of a store counts together.
      db.exec(`CREATE TABLE SIGN_IN_TRIES (
        KEY VARCHAR NOT NULL, WINDOWSTART INTEGER NOT NULL, COUNT INTEGER NOT NULL,
        PRIMARY KEY (KEY, WINDOWSTART))`);
    },
  },
  {
    version: 14,
    up(db) {
      // The credential a bulk job started with, by reference (auth/credential-end.ts): the
      // same column as on PostgreSQL.
      db.exec('ALTER TABLE BULK_JOB ADD COLUMN CREDENTIAL VARCHAR');
    },
  },
];

/**
 * People by identity, names as labels (contract section 12). Each user gets an ID that
 * never changes and is never given again, and a single-sign-on user its provider's
 * (ISSUER, SUBJECT); sessions hold the ID, so only their own user's row decides what they
 * may do, whoever signs in later under whatever name. Names become unique regardless of
 * case (USER_NAME allows ASCII only, which is what NOCASE folds).
 *
 * USERS keeps its table (columns are added, not rebuilt): other tables refer to its NAME
 * (ON UPDATE CASCADE), and a rebuild would have to repeat every column and rule other
 * migrations gave it. IDs come from USER_ID_SEQ through a trigger, so no insert lacks one.
 *
 * What was there before:
 * - single-sign-on users were bound by name alone, so which provider account each one is
 *   cannot be known: they are removed with their sessions (and whatever refers to them),
 *   and each is created again, bound to its account, at its next sign-in;
 * - local users whose names differ only by case: the first created keeps its name, the
 *   others are renamed `<name>-2`, `-3`… (password, roles and sessions kept), and a
 *   warning names them; the database opens either way.
 */
function identifyUsers(db: Db): void {
  db.exec(`
    ALTER TABLE USERS ADD COLUMN ID INTEGER;
    UPDATE USERS SET ID = rowid;
    CREATE UNIQUE INDEX USERS_BY_ID ON USERS (ID);
    CREATE TABLE USER_ID_SEQ (LAST INTEGER NOT NULL);
    INSERT INTO USER_ID_SEQ (LAST) SELECT COALESCE(MAX(ID), 0) FROM USERS;
    CREATE TRIGGER USERS_NEW_ID AFTER INSERT ON USERS FOR EACH ROW WHEN NEW.ID IS NULL
    BEGIN
      UPDATE USER_ID_SEQ SET LAST = MAX(LAST, (SELECT COALESCE(MAX(ID), 0) FROM USERS)) + 1;
      UPDATE USERS SET ID = (SELECT LAST FROM USER_ID_SEQ) WHERE rowid = NEW.rowid;
    END;

    ALTER TABLE USERS ADD COLUMN ISSUER VARCHAR;
    ALTER TABLE USERS ADD COLUMN SUBJECT VARCHAR CHECK ((SUBJECT IS NULL) = (ISSUER IS NULL));
    CREATE UNIQUE INDEX USERS_BY_SUBJECT ON USERS (ISSUER, SUBJECT);

    CREATE TABLE SESSIONS_V8 (
      IDHASH VARCHAR PRIMARY KEY,
      KIND VARCHAR NOT NULL CHECK (KIND IN ('mc', 'fs')),
      USERID INTEGER NOT NULL REFERENCES USERS(ID) ON DELETE CASCADE,
      CREATED INTEGER NOT NULL,
      LASTUSED INTEGER NOT NULL,
      TIMEOUTMS INTEGER NOT NULL,
      EXPIRES INTEGER NOT NULL
    );
    INSERT INTO SESSIONS_V8 (IDHASH, KIND, USERID, CREATED, LASTUSED, TIMEOUTMS, EXPIRES)
      SELECT s.IDHASH, s.KIND, u.ID, s.CREATED, s.LASTUSED, s.TIMEOUTMS, s.EXPIRES
      FROM SESSIONS s JOIN USERS u ON u.NAME = s.USERNAME;
    DROP TABLE SESSIONS;
    ALTER TABLE SESSIONS_V8 RENAME TO SESSIONS;
    CREATE INDEX SESSIONS_BY_EXPIRY ON SESSIONS (EXPIRES);
    CREATE INDEX SESSIONS_BY_USER ON SESSIONS (USERID);

    DELETE FROM USERS WHERE PASSWORDHASH = '${EXTERNAL_PASSWORD}';
  `);
  const taken = new Set(
    (db.prepare('SELECT NAME FROM USERS').pluck().all() as string[]).map((n) => n.toLowerCase()),
  );
  const duplicates = db
    .prepare(
      `SELECT ID, NAME FROM USERS u WHERE EXISTS (SELECT 1 FROM USERS o
         WHERE o.NAME = u.NAME COLLATE NOCASE AND (o.CREATED, o.ID) < (u.CREATED, u.ID))
       ORDER BY CREATED, ID`,
    )
    .all() as { ID: number; NAME: string }[];
  const renamed = duplicates.map(({ ID, NAME }) => {
    let name = NAME;
    for (let n = 2; taken.has(name.toLowerCase()); n++)
      name = `${NAME.slice(0, 64 - `-${n}`.length)}-${n}`;
    taken.add(name.toLowerCase());
    db.prepare('UPDATE USERS SET NAME = ? WHERE ID = ?').run(name, ID);
    return `${NAME} is now ${name}`;
  });
  db.exec('CREATE UNIQUE INDEX USERS_BY_NAME ON USERS (NAME COLLATE NOCASE)');
  if (renamed.length > 0)
    process.emitWarning(
      `user names are unique regardless of case now: ${renamed.join(', ')} (each keeps its password, roles and sessions)`,
      { code: 'PIPELINE_USERS_RENAMED' },
    );
}

/**
 * Version 9: personal API tokens (contract section 12), stored under the SHA-256 hash of the
 * token alone. A revoked token keeps its row (REVOKED set) so a later use is refused saying
 * so; a removed user takes their tokens along.
 */
function personalTokens(db: Db): void {
  db.exec(`
    CREATE TABLE API_TOKEN (
      ID INTEGER PRIMARY KEY AUTOINCREMENT,
      USERID INTEGER NOT NULL REFERENCES USERS(ID) ON DELETE CASCADE,
      NAME VARCHAR NOT NULL,
      HASH VARCHAR NOT NULL UNIQUE,
      ROLE VARCHAR NOT NULL CHECK (ROLE IN ('administrator', 'developer', 'operator', 'viewer')),
      SERVICE VARCHAR,
      CREATED TIMESTAMP NOT NULL,
      EXPIRES TIMESTAMP NOT NULL,
      LASTUSED TIMESTAMP,
      REVOKED TIMESTAMP
    );
    CREATE INDEX API_TOKEN_BY_USER ON API_TOKEN (USERID);
  `);
}

/**
 * Tables holding secrets or who did what; never shown by the systemdb browser (the audit
 * log is for administrators, through /mcapi/audit).
 */
export const HIDDEN_SYSTEM_TABLES: ReadonlySet<string> = new Set([
  'SETTING',
  'USERS',
  'SESSIONS',
  'USER_ID_SEQ',
  'AUDIT',
  'NOTIFICATION',
  'BULK_JOB',
  'BULK_ITEM',
  'USER_SERVICE_ROLE',
  'API_TOKEN',
  'LEASE',
  'API_COOKIE_END',
  'SIGN_IN_TRIES',
]);
