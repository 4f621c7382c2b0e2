import type { Role } from '../../../kit/wire.ts';
import { scalar, type Sql } from '../sql.ts';

/**
 * The password hash of a user of the OpenID provider: no scrypt hash, never verifies, and
 * not the empty "no password" of flow-service robots, so neither Part lets it in directly.
 */
export const EXTERNAL_PASSWORD = '!oidc';

/** A row of USERS. NAME is a label, unique regardless of case; ID never changes. */
export interface UserRow {
  readonly ID: number;
  readonly NAME: string;
  readonly PASSWORDHASH: string;
  readonly ROLE: Role;
  readonly CREATED: string;
  /** The OpenID provider and its `sub` of a single-sign-on user; null for a local one. */
  readonly ISSUER: string | null;
  readonly SUBJECT: string | null;
}

const COLUMNS = `ID AS "ID", NAME AS "NAME", PASSWORDHASH AS "PASSWORDHASH", ROLE AS "ROLE",
  CREATED AS "CREATED", ISSUER AS "ISSUER", SUBJECT AS "SUBJECT"`;

export function userRowByName(sql: Sql, name: string): Promise<UserRow | undefined> {
  return sql.get<UserRow>(`SELECT ${COLUMNS} FROM USERS WHERE NAME = ?`, [name]);
}

/** The user whose name is `name` regardless of case (at most one; names are ASCII). */
export function userRowByLabel(sql: Sql, name: string): Promise<UserRow | undefined> {
  return sql.get<UserRow>(`SELECT ${COLUMNS} FROM USERS WHERE lower(NAME) = lower(?)`, [name]);
}

export function userRowBySubject(
  sql: Sql,
  issuer: string,
  subject: string,
): Promise<UserRow | undefined> {
  return sql.get<UserRow>(`SELECT ${COLUMNS} FROM USERS WHERE ISSUER = ? AND SUBJECT = ?`, [
    issuer,
    subject,
  ]);
}

export function userRows(sql: Sql): Promise<UserRow[]> {
  return sql.all<UserRow>(`SELECT ${COLUMNS} FROM USERS ORDER BY NAME`);
}

export async function userCount(sql: Sql): Promise<number> {
  return (await scalar<number>(sql, 'SELECT COUNT(*) FROM USERS')) ?? 0;
}

/** Adds a user; its ID comes from the database. Returns that ID. */
export function insertUser(
  sql: Sql,
  user: {
    name: string;
    passwordHash: string;
    role: Role;
    created: string;
    issuer?: string | undefined;
    subject?: string | undefined;
  },
): Promise<number> {
  // The ID is the database's (a trigger in SQLite, an identity in PostgreSQL), read back by
  // the name, which is unique.
  return sql.transaction(async (tx) => {
    await tx.run(
      'INSERT INTO USERS (NAME, PASSWORDHASH, ROLE, CREATED, ISSUER, SUBJECT) VALUES (?, ?, ?, ?, ?, ?)',
      [
        user.name,
        user.passwordHash,
        user.role,
        user.created,
        user.issuer ?? null,
        user.subject ?? null,
      ],
    );
    return (
      (await tx.get<{ ID: number }>('SELECT ID AS "ID" FROM USERS WHERE NAME = ?', [
        user.name,
      ])) as { ID: number }
    ).ID;
  });
}

export async function updateUserRole(sql: Sql, id: number, role: Role): Promise<void> {
  await sql.run('UPDATE USERS SET ROLE = ? WHERE ID = ?', [role, id]);
}

/** Renames a user (references by name follow: ON UPDATE CASCADE). */
export async function updateUserName(sql: Sql, id: number, name: string): Promise<void> {
  await sql.run('UPDATE USERS SET NAME = ? WHERE ID = ?', [name, id]);
}

/** Sets a password hash and ends every session of the user; false when there is no such user. */
export function updateUserPassword(sql: Sql, name: string, passwordHash: string): Promise<boolean> {
  return sql.transaction(async (tx) => {
    const row = await userRowByName(tx, name);
    if (!row) return false;
    await tx.run('UPDATE USERS SET PASSWORDHASH = ? WHERE ID = ?', [passwordHash, row.ID]);
    await tx.run('DELETE FROM SESSIONS WHERE USERID = ?', [row.ID]);
    return true;
  });
}

/** Removes a user with its sessions (and all else that cascades); false when there was none. */
export async function deleteUser(sql: Sql, name: string): Promise<boolean> {
  return (await sql.run('DELETE FROM USERS WHERE NAME = ?', [name])) > 0;
}

/** A session's row with its user's name and role as they are now. */
export interface SessionRow {
  readonly USERID: number;
  readonly NAME: string;
  readonly ROLE: Role;
  readonly KIND: 'mc' | 'fs';
  readonly EXPIRES: number;
  readonly TIMEOUTMS: number;
}

export async function insertSession(
  sql: Sql,
  session: {
    idHash: string;
    kind: 'mc' | 'fs';
    userId: number;
    now: number;
    timeoutMs: number;
  },
): Promise<void> {
  await sql.run(
    'INSERT INTO SESSIONS (IDHASH, KIND, USERID, CREATED, LASTUSED, TIMEOUTMS, EXPIRES) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [
      session.idHash,
      session.kind,
      session.userId,
      session.now,
      session.now,
      session.timeoutMs,
      session.now + session.timeoutMs,
    ],
  );
}

export function sessionRow(
  sql: Sql,
  idHash: string,
  kind: 'mc' | 'fs',
): Promise<SessionRow | undefined> {
  return sql.get<SessionRow>(
    `SELECT s.USERID AS "USERID", u.NAME AS "NAME", u.ROLE AS "ROLE", s.KIND AS "KIND",
       s.EXPIRES AS "EXPIRES", s.TIMEOUTMS AS "TIMEOUTMS"
     FROM SESSIONS s JOIN USERS u ON u.ID = s.USERID WHERE s.IDHASH = ? AND s.KIND = ?`,
    [idHash, kind],
  );
}

export async function touchSession(
  sql: Sql,
  idHash: string,
  now: number,
  expires: number,
): Promise<void> {
  await sql.run('UPDATE SESSIONS SET LASTUSED = ?, EXPIRES = ? WHERE IDHASH = ?', [
    now,
    expires,
    idHash,
  ]);
}

/** Ends a live session; false when there was none of that kind. */
export async function deleteSession(
  sql: Sql,
  idHash: string,
  kind: 'mc' | 'fs',
  now: number,
): Promise<boolean> {
  return (
    (await sql.run('DELETE FROM SESSIONS WHERE IDHASH = ? AND KIND = ? AND EXPIRES > ?', [
      idHash,
      kind,
      now,
    ])) > 0
  );
}

export async function deleteExpiredSessions(sql: Sql, now: number): Promise<void> {
  await sql.run('DELETE FROM SESSIONS WHERE EXPIRES <= ?', [now]);
}
