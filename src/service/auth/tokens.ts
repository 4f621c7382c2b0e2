import { createHash, randomBytes } from 'node:crypto';
import type { NewToken, PersonalToken, RevokedToken, TokensAnswer } from '../../kit/tokens.ts';
import {
  ErrorCode,
  ROLE_OPERATIONS,
  roleAtLeast,
  type OperationName,
  type Role,
} from '../../kit/wire.ts';
import type { Clock } from '../clock.ts';
import type { Sql } from '../db/sql.ts';
import {
  insertToken,
  revokedTokensOf,
  revokeToken,
  revokeTokensOf,
  tokenByHash,
  tokensOf,
  touchToken,
  type TokenRow,
} from '../db/system/tokens.ts';
import { ApiError } from '../errors.ts';
import { TOKEN_PREFIX } from '../secret-names.ts';
import { roleOn, roleRefusal } from './service-roles.ts';
import type { Caller } from './session-auth.ts';

/*
 * Personal API tokens (contract section 12, issue 24 item 3). A person creates them for
 * themselves; each acts as its person in X-Pipelinewebapi with the lower of its own role and
 * the person's role on the service called now (read at each call: a demoted person's tokens
 * shrink too), on its one service when it names one. Only the SHA-256 hash of a token is
 * stored; the value is shown once, at creation.
 */

/** Every personal token starts so: a key that does not is the shared service key. */
export { TOKEN_PREFIX };
export const MAX_TOKEN_DAYS = 365;
export const TOKEN_NAME = /^[^\p{Cc}]{1,64}$/u;
/** Last use is written at most this often per token, to spare the database a write a call. */
const LAST_USE_EVERY_MS = 60_000;

export const isPersonalToken = (key: string): boolean => key.startsWith(TOKEN_PREFIX);

const hashOf = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('base64url');

/** A token as work done later on its behalf names it: by its stored hash, never its value. */
const tokenCredential = (token: string): string => `token ${hashOf(token)}`;

/** A token as its owner lists it (never its value), as the kit's answer types have it. */
const infoOf = (row: TokenRow): PersonalToken => ({
  id: row.ID,
  name: row.NAME,
  role: row.ROLE,
  service: row.SERVICE,
  createdAt: row.CREATED,
  expiresAt: row.EXPIRES,
  lastUsedAt: row.LASTUSED,
});

const lower = (a: Role, b: Role): Role => (roleAtLeast(a, b) ? b : a);

export async function createToken(
  sql: Sql,
  clock: Clock,
  owner: { userId: number },
  fields: { name: string; days: number; role: Role; service: string | null },
): Promise<NewToken> {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const now = clock.now();
  const created = now.toISOString();
  const expires = new Date(now.getTime() + fields.days * 86_400_000).toISOString();
  const id = await insertToken(sql, {
    userId: owner.userId,
    name: fields.name,
    hash: hashOf(token),
    role: fields.role,
    service: fields.service,
    created,
    expires,
  });
  return {
    id,
    name: fields.name,
    token,
    role: fields.role,
    service: fields.service,
    createdAt: created,
    expiresAt: expires,
    lastUsedAt: null,
  };
}

/** How long a person's list still shows a token revoked, with why. */
export const REVOKED_SHOWN_DAYS = 30;

/**
 * Who ended a token, as ENDEDWHY keeps it: a word, and after a space the administrator's name
 * (`administrator ada`). A row revoked before the column existed has none.
 */
export type EndedBy =
  | { readonly kind: 'owner' | 'reset' | 'cli' }
  | { readonly kind: 'administrator'; readonly by: string };

/** Who ended a token, as ENDEDWHY keeps it. */
export const WHY_ENDED = {
  byOwner: { kind: 'owner' },
  byAdministrator: (by: string): EndedBy => ({ kind: 'administrator', by }),
  passwordReset: { kind: 'reset' },
  byCli: { kind: 'cli' },
} as const satisfies Record<string, EndedBy | ((by: string) => EndedBy)>;

const storedWhy = (ended: EndedBy): string =>
  ended.kind === 'administrator' ? `administrator ${ended.by}` : ended.kind;

/** The stored word read back; undefined for none or one this code does not know. */
function endedByOf(stored: string | null): EndedBy | undefined {
  const [kind, ...by] = (stored ?? '').split(' ');
  if (kind === 'administrator' && by.length > 0) return { kind, by: by.join(' ') };
  return kind === 'owner' || kind === 'reset' || kind === 'cli' ? { kind } : undefined;
}

/** Why a token ended, in the words of a refusal and of the `why` a script reads. */
function endedInWords(ended: EndedBy | undefined): string {
  switch (ended?.kind) {
    case 'owner':
      return 'revoked by its owner';
    case 'administrator':
      return `revoked by the administrator ${ended.by}`;
    case 'reset':
      return 'ended by a password reset';
    case 'cli':
      return 'revoked with the users command';
    default:
      return '';
  }
}

const revokedOf = (row: TokenRow): RevokedToken => {
  const ended = endedByOf(row.ENDEDWHY);
  return {
    ...infoOf(row),
    revokedAt: row.REVOKED ?? '',
    revokedBy: ended?.kind ?? 'unknown',
    revokedByName: ended?.kind === 'administrator' ? ended.by : null,
    why: endedInWords(ended),
  };
};

/** A person's live tokens, and those revoked in the last REVOKED_SHOWN_DAYS with why. */
export async function listTokens(sql: Sql, clock: Clock, userId: number): Promise<TokensAnswer> {
  const since = new Date(clock.now().getTime() - REVOKED_SHOWN_DAYS * 86_400_000).toISOString();
  return {
    tokens: (await tokensOf(sql, userId)).map(infoOf),
    revoked: (await revokedTokensOf(sql, userId, since)).map(revokedOf),
  };
}

/**
 * Revokes a token: a person's own (`ownerId`), or anyone's when an administrator asks
 * (`ownerId` undefined). Its owner's name, or undefined when there was no such live token.
 */
export const revokeTokenFor = async (
  sql: Sql,
  clock: Clock,
  id: number,
  why: EndedBy,
  ownerId?: number,
): Promise<string | undefined> =>
  (
    await revokeToken(sql, id, {
      when: clock.now().toISOString(),
      why: storedWhy(why),
      ...(ownerId === undefined ? {} : { ownerId }),
    })
  )?.USERNAME;

/** Ends every live token of a person (a password reset), saying why; how many. */
export const endTokensOf = (
  sql: Sql,
  clock: Clock,
  userId: number,
  why: EndedBy,
): Promise<number> =>
  revokeTokensOf(sql, userId, { when: clock.now().toISOString(), why: storedWhy(why) });

/**
 * Why the token a credential reference names (`token <hash>`, tokenCredential) can no longer
 * act at `now`, in the words of its refusal; undefined while it still can.
 */
export async function tokenEndedWhy(
  sql: Sql,
  hash: string,
  now: Date,
): Promise<string | undefined> {
  const row = await tokenByHash(sql, hash);
  if (!row)
    return 'the personal token it was started with no longer exists (or its person was removed)';
  if (row.REVOKED !== null)
    return `the personal token ${row.NAME} was revoked at ${row.REVOKED}${row.ENDEDWHY ? ` (${endedInWords(endedByOf(row.ENDEDWHY))})` : ''}`;
  if (now.toISOString() >= row.EXPIRES)
    return `the personal token ${row.NAME} expired at ${row.EXPIRES}`;
  return undefined;
}

/**
 * The caller a personal token names on this service for this operation, or a refusal:
 * 401/1103 when it is unknown (or its person was removed), revoked or expired; 403/1104 when
 * it is for another service or its role there may not call the operation. `identified`
 * hears the person and the token first, so a refusal of a known token names them.
 */
export async function tokenCaller(
  sql: Sql,
  clock: Clock,
  token: string,
  operation: OperationName,
  service: string,
  identified?: (caller: Caller) => void,
): Promise<Caller> {
  const row = await tokenByHash(sql, hashOf(token));
  if (!row)
    throw new ApiError(
      401,
      ErrorCode.BadCredentials,
      'The personal token is unknown (or its person was removed).',
    );
  const via = `token ${row.NAME}` as const;
  identified?.({ via, userName: row.USERNAME });
  const now = clock.now();
  if (row.REVOKED !== null)
    throw new ApiError(
      401,
      ErrorCode.BadCredentials,
      `The personal token ${row.NAME} was revoked at ${row.REVOKED}${row.ENDEDWHY ? ` (${endedInWords(endedByOf(row.ENDEDWHY))})` : ''}.`,
    );
  if (now.toISOString() >= row.EXPIRES)
    throw new ApiError(
      401,
      ErrorCode.BadCredentials,
      `The personal token ${row.NAME} expired at ${row.EXPIRES}.`,
    );
  if (row.SERVICE !== null && row.SERVICE !== service)
    throw new ApiError(
      403,
      ErrorCode.RoleForbidden,
      `The personal token ${row.NAME} is for service ${row.SERVICE} only, not service ${service}.`,
    );
  const role = lower(
    row.ROLE,
    await roleOn(sql, { userName: row.USERNAME, role: row.USERROLE }, service),
  );
  if (row.LASTUSED === null || now.getTime() - Date.parse(row.LASTUSED) >= LAST_USE_EVERY_MS)
    await touchToken(sql, row.ID, now.toISOString());
  if (!ROLE_OPERATIONS[role].has(operation)) throw roleRefusal(role, operation, service);
  return { via, role, userName: row.USERNAME, credential: tokenCredential(token) };
}
