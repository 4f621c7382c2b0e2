import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OPERATIONS,
  ROLE_OPERATIONS,
  ROLES,
  type OperationName,
  type Role,
} from '../../kit/wire.ts';
import { REPO_ROOT } from '../app.ts';
import { ManualClock } from '../clock.ts';
import { addUser } from './users.ts';
import { formPost, startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';

const PASSWORD = 'correct horse battery staple';
const ADMIN_PASSWORD = 'admin-secret-password-42';

let service: TestService;
let clock: ManualClock;
const logLines: string[] = [];

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
  body: new URLSearchParams(fields).toString(),
});

async function partA(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: { result: Record<string, unknown> }; type: string }> {
  const response = await service.fetch(path, init);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: (await response.json()) as { result: Record<string, unknown> },
  };
}

async function partB(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string; type: string }> {
  const response = await service.fetch(path, init);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

async function login(
  userName: string,
  password = PASSWORD,
  extra: Record<string, string> = {},
): Promise<string> {
  const { status, body } = await partA('/mcapi/auth/login', form({ userName, password, ...extra }));
  expect(status).toBe(200);
  return (body.result.data as { sessionId: string }).sessionId;
}

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  service = await startService({
    clock,
    adminPassword: ADMIN_PASSWORD,
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'auth-defs-'))),
    serverName: 'test-server',
    logger: { level: 'trace', stream: logStream },
  });
  const db = service.app.context.shared;
  const now = new Date().toISOString();
  await addUser(db, 'olivia', PASSWORD, 'operator', now);
  await addUser(db, 'devon', PASSWORD, 'developer', now);
  await addUser(db, 'ada', PASSWORD, 'administrator', now);
  await addUser(db, 'vera', PASSWORD, 'viewer', now);
  await addUser(db, 'robot', '', 'operator', now);
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
});

afterAll(async () => {
  await service.close();
});

describe('Part A: management console login and logout', () => {
  it('logs in with the envelope of the spec, the role only with getRole=true', async () => {
    const plain = await partA(
      '/mcapi/auth/login',
      form({ userName: 'olivia', password: PASSWORD }),
    );
    expect(plain.status).toBe(200);
    expect(plain.type).toBe('application/json; charset=UTF-8');
    expect(plain.body.result.status).toBe('success');
    const data = plain.body.result.data as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(['sessionId', 'serverName', 'serverId']);
    expect(data.serverName).toBe('test-server');
    expect(data.serverId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const withRole = await partA(
      '/mcapi/auth/login',
      form({ userName: 'devon', password: PASSWORD, getRole: 'true' }),
    );
    expect((withRole.body.result.data as Record<string, unknown>).role).toEqual(['developer']);
  });

  it('answers every error of its table with the contract envelope', async () => {
    const cases: [RequestInit, string, number, number][] = [
      [form({ password: PASSWORD }), '/mcapi/auth/login', 400, 2002],
      [form({ userName: 'olivia' }), '/mcapi/auth/login', 400, 2002],
      [
        form({ userName: 'olivia', password: PASSWORD, timeout: 'ten' }),
        '/mcapi/auth/login',
        400,
        2003,
      ],
      [
        form({ userName: 'olivia', password: PASSWORD, timeout: '0' }),
        '/mcapi/auth/login',
        400,
        2003,
      ],
      [
        form({ userName: 'olivia', password: PASSWORD, timeout: '1441' }),
        '/mcapi/auth/login',
        400,
        2003,
      ],
      [
        form({ userName: 'olivia', password: PASSWORD, getRole: 'yes' }),
        '/mcapi/auth/login',
        400,
        2003,
      ],
      [form({ userName: 'olivia', password: 'wrong' }), '/mcapi/auth/login', 403, 3002],
      [form({ userName: 'nobody', password: PASSWORD }), '/mcapi/auth/login', 403, 3002],
      [form({ userName: 'robot', password: 'anything' }), '/mcapi/auth/login', 403, 3002],
      [form({}), '/mcapi/auth/logout', 400, 2002],
      [form({ sessionId: 'no-such-session' }), '/mcapi/auth/logout', 404, 4003],
    ];
    for (const [init, path, status, code] of cases) {
      const answer = await partA(path, init);
      expect(answer.status, `${path} ${String(init.body)}`).toBe(status);
      expect(answer.body.result).toMatchObject({
        status: 'error',
        code,
        message: expect.any(String),
      });
    }
    const unknown = await partA(
      '/mcapi/auth/login',
      form({ userName: 'nobody', password: PASSWORD }),
    );
    const wrong = await partA('/mcapi/auth/login', form({ userName: 'olivia', password: 'wrong' }));
    expect(unknown.body).toEqual(wrong.body); // a failed login never says whether the user exists
  });

  it('logs out once: the session then stops working', async () => {
    const sessionId = await login('olivia');
    expect(
      (
        await service.fetch('/pipelineapi/version/json', {
          headers: { 'X-As-SessionId': sessionId },
        })
      ).status,
    ).toBe(200);
    const out = await partA('/mcapi/auth/logout', form({ sessionId }));
    expect(out).toMatchObject({
      status: 200,
      body: { result: { status: 'success', data: { sessionId } } },
    });
    expect(
      (
        await service.fetch('/pipelineapi/version/json', {
          headers: { 'X-As-SessionId': sessionId },
        })
      ).status,
    ).toBe(401);
    expect((await partA('/mcapi/auth/logout', form({ sessionId }))).status).toBe(404);
  });

  it('answers 5102 when the service fails inside, without details', async () => {
    const other = await startService({ adminPassword: ADMIN_PASSWORD });
    other.app.context.dbs.system.close();
    const response = await other.fetch(
      '/mcapi/auth/login',
      form({ userName: 'admin', password: ADMIN_PASSWORD }),
    );
    const body = (await response.json()) as { result: { code: number; message: string } };
    expect(response.status).toBe(500);
    expect(body.result.code).toBe(5102);
    expect(body.result.message).not.toMatch(/sqlite|database connection|\.ts/i);
    await other.app.server.close();
  });
});

describe('Part B: flow service login and logout', () => {
  it('logs in with XML, a passwordless user without a password', async () => {
    const answer = await partB('/api/auth/login', form({ user: 'olivia', password: PASSWORD }));
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/xml; charset=UTF-8');
    expect(answer.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<result><status>success<\/status><data><sessionId>[\w-]+<\/sessionId><\/data><\/result>$/,
    );
    const robot = await partB('/api/auth/login', form({ user: 'robot' }));
    expect(robot.status).toBe(200);
  });

  it('answers every error of its table', async () => {
    const cases: [string, Record<string, string>, number, number][] = [
      ['/api/auth/login', { password: PASSWORD }, 400, 2000],
      ['/api/auth/login', { user: 'olivia', password: PASSWORD, lifetime: '-5' }, 400, 2000],
      ['/api/auth/login', { user: 'olivia', password: 'wrong' }, 403, 2001],
      ['/api/auth/login', { user: 'olivia' }, 403, 2001],
      ['/api/auth/login', { user: 'robot', password: 'x' }, 403, 2001],
      ['/api/auth/login', { user: 'ghost' }, 403, 2001],
      ['/api/auth/logout', {}, 400, 2000],
      ['/api/auth/logout', { sessionId: 'nope' }, 404, 2002],
    ];
    for (const [path, fields, status, code] of cases) {
      const answer = await partB(path, form(fields));
      expect(answer.status, `${path} ${JSON.stringify(fields)}`).toBe(status);
      expect(answer.text).toContain(`<result><status>error</status><code>${code}</code><message>`);
    }
  });

  it('checks X-Fs-SessionId beyond login and logout, and logs out', async () => {
    const text = (await partB('/api/auth/login', form({ user: 'devon', password: PASSWORD }))).text;
    const sessionId = /<sessionId>([^<]+)</.exec(text)?.[1] as string;
    expect((await service.fetch('/api/auth/session')).status).toBe(401);
    const ok = await partB('/api/auth/session', { headers: { 'X-Fs-SessionId': sessionId } });
    expect(ok.text).toContain('<user>devon</user><role>developer</role>');
    // A flow service session is not a management console one.
    expect(
      (
        await service.fetch('/pipelineapi/version/json', {
          headers: { 'X-As-SessionId': sessionId },
        })
      ).status,
    ).toBe(401);
    expect((await partB('/api/auth/logout', form({ sessionId }))).status).toBe(200);
    expect(
      (await service.fetch('/api/auth/session', { headers: { 'X-Fs-SessionId': sessionId } }))
        .status,
    ).toBe(401);
  });
});

describe('session expiry (injected clock)', () => {
  it('Part A timeout is idle: each call extends it', async () => {
    const sessionId = await login('olivia', PASSWORD, { timeout: '1' });
    const use = () =>
      service.fetch('/mcapi/auth/session', { headers: { 'X-As-SessionId': sessionId } });
    clock.advance(50_000);
    expect((await use()).status).toBe(200);
    clock.advance(50_000);
    expect((await use()).status).toBe(200);
    clock.advance(61_000);
    const expired = await use();
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { result: { code: number } }).result.code).toBe(3001);
  });

  it('Part A default timeout is 30 minutes', async () => {
    const sessionId = await login('olivia');
    const use = () =>
      service.fetch('/pipelineapi/version/json', { headers: { 'X-As-SessionId': sessionId } });
    clock.advance(29 * 60_000);
    expect((await use()).status).toBe(200);
    clock.advance(30 * 60_000 + 1000);
    expect((await use()).status).toBe(401);
  });

  it('Part B lifetime is absolute: use does not extend it', async () => {
    const text = (
      await partB('/api/auth/login', form({ user: 'devon', password: PASSWORD, lifetime: '1' }))
    ).text;
    const sessionId = /<sessionId>([^<]+)</.exec(text)?.[1] as string;
    const use = () =>
      service.fetch('/api/auth/session', { headers: { 'X-Fs-SessionId': sessionId } });
    clock.advance(40_000);
    expect((await use()).status).toBe(200);
    clock.advance(21_000);
    expect((await use()).status).toBe(401);
  });
});

describe('roles on the pipeline API', () => {
  const fieldsOf = (op: OperationName): Record<string, string> => {
    switch (op) {
      case 'exec':
        return { pipelineid: 'pl_1', filename: 'orders.csv' };
      case 'requestdetail':
      case 'requestretry':
      case 'requestcancel':
        return { requestid: 'pl_1-20200101_00-000001' };
      case 'resume':
      case 'suspend':
        return { pipelineid: 'pl_3' };
      case 'pipelinecache':
        return { pipelineid: 'pl_1', sensor: 'true' };
      case 'deletetable':
      case 'droptable':
        return { table: 'NO_SUCH_TABLE' };
      default:
        return {};
    }
  };

  async function call(
    op: OperationName,
    sessionId: string,
  ): Promise<{ status: number; code: number | undefined }> {
    const method = OPERATIONS[op];
    const body = new URLSearchParams(fieldsOf(op)).toString();
    const hasBody = method === 'POST' || method === 'PUT';
    const response = await service.fetch(`/pipelineapi/${op}/json${hasBody ? '' : `?${body}`}`, {
      method,
      headers: {
        'X-As-SessionId': sessionId,
        ...(hasBody ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(hasBody ? { body } : {}),
    });
    const json = (await response.json()) as { ExecuteResponse?: { Code?: number } };
    return { status: response.status, code: json.ExecuteResponse?.Code };
  }

  it('lets each role call exactly its operations; the others get 403/1104 and change nothing', async () => {
    const users: Record<Role, string> = {
      viewer: 'vera',
      operator: 'olivia',
      developer: 'devon',
      administrator: 'ada',
    };
    for (const role of ROLES) {
      const sessionId = await login(users[role]);
      for (const op of Object.keys(OPERATIONS) as OperationName[]) {
        const before = (await service.client.requestList({ id: 'pl_1' })).info.total;
        const result = await call(op, sessionId);
        if (ROLE_OPERATIONS[role].has(op)) {
          expect(result.status, `${role} ${op}`).not.toBe(403);
          expect(result.status, `${role} ${op}`).toBeLessThan(500);
        } else {
          expect(result, `${role} ${op}`).toEqual({ status: 403, code: 1104 });
          expect((await service.client.requestList({ id: 'pl_1' })).info.total).toBe(before);
        }
      }
    }
    expect([...ROLE_OPERATIONS.operator].sort()).toEqual(
      [
        'list',
        'requestlist',
        'requestdetail',
        'requeststats',
        'inbox',
        'version',
        'systemdb',
        'statusdb',
        'actiondb',
        'resume',
        'suspend',
        'requestretry',
        'requestcancel',
      ].sort(),
    );
    expect(ROLE_OPERATIONS.developer.has('exec')).toBe(true);
    expect(ROLE_OPERATIONS.developer.has('droptable')).toBe(false);
  });

  it('refuses an operator the destructive table calls and leaves the table as it was', async () => {
    const admin = await login('ada');
    const exec = await service.fetch('/pipelineapi/exec/json', {
      method: 'POST',
      headers: { 'X-As-SessionId': admin, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'pipelineid=pl_1&filename=orders.csv',
    });
    expect(exec.status).toBe(200);
    await service.app.engine.whenIdle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await service.app.engine.whenIdle();
    const rows = (await service.client.table('action', 'ORDERS')).info.total;
    expect(rows).toBeGreaterThan(0);
    const operator = await login('olivia');
    for (const op of ['deletetable', 'droptable']) {
      const response = await service.fetch(`/pipelineapi/${op}/json?table=ORDERS`, {
        method: 'DELETE',
        headers: { 'X-As-SessionId': operator },
      });
      expect(response.status).toBe(403);
    }
    expect((await service.client.table('action', 'ORDERS')).info.total).toBe(rows);
  });
});

describe('API settings', () => {
  it('are for administrators only: 401/3001 without a session, 403/3003 for other roles', async () => {
    expect((await partA('/mcapi/pipeline/settings')).body.result).toMatchObject({ code: 3001 });
    const operator = await login('olivia');
    const denied = await partA('/mcapi/pipeline/settings', {
      headers: { 'X-As-SessionId': operator },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.result.code).toBe(3003);
    const admin = await login('ada');
    const read = await partA('/mcapi/pipeline/settings', { headers: { 'X-As-SessionId': admin } });
    expect(read.body.result.data).toEqual({
      apiEnabled: true,
      apiKey: TEST_API_KEY,
      sharedKeyEnabled: true,
    });
  });

  it('disable and enable the API, and reissue the key: the old key and its cookies stop at once', async () => {
    const admin = await login('ada');
    const headers = {
      'X-As-SessionId': admin,
      'Content-Type': 'application/x-www-form-urlencoded',
    };
    const cookie = (
      (await service.keyed('/pipelineapi/version/json')).headers.get('set-cookie') ?? ''
    ).split(';')[0] as string;
    const off = await partA('/mcapi/pipeline/settings', {
      method: 'PUT',
      headers,
      body: 'apiEnabled=false',
    });
    expect(off.body.result.data).toMatchObject({ apiEnabled: false });
    expect((await service.keyed('/pipelineapi/version/json')).status).toBe(403);
    await partA('/mcapi/pipeline/settings', { method: 'PUT', headers, body: 'apiEnabled=true' });
    expect((await service.keyed('/pipelineapi/version/json')).status).toBe(200);
    const reissued = await partA('/mcapi/pipeline/apikey', { method: 'POST', headers });
    const newKey = (reissued.body.result.data as { apiKey: string }).apiKey;
    expect(newKey).toMatch(/^[\w-]{43}$/);
    expect((await service.keyed('/pipelineapi/version/json')).status).toBe(401);
    expect(
      (await service.fetch('/pipelineapi/version/json', { headers: { Cookie: cookie } })).status,
    ).toBe(401);
    expect(
      (
        await service.fetch('/pipelineapi/version/json', {
          headers: { 'X-Pipelinewebapi': newKey },
        })
      ).status,
    ).toBe(200);
    await service.app.context.access.reissue(TEST_API_KEY);
  });
});

describe('secrets at rest and in logs', () => {
  it('stores only scrypt hashes and hashed session ids, and logs neither passwords nor ids', async () => {
    const sessionId = await login('ada');
    const files = readdirSync(service.dataDir).filter((n) => n.startsWith('system.db'));
    const bytes = Buffer.concat(files.map((n) => readFileSync(join(service.dataDir, n))));
    for (const secret of [PASSWORD, ADMIN_PASSWORD, sessionId])
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(bytes.includes(Buffer.from('scrypt$32768$8$1$'))).toBe(true);
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [PASSWORD, ADMIN_PASSWORD, sessionId])
      expect(log.includes(secret)).toBe(false);
  });

  it('keeps sessions across a restart', async () => {
    const other = await startService({ adminPassword: ADMIN_PASSWORD, keepData: true });
    const sessionId = (
      (await (
        await other.fetch(
          '/mcapi/auth/login',
          form({ userName: 'admin', password: ADMIN_PASSWORD }),
        )
      ).json()) as {
        result: { data: { sessionId: string } };
      }
    ).result.data.sessionId;
    await other.app.close();
    const again = await startService({ dataDir: other.dataDir });
    expect(
      (await again.fetch('/mcapi/auth/session', { headers: { 'X-As-SessionId': sessionId } }))
        .status,
    ).toBe(200);
    await again.close();
  });

  it('creates admin on first start with a random password in a 0600 file when none is given', async () => {
    const other = await startService({});
    const password = other.app.initialAdminPassword as string;
    expect(password).toMatch(/^[\w-]{20}$/);
    const file = join(other.dataDir, 'initial-admin-password');
    expect(readFileSync(file, 'utf8').trim()).toBe(password);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(
      (await other.fetch('/mcapi/auth/login', form({ userName: 'admin', password }))).status,
    ).toBe(200);
    await other.close();
  });
});

describe('sign-in attempts', () => {
  it('count every sign-in route together per address, and failures per account across addresses', async () => {
    // Windows are fixed (a minute per address, an hour per account): a clock of the test's own
    // keeps every try within them, however slowly the machine checks each password.
    const limitClock = new ManualClock(Date.UTC(2026, 11, 2, 8, 0, 0));
    const other = await startService({
      adminPassword: ADMIN_PASSWORD,
      clock: limitClock,
      loginLimit: { max: 3, timeWindow: 60_000 },
      accountLoginLimit: { max: 4, timeWindow: 3_600_000 },
      // Tries from other addresses, as a trusted proxy tells them.
      trustProxy: ['127.0.0.1'],
    });
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    const partA = (password: string, address = '10.0.0.1') =>
      other.fetch('/mcapi/auth/login', formPost({ userName: 'admin', password }, from(address)));
    const partB = (address = '10.0.0.1') =>
      other.fetch('/api/auth/login', formPost({ user: 'ADMIN', password: 'wrong' }, from(address)));
    expect((await partA('wrong')).status).toBe(403);
    expect((await partB()).status).toBe(403);
    expect((await partA('wrong')).status).toBe(403);
    // The fourth from that address, on either Part: refused, saying when to try again.
    for (const limited of [await partA(ADMIN_PASSWORD), await partB()]) {
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('60');
    }
    const limited = await partA('wrong');
    const body = (await limited.json()) as { result: { code: number; message: string } };
    expect(body.result).toMatchObject({
      code: 4029,
      message: 'Too many sign-in attempts from this address; try again in 60 s.',
    });
    // Another address is not held up by it; after the window the first may try again.
    expect((await partA(ADMIN_PASSWORD, '10.0.0.2')).status).toBe(200);
    limitClock.advance(60_000);
    expect((await partA(ADMIN_PASSWORD)).status).toBe(200);
    // The account fails a fourth time, from an address of its own: its limit of failures is
    // reached, and from anywhere, the right password too, it waits for its hour. Successes
    // never counted: a robot signing in often with its password is not locked out.
    expect((await partB('10.0.0.3')).status).toBe(403);
    const spread = await partA(ADMIN_PASSWORD, '10.0.0.4');
    expect(spread.status).toBe(429);
    expect(spread.headers.get('retry-after')).toBe('3540');
    expect(await spread.text()).toContain('Too many sign-in attempts for this account');
    await other.close();
  });
});

describe('users command', () => {
  it('adds, lists, changes and removes users', () => {
    const data = mkdtempSync(join(tmpdir(), 'users-cli-'));
    const run = (...args: string[]) =>
      execFileSync(
        process.execPath,
        ['--import', 'tsx', join(REPO_ROOT, 'src/service/users-cli.ts'), ...args, '--data', data],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, PIPELINE_USER_PASSWORD: 'a-long-password' },
          encoding: 'utf8',
        },
      );
    expect(run('add', 'alice', '--role', 'operator')).toBe('added alice (operator)\n');
    expect(run('list')).toBe('alice\toperator\n');
    expect(run('passwd', 'alice')).toBe(
      'password of alice changed; their sessions ended\n0 personal tokens of alice ended\n',
    );
    expect(() => run('add', 'bob', '--role', 'king')).toThrow(
      /--role must be one of administrator, developer, operator/,
    );
    expect(run('remove', 'alice')).toBe('removed alice\n');
    expect(run('list')).toBe('');
  });
});
