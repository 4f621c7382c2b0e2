import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../auth/users.ts';
import { ManualClock } from '../clock.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';

// The audit log (contract section 7): every state-changing call through the server, with
// who, from where, what, and how it ended, refused calls included; secrets never in it.

const PASSWORD = 'audit-password-1';
const ADMIN_PASSWORD = 'admin-password-audit';

let service: TestService;
let clock: ManualClock;

interface Entry {
  time: string;
  day: string;
  userName: string | null;
  via: string;
  address: string;
  service: string | null;
  operation: string;
  parameters: Record<string, string>;
  httpStatus: number;
  status: string;
  message: string;
  requestId: string | null;
}

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8', ...headers },
  body: new URLSearchParams(fields).toString(),
});

async function signIn(userName: string, password: string): Promise<string> {
  const response = await service.fetch('/mcapi/auth/login', form({ userName, password }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
}

async function audit(
  admin: string,
  query: Record<string, string> = {},
): Promise<{ status: number; total: number; entries: Entry[]; code?: number }> {
  const response = await service.fetch(`/mcapi/audit?${new URLSearchParams(query).toString()}`, {
    headers: { 'X-As-SessionId': admin },
  });
  const body = (await response.json()) as {
    result: { code?: number; data?: { total: number; entries: Entry[] } };
  };
  return {
    status: response.status,
    total: body.result.data?.total ?? 0,
    entries: body.result.data?.entries ?? [],
    ...(body.result.code === undefined ? {} : { code: body.result.code }),
  };
}

beforeAll(async () => {
  clock = new ManualClock(Date.parse('2026-11-22T09:00:00Z'));
  service = await startService({
    clock,
    adminPassword: ADMIN_PASSWORD,
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'audit-defs-'))),
  });
  const db = service.app.context.shared;
  await addUser(db, 'olivia', PASSWORD, 'operator', 'now');
  await addUser(db, 'devon', PASSWORD, 'developer', 'now');
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
});

afterAll(async () => {
  await service.close();
});

describe('the audit log', () => {
  it('records each change with who, where from, what and its outcome, refusals included', async () => {
    const olivia = await signIn('olivia', PASSWORD);
    const devon = await signIn('devon', PASSWORD);
    const refused = await service.fetch(
      '/pipelineapi/exec/xml',
      form({ pipelineid: 'pl_1', filename: 'orders.csv' }, { 'X-As-SessionId': olivia }),
    );
    expect(refused.status).toBe(403);
    const done = await service.fetch(
      '/pipelineapi/exec/json',
      form({ pipelineid: 'pl_1', filename: 'orders.csv' }, { 'X-As-SessionId': devon }),
    );
    const requestId = ((await done.json()) as { ExecuteResponse: { RequestId: string } })
      .ExecuteResponse.RequestId;
    await service.app.engine.whenIdle();
    const retry = await service.keyed(`/pipelineapi/requestretry/xml?requestid=${requestId}`, {
      method: 'PUT',
    });
    expect(retry.status).toBe(409);

    const admin = await signIn('admin', ADMIN_PASSWORD);
    const page = await audit(admin, { operation: 'exec' });
    expect(page.status).toBe(200);
    expect(page.total).toBe(2);
    const [newest, oldest] = page.entries as [Entry, Entry];
    expect(newest).toMatchObject({
      userName: 'devon',
      via: 'session',
      address: '127.0.0.1',
      service: 'local',
      operation: 'exec',
      parameters: { pipelineid: 'pl_1', filename: 'orders.csv' },
      httpStatus: 200,
      status: 'OK',
      message: 'Success',
      requestId,
      day: '20261122',
    });
    expect(oldest).toMatchObject({
      userName: 'olivia',
      httpStatus: 403,
      status: 'Error',
      message:
        'exec on service local needs the developer role; the operator role there may not call it.',
      requestId: null,
    });
    const byRequest = await audit(admin, { requestid: requestId });
    expect(byRequest.entries.map((e) => [e.operation, e.via, e.userName, e.httpStatus])).toEqual([
      ['requestretry', 'key', null, 409],
      ['exec', 'session', 'devon', 200],
    ]);
  });

  it('records sign-in and sign-out, failed attempts by the name tried, never a password or session id', async () => {
    const failed = await service.fetch(
      '/mcapi/auth/login',
      form({ userName: 'mallory', password: 'guess-guess-1' }),
    );
    expect(failed.status).toBe(403);
    const session = await signIn('olivia', PASSWORD);
    await service.fetch('/mcapi/auth/logout', form({ sessionId: session }));
    await service.fetch('/api/auth/login', form({ user: 'olivia', password: PASSWORD }));
    const admin = await signIn('admin', ADMIN_PASSWORD);
    const mallory = await audit(admin, { user: 'mallory' });
    expect(mallory.entries).toHaveLength(1);
    expect(mallory.entries[0]).toMatchObject({
      operation: 'mc.login',
      via: 'none',
      httpStatus: 403,
      message: 'Login failed: unknown user or wrong password.',
      parameters: { userName: 'mallory' },
    });
    const olivia = (await audit(admin, { user: 'olivia' })).entries.map((e) => e.operation);
    expect(olivia.slice(0, 3)).toEqual(['fs.login', 'mc.logout', 'mc.login']);
    const everything = JSON.stringify((await audit(admin, { pagesize: '1000' })).entries);
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(session);
  });

  it('records settings and key changes without the key, for administrators only', async () => {
    const admin = await signIn('admin', ADMIN_PASSWORD);
    const reissued = await service.fetch('/mcapi/pipeline/apikey', {
      method: 'POST',
      headers: { 'X-As-SessionId': admin },
    });
    const key = ((await reissued.json()) as { result: { data: { apiKey: string } } }).result.data
      .apiKey;
    const olivia = await signIn('olivia', PASSWORD);
    const refused = await service.fetch('/mcapi/pipeline/settings', {
      method: 'PUT',
      headers: {
        'X-As-SessionId': olivia,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'apiEnabled=false',
    });
    expect(refused.status).toBe(403);
    const changes = await audit(admin, { operation: 'mc.apikey' });
    expect(changes.entries[0]).toMatchObject({ userName: 'admin', httpStatus: 200 });
    const settings = await audit(admin, { operation: 'mc.settings' });
    expect(settings.entries[0]).toMatchObject({ userName: 'olivia', httpStatus: 403 });
    expect(JSON.stringify((await audit(admin, { pagesize: '1000' })).entries)).not.toContain(key);
    expect(JSON.stringify((await audit(admin)).entries)).not.toContain(TEST_API_KEY);
    const forbidden = await audit(olivia);
    expect(forbidden.status).toBe(403);
    expect(forbidden.code).toBe(3003);
  });

  it('filters by day, pages newest first, refuses bad parameters, and forgets after its retention', async () => {
    const admin = await signIn('admin', ADMIN_PASSWORD);
    const all = await audit(admin, { pagesize: '1000' });
    const second = await audit(admin, { pagesize: '2', index: '1' });
    expect(second.entries.map((e) => e.time)).toEqual(all.entries.slice(1, 3).map((e) => e.time));
    expect((await audit(admin, { from: '20261123' })).total).toBe(0);
    expect((await audit(admin, { from: '20261122', to: '20261122' })).total).toBe(all.total);
    const bad = await audit(admin, { from: '2026-11-22' });
    expect(bad.status).toBe(400);
    expect(bad.code).toBe(2003);
    expect((await audit(admin, { pagesize: '0' })).status).toBe(400);
    // 91 days later the next change prunes everything older than the 90 kept by default.
    clock.advance(91 * 86_400_000);
    const later = await signIn('admin', ADMIN_PASSWORD);
    const kept = await audit(later, { pagesize: '1000' });
    expect(
      kept.entries.every(
        (e) => e.time >= new Date(clock.now().getTime() - 90 * 86_400_000).toISOString(),
      ),
    ).toBe(true);
    expect(kept.total).toBe(1);
  });
});
