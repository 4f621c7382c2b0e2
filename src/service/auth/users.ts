import {
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';
import { ROLES, type Role } from '../../kit/wire.ts';
import type { Sql } from '../db/sql.ts';
import {
  deleteUser,
  EXTERNAL_PASSWORD,
  insertUser,
  updateUserName,
  updateUserPassword,
  updateUserRole,
  userCount,
  userRowByLabel,
  userRowByName,
  userRows,
  userRowBySubject,
  type UserRow,
} from '../db/system/users.ts';

const scrypt = (
  password: string,
  salt: Buffer,
  length: number,
  options: ScryptOptions,
): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scryptCallback(password, salt, length, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );

// scrypt with N=2^15, r=8, p=1: about 32 MiB and a few tens of milliseconds per hash here.
const PARAMS = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;

/** `scrypt$N$r$p$salt$hash`, base64url parts; an empty string means "no password". */
export async function hashPassword(password: string): Promise<string> {
  if (password === '') return '';
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, PARAMS);
  return [
    'scrypt',
    PARAMS.N,
    PARAMS.r,
    PARAMS.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return timingSafeEqual(key, expected);
}

/** A hash to compare against when the user does not exist, so both paths cost the same. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

export interface User {
  /** Never changes, even when a single-sign-on user's name does. */
  readonly id: number;
  /** What the user is called here: unique regardless of case among all users. */
  readonly name: string;
  readonly role: Role;
  readonly hasPassword: boolean;
  /** Signs in only through the OpenID provider (single sign-on); has no password here. */
  readonly external: boolean;
  /** The provider (its issuer) of a single-sign-on user. */
  readonly issuer?: string;
  readonly created: string;
}

export const MIN_PASSWORD_LENGTH = 8;

/** The rule every password chosen by a person or a script follows, wherever it comes from. */
export function passwordProblem(password: string): string | undefined {
  if (password === '') return 'the password is empty';
  if ([...password].length < MIN_PASSWORD_LENGTH)
    return `a password has at least ${MIN_PASSWORD_LENGTH} characters`;
  return undefined;
}

export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

const toUser = (raw: UserRow): User => ({
  id: raw.ID,
  name: raw.NAME,
  role: raw.ROLE,
  hasPassword: raw.PASSWORDHASH !== '' && raw.PASSWORDHASH !== EXTERNAL_PASSWORD,
  external: raw.PASSWORDHASH === EXTERNAL_PASSWORD,
  ...(raw.ISSUER === null ? {} : { issuer: raw.ISSUER }),
  created: raw.CREATED,
});

export async function findUser(
  sql: Sql,
  name: string,
): Promise<(User & { passwordHash: string }) | undefined> {
  const raw = await userRowByName(sql, name);
  return raw ? { ...toUser(raw), passwordHash: raw.PASSWORDHASH } : undefined;
}

/** Why `name` cannot be given to another user: the user it collides with, regardless of case. */
async function nameTaken(sql: Sql, name: string, exceptId?: number): Promise<string | undefined> {
  const other = await userRowByLabel(sql, name);
  if (!other || other.ID === exceptId) return undefined;
  return other.NAME === name
    ? `user ${name} already exists`
    : `the name ${name} is taken by user ${other.NAME} (names are unique regardless of case)`;
}

/**
 * The user these credentials sign in, or undefined. Every path costs one scrypt, so the time
 * of an answer tells nothing about whether the user exists or has a password. Only the flow
 * service (Part B) lets a user without a password in, and only when none is given.
 */
export async function authenticateUser(
  sql: Sql,
  name: string,
  password: string | undefined,
  options: { readonly allowPasswordless: boolean },
): Promise<User | undefined> {
  const user = await findUser(sql, name);
  // A single sign-on user signs in at the provider only; here it is as unknown as a stranger.
  const found = user?.external ? undefined : user;
  if (found && found.passwordHash !== '' && password !== undefined)
    return (await verifyPassword(password, found.passwordHash)) ? found : undefined;
  await verifyPassword(password ?? '', await decoyHash());
  const passwordless = found?.passwordHash === '' && password === undefined;
  return found && passwordless && options.allowPasswordless ? found : undefined;
}

export async function listUsers(sql: Sql): Promise<User[]> {
  return (await userRows(sql)).map(toUser);
}

export function countUsers(sql: Sql): Promise<number> {
  return userCount(sql);
}

export async function addUser(
  sql: Sql,
  name: string,
  password: string,
  role: Role,
  now: string,
): Promise<void> {
  if (!USER_NAME.test(name))
    throw new Error(
      `user name ${JSON.stringify(name)} must be 1 to 64 letters, digits or . _ @ - (starting with a letter or digit)`,
    );
  const taken = await nameTaken(sql, name);
  if (taken) throw new Error(taken);
  const passwordHash = await hashPassword(password);
  await sql.transaction(async (tx) => {
    // Checked again: another process may have added the name while the hash was made.
    const takenNow = await nameTaken(tx, name);
    if (takenNow) throw new Error(takenNow);
    await insertUser(tx, { name, passwordHash, role, created: now });
  });
}

/** Sets a new password; every session of the user ends. */
export async function setPassword(sql: Sql, name: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  if (!(await updateUserPassword(sql, name, hash))) throw new Error(`user ${name} does not exist`);
}

/** Who signs in through the OpenID provider: their account there, and what they are called. */
export interface ExternalIdentity {
  /** The provider's issuer and the account's `sub` there: the person. */
  readonly issuer: string;
  readonly subject: string;
  /** The name their claims give; only a label. */
  readonly name: string;
  /** The role their claims give now. */
  readonly role: Role;
}

/**
 * The user of a provider account, signing in with the role its claims give now. The
 * account is its (issuer, subject): its first sign-in creates its user under `name`; later
 * ones are that user whatever name the claims give (renamed when the new name is free).
 * Refused, with the reason, when a new account's name is any other user's regardless of
 * case: a name never makes one person another.
 */
export function signInExternalUser(
  sql: Sql,
  identity: ExternalIdentity,
  now: string,
): Promise<{ readonly user: User } | { readonly refused: string }> {
  return sql.transaction(async (tx) => {
    const known = await userRowBySubject(tx, identity.issuer, identity.subject);
    if (known) {
      await updateUserRole(tx, known.ID, identity.role);
      if (known.NAME !== identity.name && !(await nameTaken(tx, identity.name, known.ID)))
        await updateUserName(tx, known.ID, identity.name);
      return {
        user: toUser((await userRowBySubject(tx, identity.issuer, identity.subject)) as UserRow),
      };
    }
    const other = await userRowByLabel(tx, identity.name);
    if (other)
      return {
        refused:
          other.PASSWORDHASH === EXTERNAL_PASSWORD
            ? `Another single-sign-on account is already called ${other.NAME} here (names are unique regardless of case), so this account cannot sign in as ${identity.name}. Ask an administrator.`
            : `A local user is called ${other.NAME}; that account signs in with its password.`,
      };
    await insertUser(tx, {
      name: identity.name,
      passwordHash: EXTERNAL_PASSWORD,
      role: identity.role,
      created: now,
      issuer: identity.issuer,
      subject: identity.subject,
    });
    return {
      user: toUser((await userRowBySubject(tx, identity.issuer, identity.subject)) as UserRow),
    };
  });
}

export async function removeUser(sql: Sql, name: string): Promise<void> {
  if (!(await deleteUser(sql, name))) throw new Error(`user ${name} does not exist`);
}
