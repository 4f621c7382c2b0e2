import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.ts';
import { openDatabases, type Databases } from '../db/databases.ts';
import { setSetting } from '../db/system/settings.ts';
import { sqliteSql } from '../db/sqlite-sql.ts';
import type { Sql } from '../db/sql.ts';
import { keyCredential } from './api-access.ts';
import { credentialEndedWhy } from './credential-end.ts';
import { SessionStore, sessionCredential } from './sessions.ts';
import { createToken, tokenCaller } from './tokens.ts';
import { addUser, findUser } from './users.ts';

// The ends a bulk job checks for before each batch (bulk-credentials.test.ts runs jobs through
// each kind's commonest end); here every end, on a clock of its own: expiry included.

const DAY_MS = 86_400_000;

let folder: string;
let dbs: Databases;
let sql: Sql;
let clock: ManualClock;

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'credential-end-'));
  dbs = openDatabases(folder);
  sql = sqliteSql(dbs.system);
  clock = new ManualClock();
  await setSetting(sql, 'apiEnabled', 'true');
  await addUser(sql, 'olivia', 'credential-end-password-1', 'operator', 'now');
});

afterEach(() => {
  dbs.close();
  rmSync(folder, { recursive: true, force: true });
});

const still = (reference: string | null) => credentialEndedWhy(sql, reference, clock.now());

describe('the end of a credential a job started with', () => {
  it('a session: while it lives, not once it expired or was signed out', async () => {
    const sessions = new SessionStore(sql, clock);
    const userId = (await findUser(sql, 'olivia'))?.id ?? -1;
    const idle = await sessions.open('mc', userId, 30);
    const closed = await sessions.open('mc', userId, 30);
    expect(await still(sessionCredential(idle))).toBeUndefined();
    expect(await sessions.close('mc', closed)).toBe(true);
    expect(await still(sessionCredential(closed))).toMatch(/^the session it was started in ended/);
    clock.advance(31 * 60_000);
    expect(await still(sessionCredential(idle))).toMatch(/^the session it was started in ended/);
    // The reference is the stored hash: it holds nothing of the id itself.
    expect(sessionCredential(idle)).not.toContain(idle);
  });

  it('a personal token: while it lives, not once it expired', async () => {
    const userId = (await findUser(sql, 'olivia'))?.id ?? -1;
    const made = await createToken(
      sql,
      clock,
      { userId },
      {
        name: 'nightly',
        days: 1,
        role: 'operator',
        service: null,
      },
    );
    const { credential } = await tokenCaller(sql, clock, made.token, 'requestlist', 'local');
    expect(credential).toMatch(/^token /);
    expect(await still(credential ?? null)).toBeUndefined();
    clock.advance(DAY_MS + 1000);
    expect(await still(credential ?? null)).toMatch(/^the personal token nightly expired at /);
    expect(await still('token not-a-hash-of-anything')).toMatch(/no longer exists/);
  });

  it('the shared key: while it is in force, not once turned off or reissued', async () => {
    await setSetting(sql, 'apiKey', 'shared-key-0123456789abcdefghij');
    const reference = keyCredential('shared-key-0123456789abcdefghij');
    expect(reference).not.toContain('shared-key');
    expect(await still(reference)).toBeUndefined();
    await setSetting(sql, 'sharedKeyEnabled', 'false');
    expect(await still(reference)).toBe('the shared key was turned off by an administrator');
    await setSetting(sql, 'sharedKeyEnabled', 'true');
    await setSetting(sql, 'apiKey', 'another-key-0123456789abcdefghij');
    expect(await still(reference)).toBe('the shared key it was started with was reissued');
  });

  it('every kind once the API is disabled; none kept (an older job) is never ended here', async () => {
    await setSetting(sql, 'apiKey', 'shared-key-0123456789abcdefghij');
    await setSetting(sql, 'apiEnabled', 'false');
    expect(await still(keyCredential('shared-key-0123456789abcdefghij'))).toBe(
      'the pipeline API was disabled in the settings',
    );
    expect(await still(null)).toBeUndefined();
    await setSetting(sql, 'apiEnabled', 'true');
    expect(await still('badge 1234')).toMatch(/of a kind this server does not know \(badge\)/);
  });
});
