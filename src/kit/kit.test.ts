import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../service/auth/users.ts';
import { writeTestPipelines, ordersCsv } from '../service/testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../service/testing/service.ts';
import { run } from './cli/pipelinectl.ts';
import {
  FlowServiceClient,
  HttpError,
  ManagementConsoleClient,
  NetworkError,
  PipelineClient,
  PipelineResult,
  ResultFormat,
  ResultStatus,
  TimeoutError,
  parseServiceDate,
  type Format,
} from './index.ts';

let service: TestService;
let requestId: string;
let failedId: string;

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'kit-defs-'))),
    adminPassword: 'admin-password-1',
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), ordersCsv(25));
  requestId = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
  failedId = (await service.client.exec('pl_1', 'missing.csv')).requestId as string;
  await service.app.engine.whenIdle();
  await addUser(
    service.app.context.shared,
    'olivia',
    'operator-password',
    'operator',
    new Date().toISOString(),
  );
  await addUser(service.app.context.shared, 'robot', '', 'operator', new Date().toISOString());
});

afterAll(async () => {
  await service.close();
});

describe('the spec-shaped client', () => {
  it('answers the raw get path of the spec with status, format, response and text', async () => {
    const client = new PipelineClient({
      apiKey: TEST_API_KEY,
      baseUrl: service.url,
      fetch: service.checkedFetch,
    });
    const xml = await client.get('/list/xml');
    expect(xml.status()).toBe(ResultStatus.OK);
    expect(xml.format()).toBe(ResultFormat.XML);
    expect(xml.text()).toMatch(/^<\?xml/);
    expect(xml.response()).toMatchObject({ PipelineList: { PipeLine: expect.any(Array) } });
    const json = await client.get('/list/json');
    expect(json.format()).toBe(ResultFormat.Json);
    expect(json.response()).toEqual(xml.response());
    const html = await client.get('/list/htm');
    expect(html.format()).toBe(ResultFormat.Html);
    expect(html.status()).toBe(ResultStatus.OK);
    const bare = await client.get('/list');
    expect(bare.format()).toBe(ResultFormat.XML);
    const detail = await client.get('/requestdetail/xml', {
      requestid: requestId,
      requestlog: 'true',
      applog: 'true',
    });
    expect(detail.response()).toMatchObject({
      RequestDetail: { RequestId: requestId, Status: 'Finish' },
    });
    const list = await client.get('/requestlist/json', {
      id: 'pl_1',
      date: requestId.slice(5, 13),
    });
    expect(list.status()).toBe(ResultStatus.OK);
  });

  it('also works from host and port, and through a proxy base path', async () => {
    const { hostname, port } = new URL(service.url);
    const byHost = new PipelineClient({
      apiKey: TEST_API_KEY,
      host: hostname,
      port: Number(port),
      fetch: service.checkedFetch,
    });
    expect(await byHost.version()).toBe(service.app.context.version);
    const proxied = new PipelineClient({
      apiKey: TEST_API_KEY,
      baseUrl: service.url,
      fetch: service.checkedFetch,
      basePath: '/ops',
    });
    expect(proxied.urlOf('/list/xml')).toBe(`${service.url}/ops/pipelineapi/list/xml`);
  });

  it('maps 4xx to Error, 5xx to SystemError, and an unreadable 2xx to Unknown', async () => {
    const client = new PipelineClient({
      apiKey: TEST_API_KEY,
      baseUrl: service.url,
      fetch: service.checkedFetch,
    });
    const missing = await client.get('/requestdetail/xml');
    expect(missing.status()).toBe(ResultStatus.Error);
    expect(missing.error()).toEqual({ code: 1001, message: 'Parameter requestid is required.' });
    const unauthorised = await new PipelineClient({
      baseUrl: service.url,
      fetch: service.checkedFetch,
    }).get('/list/json');
    expect(unauthorised.status()).toBe(ResultStatus.Error);

    const broken = await startService({});
    broken.app.context.dbs.system.close();
    const failing = await new PipelineClient({
      apiKey: TEST_API_KEY,
      baseUrl: broken.url,
      fetch: broken.checkedFetch,
    }).get('/list/json');
    expect(failing.httpStatus).toBe(500);
    expect(failing.status()).toBe(ResultStatus.SystemError);
    expect(failing.error().code).toBe(5000);
    await broken.app.server.close();

    // A real 200 with nothing to read: the answer to HEAD.
    const head = await fetch(`${service.url}/pipelineapi/version/xml`, {
      method: 'HEAD',
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    expect(head.status).toBe(200);
    const result = new PipelineResult(
      head.status,
      head.headers.get('content-type') ?? '',
      await head.text(),
      'HEAD',
      '/version/xml',
    );
    expect(result.status()).toBe(ResultStatus.Unknown);
  });

  it('throws typed errors: HttpError with code and message, NetworkError, TimeoutError', async () => {
    await expect(service.client.resume('pl_99')).rejects.toMatchObject({
      name: 'HttpError',
      status: 404,
      code: 1201,
      serviceMessage: 'Pipeline pl_99 does not exist.',
    });
    await expect(service.client.retry(requestId)).rejects.toBeInstanceOf(HttpError);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      new PipelineClient({ host: '127.0.0.1', port, apiKey: 'k' }).version(),
    ).rejects.toBeInstanceOf(NetworkError);
    // A real socket that accepts and never answers.
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    await expect(
      new PipelineClient({
        host: '127.0.0.1',
        port: silentPort,
        apiKey: 'k',
        timeoutMs: 200,
      }).version(),
    ).rejects.toMatchObject({ name: 'TimeoutError', timeoutMs: 200 });
    await expect(
      new PipelineClient({
        host: '127.0.0.1',
        port: silentPort,
        apiKey: 'k',
        timeoutMs: 200,
      }).version(),
    ).rejects.toBeInstanceOf(TimeoutError);
    silent.close();
  });
});

describe('typed calls decode XML and JSON to the same records', () => {
  const both = async <T>(call: (format: Format) => Promise<T>): Promise<T> => {
    const [xml, json] = [await call('xml'), await call('json')];
    expect(xml).toEqual(json);
    return json;
  };

  it('reads: pipelines, requests, detail, version, databases', async () => {
    const pipelines = await both((f) => service.client.listPipelines(f));
    expect(pipelines[0]).toMatchObject({ id: 'pl_1', args: [{ name: 'minAmount', value: '10' }] });
    expect(pipelines[0]?.created?.epochMs).toEqual(expect.any(Number));
    const list = await both((f) => service.client.requestList({ id: 'pl_1', pageSize: 1 }, f));
    expect(list.info).toMatchObject({ count: 1, total: 2, next: 1, prev: -1, error: false });
    expect(list.requests[0]?.requestId).toBe(failedId);
    const detail = await both((f) =>
      service.client.requestDetail(requestId, { requestLog: true, appLog: true }, f),
    );
    expect(detail.requestLog?.[0]).toMatchObject({ actionOrder: 0, event: 'Start' });
    expect(typeof detail.appLog?.[0]?.index).toBe('number');
    expect(await both((f) => service.client.version(f))).toBe(service.app.context.version);
    const tables = await both((f) => service.client.tables('status', {}, f));
    const status = await both((f) =>
      service.client.table(
        'status',
        tables.tables.find((t) => t.startsWith('STATUS')) as string,
        {},
        f,
      ),
    );
    expect(status.rows.some((r) => r.includes(null))).toBe(true);
    await both((f) => service.client.systemDb('PIPELINE', {}, f));
    await both((f) => service.client.actionDb(undefined, {}, f));
    await both((f) => service.client.statusDb(undefined, { pageSize: 2 }, f));
  });

  it('writes: exec, suspend, resume, retry, cancel, clear cache, delete and drop', async () => {
    const xmlExec = await service.client.exec('pl_3', 'a.csv', {}, 'xml');
    const jsonExec = await service.client.exec('pl_3', 'b.csv', {}, 'json');
    expect({ ...xmlExec, requestId: '' }).toEqual({ ...jsonExec, requestId: '' });
    expect(xmlExec).toMatchObject({
      status: 'OK',
      message: 'Success',
      requestId: expect.stringMatching(/^pl_3-/),
    });
    await both((f) =>
      service.client
        .cancel(f === 'xml' ? (xmlExec.requestId as string) : (jsonExec.requestId as string), f)
        .then((r) => r),
    );
    for (const f of ['xml', 'json'] as const) {
      expect(await service.client.suspend('pl_1', f)).toMatchObject({ status: 'OK' });
      expect(await service.client.resume('pl_1', f)).toMatchObject({ status: 'OK' });
      expect(await service.client.clearCache('pl_1', { sensor: true }, f)).toMatchObject({
        status: 'OK',
      });
    }
    const retried = await both(async (f) => {
      const r = await service.client.retry(failedId, f);
      await service.app.engine.whenIdle();
      await new Promise((resolve) => setTimeout(resolve, 30));
      await service.app.engine.whenIdle();
      return r;
    });
    expect(retried.status).toBe('OK');
    const deleted = await both(async (f) => ({
      ...(await service.client.deleteTable('ORDERS', f)),
      rowCount: 0,
    }));
    expect(deleted.status).toBe('OK');
    writeFileSync(join(service.dataDir, 'inbox', 'e.jsonl'), '{"kind":"a","n":1}\n');
    await service.client.exec('pl_2', 'e.jsonl');
    await service.app.engine.whenIdle();
    expect((await service.client.dropTable('EVENTS', 'xml')).rowCount).toBe(1);
  });
});

describe('session clients', () => {
  it('management console: login with role, session, settings, pipeline client, logout', async () => {
    const mc = new ManagementConsoleClient({ baseUrl: service.url, fetch: service.checkedFetch });
    const login = await mc.login({
      userName: 'admin',
      password: 'admin-password-1',
      getRole: true,
    });
    expect(login).toMatchObject({
      role: 'administrator',
      serverId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(await mc.session()).toMatchObject({ userName: 'admin', role: 'administrator' });
    expect(await mc.settings()).toEqual({
      apiEnabled: true,
      apiKey: TEST_API_KEY,
      sharedKeyEnabled: true,
    });
    expect((await mc.pipelineClient().listPipelines()).length).toBe(3);
    await mc.logout();
    await expect(
      new ManagementConsoleClient({
        baseUrl: service.url,
        fetch: service.checkedFetch,
        sessionId: login.sessionId,
      }).session(),
    ).rejects.toMatchObject({ status: 401, code: 3001 });
    await expect(mc.login({ userName: 'admin', password: 'nope' })).rejects.toMatchObject({
      status: 403,
      code: 3002,
    });
    const operator = new ManagementConsoleClient({
      baseUrl: service.url,
      fetch: service.checkedFetch,
    });
    await operator.login({ userName: 'olivia', password: 'operator-password' });
    await expect(operator.settings()).rejects.toMatchObject({ status: 403, code: 3003 });
    await expect(operator.pipelineClient().dropTable('ORDERS')).rejects.toMatchObject({
      status: 403,
      code: 1104,
    });
  });

  it('flow service: login without a password, session, logout, errors', async () => {
    const fs = new FlowServiceClient({ baseUrl: service.url, fetch: service.checkedFetch });
    const id = await fs.login({ user: 'robot' });
    expect(id).toMatch(/^[\w-]{43}$/);
    expect(await fs.session()).toMatchObject({ user: 'robot', role: 'operator' });
    await fs.logout();
    await expect(fs.logout(id)).rejects.toMatchObject({ status: 404, code: 2002 });
    await expect(fs.login({ user: 'robot', password: 'x' })).rejects.toMatchObject({
      status: 403,
      code: 2001,
    });
  });
});

describe('parseServiceDate', () => {
  it('reads the three shapes and the instant where the zone makes it certain', () => {
    expect(parseServiceDate('2026-11-21T09:30:00.250 UTC')?.epochMs).toBe(
      Date.UTC(2026, 10, 21, 9, 30, 0, 250),
    );
    expect(parseServiceDate('2026-11-21T18:30:00.000 GMT+9')?.epochMs).toBe(
      Date.UTC(2026, 10, 21, 9, 30),
    );
    expect(parseServiceDate('2026-11-21T18:30:00.000 JST')).toMatchObject({
      zone: 'JST',
      epochMs: null,
      local: '2026-11-21T18:30:00.000',
    });
    expect(parseServiceDate('2026/11/21 09:30:00')?.local).toBe('2026-11-21T09:30:00');
    expect(parseServiceDate('')).toBeNull();
  });
});

describe('pipelinectl', () => {
  const ctl = async (...args: string[]): Promise<{ code: number; out: string }> => {
    let out = '';
    const code = await run(
      [...args, '--url', service.url, '--key', TEST_API_KEY],
      {},
      (t) => (out += t),
    );
    return { code, out };
  };

  it('prints tables for people and JSON for scripts', async () => {
    const list = await ctl('list');
    expect(list.out.split('\n')[0]).toMatch(/^Id\s+Name\s+Runmode\s+Updated\s+Args$/);
    expect(list.out).toContain('minAmount=10');
    const json = JSON.parse((await ctl('list', '--json')).out) as { id: string }[];
    expect(json.map((p) => p.id)).toEqual(['pl_1', 'pl_2', 'pl_3']);
    const exec = await ctl(
      'exec',
      'pl_1',
      '--file',
      'orders.csv',
      '--arg',
      'minAmount=5',
      '--json',
    );
    const id = (JSON.parse(exec.out) as { requestId: string }).requestId;
    await service.app.engine.whenIdle();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await service.app.engine.whenIdle();
    const detail = await ctl('detail', id, '--logs');
    expect(detail.out).toMatch(/status\s+Finish/);
    expect(detail.out).toContain('Request log');
    expect(detail.out).toContain('Filter kept');
    const requests = await ctl(
      'requests',
      '--date',
      id.slice(5, 13),
      '--pipeline',
      'pl_1',
      '--wire',
      'xml',
    );
    expect(requests.out).toContain(id);
    const stats = await ctl('requeststats', '--date', id.slice(5, 13), '--wire', 'xml');
    const lines = stats.out.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${id.slice(5, 13)}: \\d+ requests$`));
    expect(lines[1]).toMatch(/^Id\s+Name\s+Finish/);
    expect(stats.out).toMatch(/\nHour\s+Finish/);
    const statsJson = JSON.parse(
      (await ctl('requeststats', '--date', id.slice(5, 13), '--pipeline', 'pl_1', '--json')).out,
    ) as { total: number; pipelines: { id: string }[] };
    expect(statsJson.pipelines.map((p) => p.id)).toEqual(['pl_1']);
    expect(statsJson.total).toBeGreaterThanOrEqual(1);
    expect((await ctl('db', 'status')).out).toContain(`STATUS${id.slice(5, 13)}`);
    expect((await ctl('db', 'action', 'ORDERS', '--page-size', '2')).out).toMatch(
      /ORDERS: rows 1-2 of \d+/,
    );
    expect((await ctl('suspend', 'pl_1')).out).toBe('OK Success\n');
    expect((await ctl('resume', 'pl_1')).out).toBe('OK Success\n');
    expect((await ctl('version')).out.trim()).toBe(service.app.context.version);
  });

  it('exec --wait follows a request of our service to its end: exit 0 when it finished, 1 when not', async () => {
    const finished = await ctl('exec', 'pl_1', '--file', 'orders.csv', '--wait');
    expect(finished.code).toBe(0);
    const [started, ended] = finished.out.split('\n');
    const id = /^OK Success (pl_1-\S+)$/.exec(started ?? '')?.[1] as string;
    expect(id).toBeDefined();
    expect(ended).toMatch(new RegExp(`^${id} ended Finish \\(Complete\\) at \\S`));
    const failed = await ctl('exec', 'pl_1', '--file', 'missing.csv', '--wait', '--json');
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.out)).toMatchObject({
      requestIdFrom: 'service',
      outcome: 'failed',
      detail: { status: 'Error' },
    });
  });

  it("keeps NULL apart from '' in db --json, from XML and JSON alike, and in HTML", async () => {
    const day = requestId.slice(5, 13);
    for (const wire of ['xml', 'json']) {
      const status = JSON.parse(
        (await ctl('db', 'status', `STATUS${day}`, '--json', '--wire', wire)).out,
      ) as { columns: { name: string }[]; rows: (string | null)[][] };
      const errorMsg = status.columns.findIndex((c) => c.name === 'ERRORMSG');
      const row = status.rows.find((r) => r[0] === requestId);
      expect(row?.[errorMsg]).toBeNull();
      const orders = JSON.parse(
        (await ctl('db', 'action', 'ORDERS', '--json', '--wire', wire)).out,
      ) as { rows: (string | null)[][] };
      expect(orders.rows.map((r) => r[3])).toContain('');
      expect(orders.rows.flat()).not.toContain(null);
    }
    const client = new PipelineClient({
      apiKey: TEST_API_KEY,
      baseUrl: service.url,
      fetch: service.checkedFetch,
    });
    const records = async (type: string) =>
      (
        (await client.get(`/statusdb/${type}`, { tablename: `STATUS${day}` })).response()
          ?.Result as {
          Record: unknown;
        }
      ).Record;
    const xml = await records('xml');
    expect(JSON.stringify(xml)).toContain('null');
    expect(await records('json')).toEqual(xml);
    expect(await records('htm')).toEqual(xml);
  });

  it('reports service errors through HttpError and usage errors plainly', async () => {
    await expect(ctl('retry', requestId)).rejects.toMatchObject({ status: 409, code: 1301 });
    await expect(ctl('exec', 'pl_1')).rejects.toThrow('exec needs --file');
    await expect(ctl('db', 'nowhere')).rejects.toThrow('db takes system, status or action');
    await expect(run([], {}, () => undefined)).rejects.toThrow('no command given');
  });
});
