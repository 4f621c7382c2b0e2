import type { Role } from '../../../kit/wire.ts';
import { prepared, type Db } from '../sqlite.ts';

// Personal API tokens (contract section 12): each under the SHA-256 hash of its value.

/** A token as its owner lists it (never its value) and as a call made with it finds it. */
export interface TokenRow {
  readonly ID: number;
  readonly USERID: number;
  readonly NAME: string;
  readonly ROLE: Role;
  readonly SERVICE: string | null;
  readonly CREATED: string;
  readonly EXPIRES: string;
  readonly LASTUSED: string | null;
  readonly REVOKED: string | null;
}

/** A token's row with its owner's name and default role now (a join: a removed user has none). */
export interface TokenWithOwner extends TokenRow {
  readonly USERNAME: string;
  readonly USERROLE: Role;
}

const COLUMNS = 'ID, USERID, NAME, ROLE, SERVICE, CREATED, EXPIRES, LASTUSED, REVOKED';

export function insertToken(
  db: Db,
  token: {
    userId: number;
    name: string;
    hash: string;
    role: Role;
    service: string | null;
    created: string;
    expires: string;
  },
): number {
  const { lastInsertRowid } = prepared(
    db,
    `INSERT INTO API_TOKEN (USERID, NAME, HASH, ROLE, SERVICE, CREATED, EXPIRES)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    token.userId,
    token.name,
    token.hash,
    token.role,
    token.service,
    token.created,
    token.expires,
  );
  return Number(lastInsertRowid);
}

/** A user's tokens not revoked, newest first. */
export function tokensOf(db: Db, userId: number): TokenRow[] {
  return prepared(
    db,
    `SELECT ${COLUMNS} FROM API_TOKEN WHERE USERID = ? AND REVOKED IS NULL ORDER BY ID DESC`,
  ).all(userId) as TokenRow[];
}

/** The token with this hash and its owner, if both exist. */
export function tokenByHash(db: Db, hash: string): TokenWithOwner | undefined {
  return prepared(
    db,
    `SELECT t.ID, t.USERID, t.NAME, t.ROLE, t.SERVICE, t.CREATED, t.EXPIRES, t.LASTUSED,
       t.REVOKED, u.NAME AS USERNAME, u.ROLE AS USERROLE
     FROM API_TOKEN t JOIN USERS u ON u.ID = t.USERID WHERE t.HASH = ?`,
  ).get(hash) as TokenWithOwner | undefined;
}

/** Revokes one of a user's tokens; false when they have no such token not yet revoked. */
export function revokeToken(db: Db, userId: number, id: number, when: string): boolean {
  return (
    prepared(
      db,
      'UPDATE API_TOKEN SET REVOKED = ? WHERE ID = ? AND USERID = ? AND REVOKED IS NULL',
    ).run(when, id, userId).changes > 0
  );
}

export function touchToken(db: Db, id: number, when: string): void {
  prepared(db, 'UPDATE API_TOKEN SET LASTUSED = ? WHERE ID = ?').run(when, id);
}
