import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xmlToTree } from '../../kit/index.ts';
import { REPO_ROOT } from '../app.ts';
import { readConfig } from '../config.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { addUser } from './users.ts';

// Contract section 4 (revised): credentials never add up, the dashboard's calls never get
// a SESSIONID, a cookie alone cannot change anything from another origin, sign-out ends
// the cookie, and the key flag only provisions.

const PASSWORD = 'operator-password-1';
const ADMIN_PASSWORD = 'admin-password-1234';

let service: TestService;

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8', ...headers },
  body: new URLSearchParams(fields).toString(),
});

async function signIn(userName: string, password: string): Promise<string> {
  const response = await service.fetch(
    '/mcapi/auth/login',
    form({ userName, password, getRole: 'true' }),
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { data: { sessionId: string } } };
  return body.result.data.sessionId;
}

/** A live SESSIONID, as a browser that once used the API key would hold. */
async function mintCookie(): Promise<string> {
  const response = await service.keyed('/pipelineapi/version/xml');
  const cookie = /SESSIONID=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  expect(cookie).toBeTruthy();
  return cookie as string;
}

async function codeOf(response: Response): Promise<number | undefined> {
  const tree = xmlToTree(await response.text()) as { ExecuteResponse?: { Code?: unknown } };
  const code = tree.ExecuteResponse?.Code;
  return code === undefined ? undefined : Number(code);
}

beforeAll(async () => {
  service = await startService({
    adminPassword: ADMIN_PASSWORD,
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'cred-defs-'))),
  });
  await addUser(service.app.context.shared, 'olivia', PASSWORD, 'operator', 'now');
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
});

afterAll(async () => {
  await service.close();
});

describe('a session decides alone', () => {
  it('an operator with a live SESSIONID cookie still may not drop tables or execute', async () => {
    const cookie = await mintCookie();
    const session = await signIn('olivia', PASSWORD);
    for (const [path, method] of [
      ['/pipelineapi/droptable/xml?table=ORDERS', 'DELETE'],
      ['/pipelineapi/deletetable/xml?table=ORDERS', 'DELETE'],
    ] as const) {
      const response = await service.fetch(path, {
        method,
        headers: { Cookie: `SESSIONID=${cookie}`, 'X-As-SessionId': session },
      });
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe(1104);
    }
    const exec = await service.fetch(
      '/pipelineapi/exec/xml',
      form(
        { pipelineid: 'pl_1', filename: 'orders.csv' },
        { Cookie: `SESSIONID=${cookie}`, 'X-As-SessionId': session },
      ),
    );
    expect(exec.status).toBe(403);
  });

  it('the API key does not lift a session to its rights either', async () => {
    const session = await signIn('olivia', PASSWORD);
    const response = await service.fetch('/pipelineapi/droptable/xml?table=ORDERS', {
      method: 'DELETE',
      headers: { 'X-Pipelinewebapi': TEST_API_KEY, 'X-As-SessionId': session },
    });
    expect(response.status).toBe(403);
  });

  it('a call with X-As-SessionId never gets a SESSIONID, even with the key beside it', async () => {
    const session = await signIn('olivia', PASSWORD);
    const variants: Record<string, string>[] = [
      { 'X-As-SessionId': session },
      { 'X-As-SessionId': session, 'X-Pipelinewebapi': TEST_API_KEY },
    ];
    for (const headers of variants) {
      const response = await service.fetch('/pipelineapi/list/xml', { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });
});

describe('a cookie alone', () => {
  const exec = (cookie: string, headers: Record<string, string>) =>
    service.fetch(
      '/pipelineapi/exec/xml',
      form(
        { pipelineid: 'pl_1', filename: 'orders.csv' },
        { Cookie: `SESSIONID=${cookie}`, ...headers },
      ),
    );

  it('cannot change anything when a page of another origin sent the call', async () => {
    const cookie = await mintCookie();
    const other = 'http://127.0.0.1:1';
    const variants: Record<string, string>[] = [
      { Origin: other },
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'cross-site', Origin: other },
    ];
    for (const headers of variants) {
      const response = await exec(cookie, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(await codeOf(response)).toBe(1104);
    }
    // Reads stay open to it: a page of another origin cannot read the answer anyway.
    const read = await service.fetch('/pipelineapi/list/xml', {
      headers: { Cookie: `SESSIONID=${cookie}`, 'Sec-Fetch-Site': 'same-site' },
    });
    expect(read.status).toBe(200);
  });

  it('still works for the coordinator client (no Origin) and for the own origin', async () => {
    const cookie = await mintCookie();
    expect((await exec(cookie, {})).status).toBe(200);
    expect(
      (await exec(cookie, { Origin: service.url, 'Sec-Fetch-Site': 'same-origin' })).status,
    ).toBe(200);
    await service.app.engine.whenIdle();
  });
});

describe('sign-out', () => {
  it('clears the SESSIONID the browser holds and ends that cookie session', async () => {
    const cookie = await mintCookie();
    const session = await signIn('olivia', PASSWORD);
    const response = await service.fetch(
      '/mcapi/auth/logout',
      form({ sessionId: session }, { Cookie: `SESSIONID=${cookie}` }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(
      /SESSIONID=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/,
    );
    const after = await service.fetch('/pipelineapi/list/xml', {
      headers: { Cookie: `SESSIONID=${cookie}` },
    });
    expect(after.status).toBe(401);
  });

  it('clears it even when the Part A session was already gone', async () => {
    const response = await service.fetch('/mcapi/auth/logout', form({ sessionId: 'none' }));
    expect(response.status).toBe(404);
    expect(response.headers.get('set-cookie')).toMatch(/^SESSIONID=;/);
  });
});

describe('a restart', () => {
  it('keeps a live SESSIONID live and an ended one ended', async () => {
    const first = await startService({ keepData: true });
    const mint = async () =>
      /SESSIONID=([^;]+)/.exec(
        (await first.keyed('/pipelineapi/version/xml')).headers.get('set-cookie') ?? '',
      )?.[1] as string;
    const [live, ended] = [await mint(), await mint()];
    await first.app.context.access.endCookieSession(ended);
    await first.close();

    const second = await startService({ dataDir: first.dataDir });
    const byCookie = async (cookie: string) =>
      (
        await second.fetch('/pipelineapi/version/xml', {
          headers: { Cookie: `SESSIONID=${cookie}` },
        })
      ).status;
    expect(await byCookie(live)).toBe(200);
    expect(await byCookie(ended)).toBe(401);
    await second.close();
  });
});

describe('browser protections', () => {
  it('every answer carries a strict CSP, no framing and nosniff; API answers are not stored', async () => {
    const page = await service.fetch('/pipelineapi/list/htm', {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const login = await service.fetch(
      '/mcapi/auth/login',
      form({ userName: 'olivia', password: PASSWORD }),
    );
    expect(login.headers.get('cache-control')).toBe('no-store');
    const settings = await service.fetch('/mcapi/pipeline/settings', {
      headers: { 'X-As-SessionId': await signIn('admin', ADMIN_PASSWORD) },
    });
    expect(settings.status).toBe(200);
    expect(settings.headers.get('cache-control')).toBe('no-store');
    const partB = await service.fetch(
      '/api/auth/login',
      form({ user: 'olivia', password: PASSWORD }),
    );
    expect(partB.headers.get('cache-control')).toBe('no-store');
  });
});

describe('timing of Part B sign-in', () => {
  it('a user without a password costs the same work as any other', async () => {
    await addUser(service.app.context.shared, 'robot', '', 'operator', 'now');
    const time = async (fields: Record<string, string>) => {
      const started = performance.now();
      await service.fetch('/api/auth/login', form(fields));
      return performance.now() - started;
    };
    const median = (values: number[]) =>
      values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const passwordless: number[] = [];
    const withPassword: number[] = [];
    for (let i = 0; i < 7; i++) {
      passwordless.push(await time({ user: 'robot' }));
      withPassword.push(await time({ user: 'olivia', password: 'wrong-password' }));
    }
    // Both run one scrypt now; before, the passwordless answer came about 60 times sooner.
    expect(median(passwordless)).toBeGreaterThan(median(withPassword) / 4);
  });
});

describe('files and passwords', () => {
  it('the databases are readable by the service user only', () => {
    for (const name of ['system.db', 'status.db', 'action.db']) {
      expect(statSync(join(service.dataDir, name)).mode & 0o777, name).toBe(0o600);
    }
  });

  it('a password from the environment follows the length rule, and an empty one is refused', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'users-cli-'));
    const run = (password: string) =>
      spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          join(REPO_ROOT, 'src/service/users-cli.ts'),
          'add',
          'ci',
          '--role',
          'administrator',
          '--data',
          dataDir,
        ],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, PIPELINE_USER_PASSWORD: password },
          encoding: 'utf8',
        },
      );
    const empty = run('');
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('PIPELINE_USER_PASSWORD: the password is empty');
    const short = run('short');
    expect(short.status).toBe(1);
    expect(short.stderr).toContain('at least 8 characters');
    const list = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'src/service/users-cli.ts'), 'list', '--data', dataDir],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(list).not.toContain('ci');
    expect(run('long-enough-password').status).toBe(0);
  });

  it('an empty or short administrator password is refused at start', () => {
    expect(() => readConfig(['--admin-password', ''], {})).toThrow(
      /--admin-password: the password is empty/,
    );
    expect(() => readConfig([], { PIPELINE_ADMIN_PASSWORD: 'abc' })).toThrow(
      /at least 8 characters/,
    );
  });
});

describe('the key flag only provisions', () => {
  it('a restart with --api-key brings back neither a reissued key nor a disabled API', async () => {
    const first = await startService({ adminPassword: ADMIN_PASSWORD, keepData: true });
    const { dataDir } = first;
    const admin = await (async () => {
      const response = await first.fetch(
        '/mcapi/auth/login',
        form({ userName: 'admin', password: ADMIN_PASSWORD }),
      );
      return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
        .sessionId;
    })();
    const reissued = await first.fetch('/mcapi/pipeline/apikey', {
      method: 'POST',
      headers: { 'X-As-SessionId': admin },
    });
    const newKey = ((await reissued.json()) as { result: { data: { apiKey: string } } }).result.data
      .apiKey;
    await first.close();

    const second = await startService({ dataDir });
    expect(second.app.apiKeyIgnored).toBe(true);
    expect((await second.keyed('/pipelineapi/version/xml')).status).toBe(401);
    expect(
      (await second.fetch('/pipelineapi/version/xml', { headers: { 'X-Pipelinewebapi': newKey } }))
        .status,
    ).toBe(200);
    await second.app.context.access.setEnabled(false);
    await second.close();

    const third = await startService({ dataDir });
    expect(third.app.context.access.enabled).toBe(false);
    const disabled = await third.fetch('/pipelineapi/version/xml', {
      headers: { 'X-Pipelinewebapi': newKey },
    });
    expect(disabled.status).toBe(403);
    await third.close();
  });
});

describe('the SESSIONID cookie behind an https proxy (issue 39)', () => {
  const https = { 'X-Forwarded-Proto': 'https' };

  it('is Secure when a trusted proxy says the browser came over https, and keeps its name and Path', async () => {
    const behind = await startService({ trustProxy: ['127.0.0.1'] });
    try {
      const minted = await behind.keyed('/pipelineapi/version/xml', { headers: https });
      expect(minted.headers.get('set-cookie')).toMatch(/^SESSIONID=[^;]+;.*Path=\/;.*Secure/);
      const cleared = await behind.fetch('/mcapi/auth/logout', form({ sessionId: 'none' }, https));
      expect(cleared.headers.get('set-cookie')).toMatch(/^SESSIONID=;.*Path=\/;.*Secure/);
      // Over plain http through the same proxy it is not.
      const plain = await behind.keyed('/pipelineapi/version/xml');
      expect(plain.headers.get('set-cookie')).toMatch(/^SESSIONID=/);
      expect(plain.headers.get('set-cookie')).not.toMatch(/Secure/);
    } finally {
      await behind.close();
    }
  });

  it('is not Secure on the word of a proxy nobody trusts', async () => {
    const minted = await service.keyed('/pipelineapi/version/xml', { headers: https });
    expect(minted.headers.get('set-cookie')).toMatch(/^SESSIONID=/);
    expect(minted.headers.get('set-cookie')).not.toMatch(/Secure/);
  });
});
