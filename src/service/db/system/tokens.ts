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
  /** Why it ended before its expiry: its owner revoked it, an administrator, a reset. */
  readonly ENDEDWHY: string | null;
}

/** A token's row with its owner's name and default role now (a join: a removed user has none). */
export interface TokenWithOwner extends TokenRow {
  readonly USERNAME: string;
  readonly USERROLE: Role;
}

const COLUMNS = `t.ID AS "ID", t.USERID AS "USERID", t.NAME AS "NAME", t.ROLE AS "ROLE",
  t.SERVICE AS "SERVICE", t.CREATED AS "CREATED", t.EXPIRES AS "EXPIRES",
  t.LASTUSED AS "LASTUSED", t.REVOKED AS "REVOKED", t.ENDEDWHY AS "ENDEDWHY"`;

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

/**
 * Revokes a token not yet revoked, saying why; `ownerId` limits it to that person's own (a
 * person revoking theirs), undefined lets an administrator revoke anyone's. Its owner when it
 * was revoked now, undefined when there was no such token left to revoke.
 */
export function revokeToken(
  sql: Sql,
  id: number,
  ended: { when: string; why: string; ownerId?: number },
): Promise<{ readonly USERID: number; readonly USERNAME: string } | undefined> {
  const mine = ended.ownerId === undefined ? [] : [ended.ownerId];
  return sql.transaction(async (tx) => {
    const owner = await tx.get<{ USERID: number; USERNAME: string }>(
      `SELECT t.USERID AS "USERID", u.NAME AS "USERNAME" FROM API_TOKEN t
       JOIN USERS u ON u.ID = t.USERID
       WHERE t.ID = ? AND t.REVOKED IS NULL${mine.length > 0 ? ' AND t.USERID = ?' : ''}`,
      [id, ...mine],
    );
    if (!owner) return undefined;
    // Counted again: another gateway may have revoked it since the read.
    const changed = await tx.run(
      'UPDATE API_TOKEN SET REVOKED = ?, ENDEDWHY = ? WHERE ID = ? AND REVOKED IS NULL',
      [ended.when, ended.why, id],
    );
    return changed > 0 ? owner : undefined;
  });
}

/** Ends every token of a person still live (a password reset); how many it ended. */
export function revokeTokensOf(
  sql: Sql,
  userId: number,
  ended: { when: string; why: string },
): Promise<number> {
  return sql.run(
    'UPDATE API_TOKEN SET REVOKED = ?, ENDEDWHY = ? WHERE USERID = ? AND REVOKED IS NULL AND EXPIRES > ?',
    [ended.when, ended.why, userId, ended.when],
  );
}

/** A person's tokens revoked since `since` (an ISO instant), the latest first. */
export function revokedTokensOf(sql: Sql, userId: number, since: string): Promise<TokenRow[]> {
  return sql.all<TokenRow>(
    `SELECT ${COLUMNS} FROM API_TOKEN t WHERE t.USERID = ? AND t.REVOKED >= ?
     ORDER BY t.REVOKED DESC, t.ID DESC`,
    [userId, since],
  );
}

export async function touchToken(sql: Sql, id: number, when: string): Promise<void> {
  await sql.run('UPDATE API_TOKEN SET LASTUSED = ? WHERE ID = ?', [when, id]);
}
