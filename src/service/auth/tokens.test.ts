import { readFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../kit/cli/pipelinectl.ts';
import { ManualClock } from '../clock.ts';
import { queryAudit } from '../db/system/audit.ts';
import { grantRole, revokeRole } from '../db/system/service-roles.ts';
import { updateUserRole, userRowByName } from '../db/system/users.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';
import { addUser, removeUser } from './users.ts';

/*
 * Personal API tokens (issue 24, item 3; contract section 12): a person's own, created,
 * listed and revoked through Part A, accepted in X-Pipelinewebapi as that person with the
 * lower of the token's role and theirs on the service called, and audited under both.
 */

const PASSWORD = 'tokens-password-1';

interface PartA<T> {
  readonly status: number;
  readonly code: number | undefined;
  readonly message: string;
  readonly data: T;
}

let vendor: VendorService;
let server: TestService;
let clock: ManualClock;

async function partA<T>(
  path: string,
  sessionId: string,
  method = 'GET',
  fields?: Record<string, string>,
): Promise<PartA<T>> {
  const response = await server.fetch(path, {
    method,
    headers: {
      'X-As-SessionId': sessionId,
      ...(fields ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(fields ? { body: new URLSearchParams(fields).toString() } : {}),
  });
  const body = (await response.json()) as {
    result: { code?: number; message?: string; data?: T };
  };
  return {
    status: response.status,
    code: body.result.code,
    message: body.result.message ?? '',
    data: body.result.data as T,
  };
}

async function signIn(userName: string): Promise<string> {
  const response = await server.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName, password: PASSWORD }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
}

interface Created {
  readonly id: number;
  readonly name: string;
  readonly token: string;
  readonly role: string;
  readonly service: string | null;
  readonly expiresAt: string;
}

async function create(sessionId: string, fields: Record<string, string>): Promise<Created> {
  const answer = await partA<Created>('/mcapi/tokens', sessionId, 'POST', fields);
  expect(answer.status, answer.message).toBe(200);
  return answer.data;
}

/** A Part C call with a key or token in X-Pipelinewebapi. */
async function partC(
  key: string,
  path: string,
  method = 'GET',
  fields?: Record<string, string>,
): Promise<{ status: number; code: number | undefined; message: string }> {
  const response = await server.fetch(path, {
    method,
    headers: {
      'X-Pipelinewebapi': key,
      ...(fields ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(fields ? { body: new URLSearchParams(fields).toString() } : {}),
  });
  const body = (await response.json()) as { ExecuteResponse?: { Code?: number; Message?: string } };
  return {
    status: response.status,
    code: body.ExecuteResponse?.Code,
    message: body.ExecuteResponse?.Message ?? '',
  };
}

const exec = (key: string, service = 'local') =>
  partC(key, `/services/${service}/pipelineapi/exec/json`, 'POST', {
    pipelineid: 'pl_1',
    filename: 'missing.csv',
  });
const list = (key: string, service = 'local') =>
  partC(key, `/services/${service}/pipelineapi/requestlist/json`);

beforeAll(async () => {
  vendor = await startVendorService();
  clock = new ManualClock(Date.now());
  server = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'tokens-'))),
    services: [
      { id: 'local', name: 'Embedded', embedded: true },
      { id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey },
    ],
    pollScheduled: false,
    clock,
  });
  const db = server.app.context.shared;
  await addUser(db, 'dora', PASSWORD, 'developer', 'now');
  await addUser(db, 'otto', PASSWORD, 'operator', 'now');
  await addUser(db, 'ada', PASSWORD, 'administrator', 'now');
});

afterAll(async () => {
  await server?.close();
  await vendor?.close();
});

describe('personal API tokens', () => {
  it('are created, listed with their last use but never their value, and revoked at once', async () => {
    const dora = await signIn('dora');
    const made = await create(dora, { name: 'nightly load', expiresInDays: '30' });
    expect(made).toMatchObject({ name: 'nightly load', role: 'developer', service: null });
    expect(made.token).toMatch(/^pdt_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(made.expiresAt) - clock.now().getTime()).toBe(30 * 86_400_000);

    const before = await partA<{ tokens: Record<string, unknown>[] }>('/mcapi/tokens', dora);
    expect(before.data.tokens).toHaveLength(1);
    expect(before.data.tokens[0]).toMatchObject({ id: made.id, lastUsedAt: null });
    expect(before.data.tokens[0]).not.toHaveProperty('token');
    expect(JSON.stringify(before.data)).not.toContain(made.token);
    // Someone else sees only their own.
    const otto = await signIn('otto');
    expect((await partA<{ tokens: unknown[] }>('/mcapi/tokens', otto)).data.tokens).toEqual([]);
    // Nor may they revoke hers.
    expect((await partA(`/mcapi/tokens/${made.id}`, otto, 'DELETE')).status).toBe(404);

    expect((await list(made.token)).status).toBe(200);
    const after = await partA<{ tokens: { lastUsedAt: string | null }[] }>('/mcapi/tokens', dora);
    expect(after.data.tokens[0]?.lastUsedAt).toBe(clock.now().toISOString());

    const revoked = await partA(`/mcapi/tokens/${made.id}`, dora, 'DELETE');
    expect(revoked.status).toBe(200);
    expect(
      (
        await queryAudit(server.app.context.shared, {
          user: 'dora',
          operation: 'mc.token-revoke',
          index: 0,
          pageSize: 1,
        })
      ).entries[0],
    ).toMatchObject({ parameters: { id: String(made.id) }, httpStatus: 200 });
    expect((await partA<{ tokens: unknown[] }>('/mcapi/tokens', dora)).data.tokens).toEqual([]);
    const refused = await exec(made.token);
    expect(refused.status).toBe(401);
    expect(refused.message).toContain('The personal token nightly load was revoked');
    // The refusal is audited under the person and the token.
    const entry = (
      await queryAudit(server.app.context.shared, {
        user: 'dora',
        operation: 'exec',
        index: 0,
        pageSize: 1,
      })
    ).entries[0];
    expect(entry).toMatchObject({ via: 'token nightly load', httpStatus: 401 });
    expect(entry?.message).toContain('revoked');
  });

  it('are listed and revoked by an administrator for anyone, audited with whose; nobody else may', async () => {
    const otto = await signIn('otto');
    const made = await create(otto, { name: 'otto’s laptop', expiresInDays: '30' });
    const ada = await signIn('ada');
    const dora = await signIn('dora');
    // Another person's list: administrators alone, by name regardless of case.
    const seen = await partA<{ tokens: { id: number }[] }>('/mcapi/tokens?user=OTTO', ada);
    expect(seen.status, seen.message).toBe(200);
    expect(seen.data.tokens.map((t) => t.id)).toContain(made.id);
    const refused = await partA('/mcapi/tokens?user=otto', dora);
    expect([refused.status, refused.code]).toEqual([403, 3003]);
    const nobody = await partA('/mcapi/tokens?user=nobody', ada);
    expect(nobody.status).toBe(404);
    expect(nobody.message).toContain('There is no user "nobody"');
    // A developer cannot revoke it; an administrator can, once.
    expect((await partA(`/mcapi/tokens/${made.id}`, dora, 'DELETE')).status).toBe(404);
    expect((await partA(`/mcapi/tokens/${made.id}`, ada, 'DELETE')).status).toBe(200);
    expect((await partA(`/mcapi/tokens/${made.id}`, ada, 'DELETE')).status).toBe(404);
    // Newest first: the second try, refused, then the revocation naming whose it was.
    const entries = (
      await queryAudit(server.app.context.shared, {
        user: 'ada',
        operation: 'mc.token-revoke',
        index: 0,
        pageSize: 2,
      })
    ).entries;
    expect(entries).toMatchObject([
      { parameters: { id: String(made.id) }, httpStatus: 404 },
      { parameters: { id: String(made.id), owner: 'otto' }, httpStatus: 200 },
    ]);
    // Its owner sees it ended, and why; a call with it says so too.
    const own = await partA<{ tokens: unknown[]; revoked: { id: number; why: string }[] }>(
      '/mcapi/tokens',
      otto,
    );
    expect(own.data.tokens).toEqual([]);
    expect(own.data.revoked).toEqual([
      expect.objectContaining({ id: made.id, why: 'revoked by the administrator ada' }),
    ]);
    expect((await list(made.token)).message).toContain('(revoked by the administrator ada)');
  });

  it('act as their person in X-Pipelinewebapi, audited with the token’s name', async () => {
    const dora = await signIn('dora');
    const made = await create(dora, { name: 'ci', expiresInDays: '7' });
    const done = await exec(made.token);
    expect(done.status, done.message).toBe(200);
    await server.app.engine.whenIdle();
    const entry = (
      await queryAudit(server.app.context.shared, {
        operation: 'exec',
        index: 0,
        pageSize: 1,
      })
    ).entries[0];
    expect(entry).toMatchObject({
      userName: 'dora',
      via: 'token ci',
      service: 'local',
      httpStatus: 200,
    });
    // The audit log answers such an entry within its document.
    const ada = await signIn('ada');
    const audit = await partA<{ entries: { via: string }[] }>(
      '/mcapi/audit?operation=exec&pagesize=1',
      ada,
    );
    expect(audit.data.entries[0]?.via).toBe('token ci');
    // A token never mints a SESSIONID cookie (one would carry the shared key's rights).
    const response = await server.fetch('/pipelineapi/requestlist/json', {
      headers: { 'X-Pipelinewebapi': made.token },
    });
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('are refused after expiry, on another service, and for a removed person, each saying why', async () => {
    const otto = await signIn('otto');
    const prodOnly = await create(otto, {
      name: 'prod reader',
      expiresInDays: '1',
      service: 'prod',
    });
    expect(prodOnly.service).toBe('prod');
    expect((await list(prodOnly.token, 'prod')).status).toBe(200);
    const elsewhere = await list(prodOnly.token, 'local');
    expect(elsewhere).toEqual({
      status: 403,
      code: 1104,
      message: 'The personal token prod reader is for service prod only, not service local.',
    });
    // Plain /pipelineapi is the first service, local: refused too.
    expect((await partC(prodOnly.token, '/pipelineapi/requestlist/json')).status).toBe(403);

    clock.advance(86_400_000);
    const expired = await list(prodOnly.token, 'prod');
    expect(expired.status).toBe(401);
    expect(expired.message).toBe(
      `The personal token prod reader expired at ${prodOnly.expiresAt}.`,
    );
    const audited = (
      await queryAudit(server.app.context.shared, {
        user: 'otto',
        index: 0,
        pageSize: 10,
      })
    ).entries;
    // Each refusal is audited under the person and the token, reads included.
    expect(
      audited
        .filter((e) => e.via === 'token prod reader')
        .map((e) => [e.operation, e.service, e.httpStatus]),
    ).toEqual([
      ['requestlist', 'prod', 401],
      ['requestlist', 'local', 403],
      ['requestlist', 'local', 403],
    ]);
    expect(audited[0]?.message).toContain('expired');

    await addUser(server.app.context.shared, 'gone', PASSWORD, 'operator', 'now');
    const gone = await create(await signIn('gone'), { name: 'left', expiresInDays: '5' });
    expect((await list(gone.token)).status).toBe(200);
    await removeUser(server.app.context.shared, 'gone');
    const refused = await list(gone.token);
    expect(refused.status).toBe(401);
    expect(refused.message).toContain('unknown');
  });

  it('act with the lower of their role and their person’s role on the service now', async () => {
    const db = server.app.context.shared;
    const dora = await signIn('dora');
    const viewerToken = await create(dora, { name: 'reader', expiresInDays: '10', role: 'viewer' });
    const devToken = await create(dora, { name: 'deployer', expiresInDays: '10' });
    const asViewer = await exec(viewerToken.token);
    expect(asViewer).toMatchObject({ status: 403, code: 1104 });
    expect(asViewer.message).toContain('the viewer role there may not call it');
    expect((await exec(devToken.token)).status).toBe(200);

    // Dora made a viewer on local: her developer token reads there and no longer executes.
    await grantRole(db, 'dora', 'local', 'viewer');
    const shrunk = await exec(devToken.token);
    expect(shrunk).toMatchObject({ status: 403, code: 1104 });
    expect(shrunk.message).toContain('the viewer role there');
    expect((await list(devToken.token)).status).toBe(200);
    await revokeRole(db, 'dora', 'local');
    // A new default role shrinks it too.
    const row = await userRowByName(db, 'dora');
    await updateUserRole(db, row!.ID, 'operator');
    expect((await exec(devToken.token)).status).toBe(403);
    await updateUserRole(db, row!.ID, 'developer');
    expect((await exec(devToken.token)).status).toBe(200);
    await server.app.engine.whenIdle();
  });

  it('refuse a role above the caller’s (403/3003) and bad fields (400/2003), naming them', async () => {
    const otto = await signIn('otto');
    const above = await partA('/mcapi/tokens', otto, 'POST', {
      name: 'too much',
      expiresInDays: '5',
      role: 'developer',
    });
    expect(above).toMatchObject({ status: 403, code: 3003 });
    expect(above.message).toContain('role developer');
    for (const days of ['0', '366', 'x', '-1', '1.5', ''])
      expect(
        await partA('/mcapi/tokens', otto, 'POST', { name: 'n', expiresInDays: days }),
        days,
      ).toMatchObject({ status: 400, code: days === '' ? 2002 : 2003 });
    const bad = await partA('/mcapi/tokens', otto, 'POST', { name: 'n', expiresInDays: '400' });
    expect(bad.message).toContain('expiresInDays');
    expect(
      (
        await partA('/mcapi/tokens', otto, 'POST', {
          name: 'n',
          expiresInDays: '5',
          service: 'nope',
        })
      ).message,
    ).toContain('service');
    expect(
      (await partA('/mcapi/tokens', otto, 'POST', { name: 'n', expiresInDays: '5', role: 'king' }))
        .code,
    ).toBe(2003);
    expect(
      (await partA('/mcapi/tokens', otto, 'POST', { name: '', expiresInDays: '5' })).status,
    ).toBe(400);
    // Without a session: 401/3001.
    expect((await partA('/mcapi/tokens', 'no-such-session')).code).toBe(3001);
  });

  it('are stored hashed: the database holds no token as text', async () => {
    const dora = await signIn('dora');
    const made = await create(dora, { name: 'secret', expiresInDays: '3' });
    const db = server.app.context.dbs.system;
    db.pragma('wal_checkpoint(FULL)');
    for (const file of ['system.db', 'system.db-wal']) {
      const path = join(server.dataDir, file);
      if (existsSync(path))
        expect(readFileSync(path).includes(Buffer.from(made.token.slice(4))), file).toBe(false);
    }
    const stored = db.prepare('SELECT HASH FROM API_TOKEN WHERE ID = ?').pluck().get(made.id);
    expect(typeof stored).toBe('string');
    expect(stored).not.toContain(made.token.slice(4));
  });

  it('serve pipelinectl from PIPELINE_API_KEY', async () => {
    const made = await create(await signIn('otto'), { name: 'cli', expiresInDays: '2' });
    let out = '';
    const code = await run(['list', '--url', server.url], { PIPELINE_API_KEY: made.token }, (t) => {
      out += t;
    });
    expect(code).toBe(0);
    expect(out).toContain('pl_1');
    expect(
      (await queryAudit(server.app.context.shared, { user: 'otto', index: 0, pageSize: 1 }))
        .entries,
    ).toBeDefined();
  });

  it('go on when an administrator disables the shared key, which then stops at once', async () => {
    const ada = await signIn('ada');
    const made = await create(ada, { name: 'ops', expiresInDays: '2' });
    expect((await list(TEST_API_KEY)).status).toBe(200);
    const off = await partA<{ sharedKeyEnabled: boolean }>('/mcapi/pipeline/settings', ada, 'PUT', {
      apiEnabled: 'true',
      sharedKeyEnabled: 'false',
    });
    expect(off.data.sharedKeyEnabled).toBe(false);
    const refused = await list(TEST_API_KEY);
    expect(refused.status).toBe(401);
    expect(refused.message).toContain('disabled');
    expect((await list(made.token)).status).toBe(200);
    // Only an administrator may turn it off; a bad value is named.
    const otto = await signIn('otto');
    expect(
      (
        await partA('/mcapi/pipeline/settings', otto, 'PUT', {
          apiEnabled: 'true',
          sharedKeyEnabled: 'true',
        })
      ).status,
    ).toBe(403);
    const bad = await partA('/mcapi/pipeline/settings', ada, 'PUT', {
      apiEnabled: 'true',
      sharedKeyEnabled: 'maybe',
    });
    expect(bad).toMatchObject({ status: 400, code: 2003 });
    const on = await partA<{ sharedKeyEnabled: boolean }>('/mcapi/pipeline/settings', ada, 'PUT', {
      apiEnabled: 'true',
      sharedKeyEnabled: 'true',
    });
    expect(on.data.sharedKeyEnabled).toBe(true);
    expect((await list(TEST_API_KEY)).status).toBe(200);
    // Either setting may be sent alone; with neither, apiEnabled is named missing.
    const alone = await partA<{ apiEnabled: boolean; sharedKeyEnabled: boolean }>(
      '/mcapi/pipeline/settings',
      ada,
      'PUT',
      { sharedKeyEnabled: 'true' },
    );
    expect(alone.data).toMatchObject({ apiEnabled: true, sharedKeyEnabled: true });
    const neither = await partA('/mcapi/pipeline/settings', ada, 'PUT', {});
    expect(neither).toMatchObject({ status: 400, code: 2002 });
    expect(neither.message).toContain('apiEnabled');
  });
});
