import type { Role } from '../../../kit/wire.ts';
import { prepared, type Db } from '../sqlite.ts';

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

const COLUMNS = 'ID, NAME, PASSWORDHASH, ROLE, CREATED, ISSUER, SUBJECT';

export function userRowByName(db: Db, name: string): UserRow | undefined {
  return prepared(db, `SELECT ${COLUMNS} FROM USERS WHERE NAME = ?`).get(name) as
    UserRow | undefined;
}

/** The user whose name is `name` regardless of case (at most one). */
export function userRowByLabel(db: Db, name: string): UserRow | undefined {
  return prepared(db, `SELECT ${COLUMNS} FROM USERS WHERE NAME = ? COLLATE NOCASE`).get(name) as
    UserRow | undefined;
}

export function userRowBySubject(db: Db, issuer: string, subject: string): UserRow | undefined {
  return prepared(db, `SELECT ${COLUMNS} FROM USERS WHERE ISSUER = ? AND SUBJECT = ?`).get(
    issuer,
    subject,
  ) as UserRow | undefined;
}

export function userRows(db: Db): UserRow[] {
  return prepared(db, `SELECT ${COLUMNS} FROM USERS ORDER BY NAME`).all() as UserRow[];
}

export function userCount(db: Db): number {
  return (prepared(db, 'SELECT COUNT(*) AS n FROM USERS').get() as { n: number }).n;
}

/** Adds a user; its ID comes from the database. Returns that ID. */
export function insertUser(
  db: Db,
  user: {
    name: string;
    passwordHash: string;
    role: Role;
    created: string;
    issuer?: string | undefined;
    subject?: string | undefined;
  },
): number {
  const { lastInsertRowid } = prepared(
    db,
    'INSERT INTO USERS (NAME, PASSWORDHASH, ROLE, CREATED, ISSUER, SUBJECT) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(
    user.name,
    user.passwordHash,
    user.role,
    user.created,
    user.issuer ?? null,
    user.subject ?? null,
  );
  return (prepared(db, 'SELECT ID FROM USERS WHERE rowid = ?').get(lastInsertRowid) as UserRow).ID;
}

export function updateUserRole(db: Db, id: number, role: Role): void {
  prepared(db, 'UPDATE USERS SET ROLE = ? WHERE ID = ?').run(role, id);
}

/** Renames a user (references by name follow: ON UPDATE CASCADE). */
export function updateUserName(db: Db, id: number, name: string): void {
  prepared(db, 'UPDATE USERS SET NAME = ? WHERE ID = ?').run(name, id);
}

/** Sets a password hash and ends every session of the user; false when there is no such user. */
export function updateUserPassword(db: Db, name: string, passwordHash: string): boolean {
  return db.transaction(() => {
    const row = userRowByName(db, name);
    if (!row) return false;
    prepared(db, 'UPDATE USERS SET PASSWORDHASH = ? WHERE ID = ?').run(passwordHash, row.ID);
    prepared(db, 'DELETE FROM SESSIONS WHERE USERID = ?').run(row.ID);
    return true;
  })();
}

/** Removes a user with its sessions (and all else that cascades); false when there was none. */
export function deleteUser(db: Db, name: string): boolean {
  return prepared(db, 'DELETE FROM USERS WHERE NAME = ?').run(name).changes > 0;
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

export function insertSession(
  db: Db,
  session: {
    idHash: string;
    kind: 'mc' | 'fs';
    userId: number;
    now: number;
    timeoutMs: number;
  },
): void {
  prepared(
    db,
    'INSERT INTO SESSIONS (IDHASH, KIND, USERID, CREATED, LASTUSED, TIMEOUTMS, EXPIRES) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(
    session.idHash,
    session.kind,
    session.userId,
    session.now,
    session.now,
    session.timeoutMs,
    session.now + session.timeoutMs,
  );
}

export function sessionRow(db: Db, idHash: string, kind: 'mc' | 'fs'): SessionRow | undefined {
  return prepared(
    db,
    `SELECT s.USERID, u.NAME, u.ROLE, s.KIND, s.EXPIRES, s.TIMEOUTMS
     FROM SESSIONS s JOIN USERS u ON u.ID = s.USERID WHERE s.IDHASH = ? AND s.KIND = ?`,
  ).get(idHash, kind) as SessionRow | undefined;
}

export function touchSession(db: Db, idHash: string, now: number, expires: number): void {
  prepared(db, 'UPDATE SESSIONS SET LASTUSED = ?, EXPIRES = ? WHERE IDHASH = ?').run(
    now,
    expires,
    idHash,
  );
}

/** Ends a live session; false when there was none of that kind. */
export function deleteSession(db: Db, idHash: string, kind: 'mc' | 'fs', now: number): boolean {
  return (
    prepared(db, 'DELETE FROM SESSIONS WHERE IDHASH = ? AND KIND = ? AND EXPIRES > ?').run(
      idHash,
      kind,
      now,
    ).changes > 0
  );
}

export function deleteExpiredSessions(db: Db, now: number): void {
  prepared(db, 'DELETE FROM SESSIONS WHERE EXPIRES <= ?').run(now);
}
