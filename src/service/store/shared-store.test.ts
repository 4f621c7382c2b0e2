import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, findUser, listUsers, signInExternalUser } from '../auth/users.ts';
import { roleOn } from '../auth/service-roles.ts';
import { SessionStore } from '../auth/sessions.ts';
import {
  createToken,
  endTokensOf,
  listTokens,
  revokeTokenFor,
  tokenCaller,
  WHY_ENDED,
} from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import { openDatabases, type Databases } from '../db/databases.ts';
import { appendAudit, auditBatch, nextAuditSeq, queryAudit } from '../db/system/audit.ts';
import {
  bulkItemsPage,
  createBulkJob,
  getBulkJob,
  markEnded,
  markStarted,
  nextBulkItems,
} from '../db/system/bulk-jobs.ts';
import { claimNotification, listNotifications } from '../db/system/notifications.ts';
import { grantRole, grantedRoles, revokeRole } from '../db/system/service-roles.ts';
import { getSetting, setSetting } from '../db/system/settings.ts';
import { ApiError } from '../errors.ts';
import { startPostgres, type PostgresCluster } from '../testing/postgres.ts';
import { acquireLease, leaseHolder, releaseLease } from '../db/leases.ts';
import { openSharedStore, type SharedStore } from './shared-store.ts';

// One suite over both stores (issue 28): the same calls, the same answers, whether the
// shared state is in the system database or in PostgreSQL.

const clock: Clock = { now: () => new Date('2026-11-28T10:00:00.000Z') };
const PASSWORD = 'store-suite-password';

let cluster: PostgresCluster;
const opened: { store: SharedStore; dbs: Databases }[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
});

afterAll(async () => {
  for (const { store, dbs } of opened) {
    await store.close();
    dbs.close();
  }
  await cluster.remove();
});

async function open(engine: 'sqlite' | 'postgres'): Promise<SharedStore> {
  const dbs = openDatabases(mkdtempSync(join(tmpdir(), 'store-suite-')), { embedded: false });
  const store = await openSharedStore({
    databaseUrl: engine === 'postgres' ? await cluster.freshDatabase() : undefined,
    system: dbs.system,
    log: () => undefined,
  });
  opened.push({ store, dbs });
  return store;
}

describe.each(['sqlite', 'postgres'] as const)('the shared store on %s', (engine) => {
  let store: SharedStore;
  beforeAll(async () => {
    store = await open(engine);
  });

  it('is the engine it was opened as', () => {
    expect(store.engine).toBe(engine);
  });

  it('keeps settings, null included, and overwrites them', async () => {
    expect(await getSetting(store.sql, 'missing')).toBeNull();
    await setSetting(store.sql, 'apiKey', 'one');
    await setSetting(store.sql, 'apiKey', 'two');
    await setSetting(store.sql, 'empty', null);
    expect(await getSetting(store.sql, 'apiKey')).toBe('two');
    expect(await getSetting(store.sql, 'empty')).toBeNull();
  });

  it('keeps users by id, names unique regardless of case, and single sign-on accounts', async () => {
    await addUser(store.sql, 'olivia', PASSWORD, 'operator', clock.now().toISOString());
    await expect(addUser(store.sql, 'OLIVIA', PASSWORD, 'viewer', 'now')).rejects.toThrow(
      /taken by user olivia/,
    );
    const olivia = await findUser(store.sql, 'olivia');
    expect(olivia).toMatchObject({ name: 'olivia', role: 'operator', hasPassword: true });
    expect(typeof olivia?.id).toBe('number');
    const first = await signInExternalUser(
      store.sql,
      { issuer: 'https://idp', subject: 's-1', name: 'sam', role: 'viewer' },
      'now',
    );
    const again = await signInExternalUser(
      store.sql,
      { issuer: 'https://idp', subject: 's-1', name: 'samuel', role: 'developer' },
      'later',
    );
    expect('user' in first && 'user' in again && first.user.id === again.user.id).toBe(true);
    expect(await findUser(store.sql, 'samuel')).toMatchObject({
      role: 'developer',
      external: true,
    });
    const clash = await signInExternalUser(
      store.sql,
      { issuer: 'https://idp', subject: 's-2', name: 'Olivia', role: 'viewer' },
      'now',
    );
    expect(clash).toEqual({ refused: expect.stringContaining('A local user is called olivia') });
    expect((await listUsers(store.sql)).map((u) => u.name)).toEqual(['olivia', 'samuel']);
  });

  it('gives and takes roles per service, read at each call', async () => {
    const person = { userName: 'olivia', role: 'operator' as const };
    expect(await roleOn(store.sql, person, 'prod')).toBe('operator');
    expect(await grantRole(store.sql, 'olivia', 'prod', 'viewer')).toBe(true);
    expect(await grantRole(store.sql, 'olivia', 'prod', 'developer')).toBe(true);
    expect(await grantRole(store.sql, 'nobody', 'prod', 'viewer')).toBe(false);
    expect(await roleOn(store.sql, person, 'prod')).toBe('developer');
    expect(await grantedRoles(store.sql, 'olivia')).toEqual([
      { service: 'prod', role: 'developer' },
    ]);
    expect(await revokeRole(store.sql, 'olivia', 'prod')).toBe(true);
    expect(await revokeRole(store.sql, 'olivia', 'prod')).toBe(false);
    expect(await roleOn(store.sql, person, 'prod')).toBe('operator');
  });

  it('opens, extends and ends sessions, reading the user as they are now', async () => {
    const sessions = new SessionStore(store.sql, clock);
    const olivia = await findUser(store.sql, 'olivia');
    const id = await sessions.open('mc', olivia?.id ?? -1, 30);
    expect(await sessions.use('mc', id)).toMatchObject({ userName: 'olivia', role: 'operator' });
    expect(await sessions.use('fs', id)).toBeUndefined();
    expect(await sessions.close('mc', id)).toBe(true);
    expect(await sessions.use('mc', id)).toBeUndefined();
    expect(await sessions.close('mc', id)).toBe(false);
  });

  it('keeps personal tokens hashed, and refuses one revoked', async () => {
    const olivia = await findUser(store.sql, 'olivia');
    const owner = { userId: olivia?.id ?? -1 };
    const made = await createToken(store.sql, clock, owner, {
      name: 'ci',
      days: 30,
      role: 'viewer',
      service: null,
    });
    expect(made.token).toMatch(/^pdt_/);
    expect((await listTokens(store.sql, clock, owner.userId)).tokens.map((t) => t.name)).toEqual([
      'ci',
    ]);
    const caller = await tokenCaller(store.sql, clock, made.token, 'requestlist', 'prod');
    expect(caller).toEqual({
      via: 'token ci',
      role: 'viewer',
      userName: 'olivia',
      // What a bulk job keeps to see it end: the stored hash, never the token.
      credential: expect.stringMatching(/^token [\w-]{43}$/) as unknown,
    });
    expect(caller.credential).not.toContain(made.token.slice(4));
    // Another person cannot revoke it as their own; its owner can, once.
    expect(await revokeTokenFor(store.sql, clock, made.id, WHY_ENDED.byOwner, -1)).toBeUndefined();
    expect(await revokeTokenFor(store.sql, clock, made.id, WHY_ENDED.byOwner, owner.userId)).toBe(
      'olivia',
    );
    expect(
      await revokeTokenFor(store.sql, clock, made.id, WHY_ENDED.byOwner, owner.userId),
    ).toBeUndefined();
    await expect(tokenCaller(store.sql, clock, made.token, 'requestlist', 'prod')).rejects.toThrow(
      /was revoked at .* \(revoked by its owner\)/,
    );
    expect(await listTokens(store.sql, clock, owner.userId)).toMatchObject({
      tokens: [],
      revoked: [{ id: made.id, name: 'ci', why: 'revoked by its owner' }],
    });
  });

  it('ends every live token of a person at a reset, and lets an administrator revoke anyone’s', async () => {
    const olivia = await findUser(store.sql, 'olivia');
    const owner = { userId: olivia?.id ?? -1 };
    const fields = { days: 30, role: 'viewer', service: null } as const;
    const one = await createToken(store.sql, clock, owner, { name: 'one', ...fields });
    const two = await createToken(store.sql, clock, owner, { name: 'two', ...fields });
    const three = await createToken(store.sql, clock, owner, { name: 'three', ...fields });
    expect(await revokeTokenFor(store.sql, clock, one.id, WHY_ENDED.byAdministrator('ada'))).toBe(
      'olivia',
    );
    expect(await endTokensOf(store.sql, clock, owner.userId, WHY_ENDED.passwordReset)).toBe(2);
    for (const made of [one, two, three])
      await expect(
        tokenCaller(store.sql, clock, made.token, 'requestlist', 'prod'),
      ).rejects.toBeInstanceOf(ApiError);
    const { tokens, revoked } = await listTokens(store.sql, clock, owner.userId);
    expect(tokens).toEqual([]);
    expect(
      Object.fromEntries(revoked.map((t) => [t.name, [t.revokedBy, t.revokedByName, t.why]])),
    ).toEqual({
      // The test before's, revoked by its owner, is still listed: within 30 days.
      ci: ['owner', null, 'revoked by its owner'],
      one: ['administrator', 'ada', 'revoked by the administrator ada'],
      two: ['reset', null, 'ended by a password reset'],
      three: ['reset', null, 'ended by a password reset'],
    });
  });

  it('pages the audit log newest first by filter, and in batches for an export', async () => {
    for (let i = 0; i < 5; i++)
      await appendAudit(store.sql, {
        time: `2026-11-2${i}T00:00:00.000Z`,
        day: `2026112${i}`,
        userName: i % 2 ? 'olivia' : null,
        via: i % 2 ? 'session' : 'key',
        address: '127.0.0.1',
        service: 'prod',
        operation: 'requestretry',
        parameters: { requestid: `r-${i}` },
        httpStatus: 200,
        status: 'OK',
        message: '',
        requestId: `r-${i}`,
      });
    const page = await queryAudit(store.sql, { user: 'olivia', index: 0, pageSize: 10 });
    expect(page.total).toBe(2);
    expect(page.entries.map((e) => e.requestId)).toEqual(['r-3', 'r-1']);
    const days = await queryAudit(store.sql, {
      from: '20261121',
      to: '20261123',
      index: 1,
      pageSize: 1,
    });
    expect([days.total, days.next, days.entries[0]?.day]).toEqual([3, 2, '20261122']);
    const batch = await auditBatch(store.sql, {}, await nextAuditSeq(store.sql), 3);
    expect(batch.entries.map((e) => e.requestId)).toEqual(['r-4', 'r-3', 'r-2']);
    const rest = await auditBatch(store.sql, {}, batch.last ?? 0, 3);
    expect(rest.entries.map((e) => e.requestId)).toEqual(['r-1', 'r-0']);
  });

  it('claims a notification once per request, state and receiver', async () => {
    const claim = { time: 'now', target: 'https://hooks', targetHash: 'h', requestId: 'r-1' };
    expect(await claimNotification(store.sql, { ...claim, status: 'Error' })).toBe(true);
    expect(await claimNotification(store.sql, { ...claim, status: 'Error' })).toBe(false);
    expect(await claimNotification(store.sql, { ...claim, status: 'Abort' })).toBe(true);
    expect((await listNotifications(store.sql, 10)).map((n) => n.status)).toEqual([
      'Abort',
      'Error',
    ]);
  });

  it('records a bulk job with its requests, their marks and its counters', async () => {
    const ids = Array.from({ length: 450 }, (_, i) => `r-${i}`);
    const id = await createBulkJob(
      store.sql,
      {
        service: 'prod',
        action: 'retry',
        day: '20261128',
        pipelineId: undefined,
        statuses: ['Error'],
        q: undefined,
      },
      {
        reason: 'suite',
        userName: 'olivia',
        via: 'session',
        address: '127.0.0.1',
        credential: null,
      },
      'now',
      ids,
    );
    const next = await nextBulkItems(store.sql, id, 'pending', 3);
    expect(next.map((item) => item.requestId)).toEqual(['r-0', 'r-1', 'r-2']);
    await markStarted(
      store.sql,
      id,
      next.map((item) => item.seq),
      'now',
    );
    await markEnded(store.sql, id, 0, 'ok', '', 'now');
    await markEnded(store.sql, id, 1, 'refused', 'no', 'now');
    expect(await getBulkJob(store.sql, id)).toMatchObject({
      total: 450,
      succeeded: 1,
      refused: 1,
      state: 'running',
      statuses: ['Error'],
    });
    expect((await bulkItemsPage(store.sql, id, 'started', 0, 10)).items.map((i) => i.seq)).toEqual([
      2,
    ]);
    expect((await bulkItemsPage(store.sql, id, undefined, 448, 10)).total).toBe(450);
  });

  it('gives a lease to one holder at a time, to another once it runs out or is given up', async () => {
    const now = clock.now().getTime();
    expect(await acquireLease(store.sql, 'poller:prod', 'a', now, 10_000)).toBe(true);
    expect(await acquireLease(store.sql, 'poller:prod', 'b', now + 5_000, 10_000)).toBe(false);
    // Renewed by its holder: still not b's after the first term.
    expect(await acquireLease(store.sql, 'poller:prod', 'a', now + 9_000, 10_000)).toBe(true);
    expect(await acquireLease(store.sql, 'poller:prod', 'b', now + 12_000, 10_000)).toBe(false);
    expect(await leaseHolder(store.sql, 'poller:prod', now + 12_000)).toBe('a');
    // a died: its lease runs out, and b takes it.
    expect(await acquireLease(store.sql, 'poller:prod', 'b', now + 19_001, 10_000)).toBe(true);
    expect(await leaseHolder(store.sql, 'poller:prod', now + 19_001)).toBe('b');
    expect(await acquireLease(store.sql, 'poller:prod', 'a', now + 20_000, 10_000)).toBe(false);
    await releaseLease(store.sql, 'poller:prod', 'a');
    expect(await leaseHolder(store.sql, 'poller:prod', now + 20_000)).toBe('b');
    await releaseLease(store.sql, 'poller:prod', 'b');
    expect(await leaseHolder(store.sql, 'poller:prod', now + 20_000)).toBeUndefined();
    expect(await acquireLease(store.sql, 'poller:prod', 'a', now + 20_000, 10_000)).toBe(true);
  });

  it('keeps a transaction whole: a failure inside it changes nothing', async () => {
    await expect(
      store.sql.transaction(async (tx) => {
        await setSetting(tx, 'halfway', 'written');
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await getSetting(store.sql, 'halfway')).toBeNull();
  });
});
