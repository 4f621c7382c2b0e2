import type { Role } from '../../../kit/wire.ts';
import type { Sql } from '../sql.ts';

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

const COLUMNS = `t.ID AS "ID", t.USERID AS "USERID", t.NAME AS "NAME", t.ROLE AS "ROLE",
  t.SERVICE AS "SERVICE", t.CREATED AS "CREATED", t.EXPIRES AS "EXPIRES",
  t.LASTUSED AS "LASTUSED", t.REVOKED AS "REVOKED"`;

export async function insertToken(
  sql: Sql,
  token: {
    userId: number;
    name: string;
    hash: string;
    role: Role;
    service: string | null;
    created: string;
    expires: string;
  },
): Promise<number> {
  const row = await sql.get<{ ID: number }>(
    `INSERT INTO API_TOKEN (USERID, NAME, HASH, ROLE, SERVICE, CREATED, EXPIRES)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ID AS "ID"`,
    [token.userId, token.name, token.hash, token.role, token.service, token.created, token.expires],
  );
  return (row as { ID: number }).ID;
}

/** A user's tokens not revoked, newest first. */
export function tokensOf(sql: Sql, userId: number): Promise<TokenRow[]> {
  return sql.all<TokenRow>(
    `SELECT ${COLUMNS} FROM API_TOKEN t WHERE t.USERID = ? AND t.REVOKED IS NULL ORDER BY t.ID DESC`,
    [userId],
  );
}

/** The token with this hash and its owner, if both exist. */
export function tokenByHash(sql: Sql, hash: string): Promise<TokenWithOwner | undefined> {
  return sql.get<TokenWithOwner>(
    `SELECT ${COLUMNS}, u.NAME AS "USERNAME", u.ROLE AS "USERROLE"
     FROM API_TOKEN t JOIN USERS u ON u.ID = t.USERID WHERE t.HASH = ?`,
    [hash],
  );
}

/** Revokes one of a user's tokens; false when they have no such token not yet revoked. */
export async function revokeToken(
  sql: Sql,
  userId: number,
  id: number,
  when: string,
): Promise<boolean> {
  return (
    (await sql.run(
      'UPDATE API_TOKEN SET REVOKED = ? WHERE ID = ? AND USERID = ? AND REVOKED IS NULL',
      [when, id, userId],
    )) > 0
  );
}

export async function touchToken(sql: Sql, id: number, when: string): Promise<void> {
  await sql.run('UPDATE API_TOKEN SET LASTUSED = ? WHERE ID = ?', [when, id]);
}
