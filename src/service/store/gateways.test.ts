import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../app.ts';
import { addUser } from '../auth/users.ts';
import { readConfig } from '../config.ts';
import { openDatabases } from '../db/databases.ts';
import { PG_PASSWORD, startPostgres, type PostgresCluster } from '../testing/postgres.ts';
import {
  formPost,
  signIn as signInAs,
  startService,
  type TestService,
} from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';
import { maskPassword, parseDatabaseUrl } from './database-url.ts';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.ts';
import { openSharedStore } from './shared-store.ts';

// Several gateways on one PostgreSQL act as one (contract section 11): a session, a token,
// a role or an audit entry made through one holds on the other at once; a bad or absent
// database stops the start naming the flag; a database gone answers 503 and comes back.

const PASSWORD = 'gateways-password-1';

const signIn = (gateway: TestService, userName: string) => signInAs(gateway, userName, PASSWORD);

const systemDb = () =>
  openDatabases(mkdtempSync(join(tmpdir(), 'gateways-')), { embedded: false }).system;

let cluster: PostgresCluster;
let vendor: VendorService;

beforeAll(async () => {
  cluster = await startPostgres();
  vendor = await startVendorService({});
});

afterAll(async () => {
  await vendor.close();
  await cluster.remove();
});

describe('--database', () => {
  it('takes a postgres URL and masks its password wherever it is named', () => {
    expect(parseDatabaseUrl('postgres://u:s3cret@db.example:5432/gw').masked).toBe(
      'postgres://u:***@db.example:5432/gw',
    );
    for (const [text, reason] of [
      ['mysql://u:s3cret@h/db', /a postgres:\/\/ URL is expected/],
      ['postgres://u:s3cret@h', /names no database/],
      ['not a url s3cret', /not a URL/],
    ] as const) {
      const error = (() => {
        try {
          readConfig(['--database', text], {});
        } catch (thrown) {
          return thrown as Error;
        }
        return undefined;
      })();
      expect(error?.message).toMatch(/^--database /);
      expect(error?.message).toMatch(reason);
      if (text.includes('://')) expect(error?.message).not.toContain('s3cret');
    }
    expect(maskPassword('postgresql://a:b@c/d')).toBe('postgresql://a:***@c/d');
  });

  it('stops the start when the database cannot be reached, naming the flag, the password masked', async () => {
    const url = `postgres://pipeline:${PG_PASSWORD}@127.0.0.1:1/none`;
    const failure = await openSharedStore({ databaseUrl: url, system: systemDb(), log: () => {} })
      .then(() => undefined)
      .catch((error: unknown) => error as Error);
    expect(failure?.message).toMatch(
      /^--database postgres:\/\/pipeline:\*\*\*@127\.0\.0\.1:1\/none: /,
    );
    expect(failure?.message).toMatch(/ECONNREFUSED/);
    expect(failure?.message).not.toContain(PG_PASSWORD);
  });

  it('migrates once when gateways start together, and refuses a schema newer than the code', async () => {
    const url = await cluster.freshDatabase();
    const stores = await Promise.all(
      [1, 2, 3].map(() => openSharedStore({ databaseUrl: url, system: systemDb(), log: () => {} })),
    );
    for (const store of stores) await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const versions = await client.query<{ version: number }>(
        'SELECT VERSION AS version FROM SCHEMA_VERSION ORDER BY VERSION',
      );
      expect(versions.rows.map((r) => r.version)).toEqual(
        POSTGRES_MIGRATIONS.map((m) => m.version),
      );
      await client.query("INSERT INTO SCHEMA_VERSION (VERSION, APPLIED) VALUES (999, 'later')");
    } finally {
      await client.end();
    }
    const refused = await openSharedStore({ databaseUrl: url, system: systemDb(), log: () => {} })
      .then(() => undefined)
      .catch((error: unknown) => error as Error);
    expect(refused?.message).toMatch(/schema is version 999, newer than this gateway's/);
    expect(refused?.message).not.toContain(PG_PASSWORD);
  });
});

describe('two gateways on one PostgreSQL', () => {
  let one: TestService;
  let two: TestService;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await cluster.freshDatabase();
    const services = [{ id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey }];
    one = await startService({ services, databaseUrl, apiKey: undefined });
    two = await startService({ services, databaseUrl, apiKey: undefined });
    await addUser(one.app.context.shared, 'olivia', PASSWORD, 'operator', 'now');
  });

  afterAll(async () => {
    await one.close();
    await two.close();
  });

  it('share people, sessions, sign-outs and the first administrator', async () => {
    // The second start found the administrator the first one made: one `admin` for both.
    expect(one.app.initialAdminPassword).toBeDefined();
    expect(two.app.initialAdminPassword).toBeUndefined();
    const session = await signIn(two, 'olivia');
    const onOne = await one.fetch('/mcapi/auth/session', {
      headers: { 'X-As-SessionId': session },
    });
    expect(onOne.status).toBe(200);
    expect((await two.fetch('/mcapi/auth/logout', formPost({ sessionId: session }))).status).toBe(
      200,
    );
    expect(
      (await one.fetch('/mcapi/auth/session', { headers: { 'X-As-SessionId': session } })).status,
    ).toBe(401);
  });

  it('take the people npm run users adds and grants through PIPELINE_DATABASE_URL', async () => {
    const users = (...args: string[]) =>
      spawnSync(
        process.execPath,
        ['--import', 'tsx', join(REPO_ROOT, 'src/service/users-cli.ts'), ...args],
        {
          cwd: REPO_ROOT,
          env: {
            ...process.env,
            PIPELINE_DATABASE_URL: databaseUrl,
            PIPELINE_DATA_DIR: mkdtempSync(join(tmpdir(), 'users-pg-')),
            PIPELINE_USER_PASSWORD: PASSWORD,
          },
          encoding: 'utf8',
        },
      );
    expect(users('add', 'vera', '--role', 'viewer').status).toBe(0);
    expect(users('grant', 'vera', '--service', 'prod', '--role', 'operator').status).toBe(0);
    expect(users('list').stdout).toMatch(/^vera\tviewer\tprod:operator$/m);
    const session = await signIn(two, 'vera');
    const services = await one.fetch('/mcapi/services', {
      headers: { 'X-As-SessionId': session },
    });
    const listed = (
      (await services.json()) as { result: { data: { services: { id: string; role: string }[] } } }
    ).result.data.services;
    expect(listed.find((s) => s.id === 'prod')?.role).toBe('operator');
  });

  it('count sign-in tries together: past the limit on one, refused on the other', async () => {
    // Gateways of their own, with a small limit: the file's two keep the tests' large one.
    const url = await cluster.freshDatabase();
    const loginLimit = { max: 3, timeWindow: 86_400_000 };
    const first = await startService({ databaseUrl: url, apiKey: undefined, loginLimit });
    const second = await startService({ databaseUrl: url, apiKey: undefined, loginLimit });
    try {
      const wrong = { userName: 'admin', password: 'wrong-password' };
      expect((await first.fetch('/mcapi/auth/login', formPost(wrong))).status).toBe(403);
      expect(
        (await second.fetch('/api/auth/login', formPost({ user: 'admin', password: 'x' }))).status,
      ).toBe(403);
      expect((await first.fetch('/mcapi/auth/login', formPost(wrong))).status).toBe(403);
      // The fourth, on the other gateway and the other Part: the same address's fourth try.
      const limited = await second.fetch('/mcapi/auth/login', formPost(wrong));
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('refuse on one a token revoked on the other, at once', async () => {
    const session = await signIn(one, 'olivia');
    const created = await one.fetch(
      '/mcapi/tokens',
      formPost({ name: 'ci', expiresInDays: '7' }, { 'X-As-SessionId': session }),
    );
    const { id, token } = (
      (await created.json()) as { result: { data: { id: number; token: string } } }
    ).result.data;
    const list = () =>
      two.fetch('/services/prod/pipelineapi/list/json', { headers: { 'X-Pipelinewebapi': token } });
    expect((await list()).status).toBe(200);
    const revoked = await one.fetch(`/mcapi/tokens/${id}`, {
      method: 'DELETE',
      headers: { 'X-As-SessionId': session },
    });
    expect(revoked.status).toBe(200);
    expect((await list()).status).toBe(401);
  });

  it('take on one the SESSIONID the other set, and end it on both at sign-out or a new key', async () => {
    const version = '/services/prod/pipelineapi/version/json';
    const cookieOf = (response: Response) =>
      /^SESSIONID=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
    const byCookie = async (gateway: TestService, cookie: string) =>
      (await gateway.fetch(version, { headers: { Cookie: `SESSIONID=${cookie}` } })).status;
    const mint = async (gateway: TestService) => {
      const key = gateway.app.context.access.key as string;
      const cookie = cookieOf(
        await gateway.fetch(version, { headers: { 'X-Pipelinewebapi': key } }),
      );
      expect(cookie).toBeDefined();
      return cookie as string;
    };

    const cookie = await mint(one);
    expect(await byCookie(two, cookie)).toBe(200);
    expect(await byCookie(one, cookie)).toBe(200);

    // Signing out through the second ends it there at once, and on the first at its next
    // reading of the store (every 2 s).
    const session = await signIn(two, 'olivia');
    const signedOut = await two.fetch(
      '/mcapi/auth/logout',
      formPost({ sessionId: session }, { Cookie: `SESSIONID=${cookie}` }),
    );
    expect(signedOut.status).toBe(200);
    expect(await byCookie(two, cookie)).toBe(401);
    await expect.poll(() => byCookie(one, cookie), { timeout: 10_000 }).toBe(401);

    // A key reissued through the first ends every cookie on the second too.
    const other = await mint(two);
    expect(await byCookie(one, other)).toBe(200);
    const adminSession = await signInAs(one, 'admin', one.app.initialAdminPassword as string);
    const reissued = await one.fetch('/mcapi/pipeline/apikey', {
      method: 'POST',
      headers: { 'X-As-SessionId': adminSession },
    });
    expect(reissued.status).toBe(200);
    expect(await byCookie(one, other)).toBe(401);
    await expect.poll(() => byCookie(two, other), { timeout: 10_000 }).toBe(401);
  });

  it('read on one the audit entries written by the other', async () => {
    // A sign-in through the second gateway is an audit entry; the first one's
    // administrator reads it.
    await signIn(two, 'olivia');
    const signedIn = await one.fetch(
      '/mcapi/auth/login',
      formPost({ userName: 'admin', password: one.app.initialAdminPassword as string }),
    );
    const adminSession = ((await signedIn.json()) as { result: { data: { sessionId: string } } })
      .result.data.sessionId;
    const audit = await one.fetch('/mcapi/audit?operation=mc.login&user=olivia', {
      headers: { 'X-As-SessionId': adminSession },
    });
    expect(audit.status).toBe(200);
    const data = (
      (await audit.json()) as {
        result: { data: { total: number; entries: { userName: string; httpStatus: number }[] } };
      }
    ).result.data;
    // Every sign-in of olivia so far, whichever gateway took it.
    expect(data.total).toBeGreaterThanOrEqual(3);
    expect(data.entries[0]).toMatchObject({ userName: 'olivia', httpStatus: 200 });
  });

  it('read anew on one a request retried through the other, whose detail each shared', async () => {
    vendor.addRequests('pl_2', 1, 'broken.csv', 'failed');
    const failed = vendor.requests()[0]?.requestId as string;
    // Whichever gateway holds the poller's lease indexes the new request.
    const poller = (gateway: TestService) =>
      gateway.app.context.services.route('prod')?.upstream?.poller;
    await Promise.all([poller(one)?.pollNow(), poller(two)?.pollNow()]);
    const session = await signIn(one, 'olivia');
    const headers = { 'X-As-SessionId': session };
    const detail = async (gateway: TestService) => {
      const response = await gateway.fetch(
        `/services/prod/pipelineapi/requestdetail/json?requestid=${failed}&applog=true`,
        { headers },
      );
      expect(response.status).toBe(200);
      return ((await response.json()) as { RequestDetail: { Status: string } }).RequestDetail;
    };
    const read = () => vendor.calls().requestdetail ?? 0;
    // The first read tells the shared index that the request ended; then each gateway reads
    // it once for all of its browsers.
    await detail(two);
    const before = read();
    for (let i = 0; i < 3; i++) await Promise.all([detail(one), detail(two)]);
    expect(read()).toBe(before + 2);
    const retried = await one.fetch(
      `/services/prod/pipelineapi/requestretry/json?requestid=${failed}`,
      {
        method: 'PUT',
        headers,
      },
    );
    expect(retried.status).toBe(200);
    const afterRetry = read();
    // The other gateway kept the failure's detail; the store tells it the request runs again.
    expect((await detail(two)).Status).not.toBe(vendor.variant.status.failed);
    expect(read()).toBe(afterRetry + 1);
  });

  it('answer 503 naming the database while it is gone, and serve again once it is back', async () => {
    const session = await signIn(one, 'olivia');
    await cluster.kill();
    try {
      const down = await one.fetch('/mcapi/auth/session', {
        headers: { 'X-As-SessionId': session },
      });
      expect(down.status).toBe(503);
      const body = (await down.json()) as { result: { code: number; message: string } };
      expect(body.result.code).toBe(5003);
      expect(body.result.message).toMatch(
        /database postgres:\/\/pipeline:\*\*\*@127\.0\.0\.1:\d+\/\w+ is unreachable/,
      );
      expect(body.result.message).not.toContain(PG_PASSWORD);
      const ready = await two.fetch('/readyz');
      expect(ready.status).toBe(503);
      const components = ((await ready.json()) as { components: { name: string; state: string }[] })
        .components;
      expect(components).toContainEqual(
        expect.objectContaining({
          name: expect.stringMatching(/^database postgres:\/\/pipeline:\*\*\*@/),
          state: 'failing',
        }),
      );
    } finally {
      await cluster.start();
    }
    // The pools connect again by themselves: the same session serves on both.
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await one.fetch('/mcapi/auth/session', { headers: { 'X-As-SessionId': session } }))
        .status;
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
    expect(
      (await two.fetch('/mcapi/auth/session', { headers: { 'X-As-SessionId': session } })).status,
    ).toBe(200);
  });
});
