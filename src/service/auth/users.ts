import {
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';
import { ROLES, type Role } from '../../kit/wire.ts';
import { prepared, type Db } from '../db/sqlite.ts';

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
  readonly name: string;
  readonly role: Role;
  readonly hasPassword: boolean;
  /** Signs in only through the OpenID provider (single sign-on); has no password here. */
  readonly external: boolean;
  readonly created: string;
}

/**
 * The password hash of a user of the OpenID provider: no scrypt hash, never verifies, and
 * not the empty "no password" of flow-service robots, so neither Part lets it in directly.
 */
const EXTERNAL = '!oidc';

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

interface RawUser {
  NAME: string;
  PASSWORDHASH: string;
  ROLE: Role;
  CREATED: string;
}

const toUser = (raw: RawUser): User => ({
  name: raw.NAME,
  role: raw.ROLE,
  hasPassword: raw.PASSWORDHASH !== '' && raw.PASSWORDHASH !== EXTERNAL,
  external: raw.PASSWORDHASH === EXTERNAL,
  created: raw.CREATED,
});

export function findUser(db: Db, name: string): (User & { passwordHash: string }) | undefined {
  const raw = prepared(db, 'SELECT * FROM USERS WHERE NAME = ?').get(name) as RawUser | undefined;
  return raw ? { ...toUser(raw), passwordHash: raw.PASSWORDHASH } : undefined;
}

/**
 * The user these credentials sign in, or undefined. Every path costs one scrypt, so the time
 * of an answer tells nothing about whether the user exists or has a password. Only the flow
 * service (Part B) lets a user without a password in, and only when none is given.
 */
export async function authenticateUser(
  db: Db,
  name: string,
  password: string | undefined,
  options: { readonly allowPasswordless: boolean },
): Promise<User | undefined> {
  const user = findUser(db, name);
  // A single sign-on user signs in at the provider only; here it is as unknown as a stranger.
  const found = user?.external ? undefined : user;
  if (found && found.passwordHash !== '' && password !== undefined)
    return (await verifyPassword(password, found.passwordHash)) ? found : undefined;
  await verifyPassword(password ?? '', await decoyHash());
  const passwordless = found?.passwordHash === '' && password === undefined;
  return found && passwordless && options.allowPasswordless ? found : undefined;
}

export function listUsers(db: Db): User[] {
  return (prepared(db, 'SELECT * FROM USERS ORDER BY NAME').all() as RawUser[]).map(toUser);
}

export function countUsers(db: Db): number {
  return (prepared(db, 'SELECT COUNT(*) AS n FROM USERS').get() as { n: number }).n;
}

export async function addUser(
  db: Db,
  name: string,
  password: string,
  role: Role,
  now: string,
): Promise<void> {
  if (!USER_NAME.test(name))
    throw new Error(
      `user name ${JSON.stringify(name)} must be 1 to 64 letters, digits or . _ @ - (starting with a letter or digit)`,
    );
  if (findUser(db, name)) throw new Error(`user ${name} already exists`);
  const hash = await hashPassword(password);
  prepared(db, 'INSERT INTO USERS (NAME, PASSWORDHASH, ROLE, CREATED) VALUES (?, ?, ?, ?)').run(
    name,
    hash,
    role,
    now,
  );
}

/** Sets a new password; every session of the user ends. */
export async function setPassword(db: Db, name: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  db.transaction(() => {
    if (
      prepared(db, 'UPDATE USERS SET PASSWORDHASH = ? WHERE NAME = ?').run(hash, name).changes === 0
    ) {
      throw new Error(`user ${name} does not exist`);
    }
    prepared(db, 'DELETE FROM SESSIONS WHERE USERNAME = ?').run(name);
  })();
}

/**
 * Records a user of the OpenID provider with the role its claims give now, so its sessions
 * work like anyone's. Refused when a local user has that name.
 */
export function upsertExternalUser(db: Db, name: string, role: Role, now: string): boolean {
  return db.transaction(() => {
    const existing = findUser(db, name);
    if (existing && !existing.external) return false;
    if (existing) prepared(db, 'UPDATE USERS SET ROLE = ? WHERE NAME = ?').run(role, name);
    else
      prepared(db, 'INSERT INTO USERS (NAME, PASSWORDHASH, ROLE, CREATED) VALUES (?, ?, ?, ?)').run(
        name,
        EXTERNAL,
        role,
        now,
      );
    return true;
  })();
}

export function removeUser(db: Db, name: string): void {
  if (prepared(db, 'DELETE FROM USERS WHERE NAME = ?').run(name).changes === 0) {
    throw new Error(`user ${name} does not exist`);
  }
}
