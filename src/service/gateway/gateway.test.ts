import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient, xmlToTree } from '../../kit/index.ts';
import { addUser } from '../auth/users.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import {
  formPost,
  signIn as signInAs,
  startService,
  TEST_API_KEY,
  type TestService,
} from '../testing/service.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../testing/vendor/vendor-service.ts';
import { readServicesFile, ServicesFileError, type ServiceEntry } from './services.ts';

// The server in front of other pipeline services (contract section 7): people sign in
// with their own accounts and roles, the upstream's key stays on the server, and whatever
// the upstream does, browsers get our contract's answers.

const PASSWORD = 'gateway-password-1';

const signIn = (gateway: TestService, userName: string) => signInAs(gateway, userName, PASSWORD);

async function startGateway(services: readonly ServiceEntry[]) {
  const gateway = await startService({ services, demo: false, apiKey: undefined });
  const db = gateway.app.context.shared;
  await addUser(db, 'olivia', PASSWORD, 'operator', 'now');
  await addUser(db, 'devon', PASSWORD, 'developer', 'now');
  return gateway;
}

function codeOf(text: string): number | undefined {
  const code = (xmlToTree(text) as { ExecuteResponse?: { Code?: number } }).ExecuteResponse?.Code;
  return code;
}

describe('a services file', () => {
  const write = (text: string): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'services-')), 'services.yaml');
    writeFileSync(path, text);
    return path;
  };

  it('reads services with keys inline or from the environment, labels and colours', () => {
    const path = write(
      [
        '- { id: local, embedded: true }',
        '- id: prod',
        '  name: Production',
        '  url: https://pipelines.example:25080/',
        '  apiKeyEnv: PROD_KEY',
        '  label: production',
        '  color: red',
      ].join('\n'),
    );
    expect(readServicesFile(path, { PROD_KEY: 'k-123' })).toEqual([
      { id: 'local', name: 'Embedded service', embedded: true, label: undefined, color: undefined },
      {
        id: 'prod',
        name: 'Production',
        url: 'https://pipelines.example:25080',
        apiKey: 'k-123',
        label: 'production',
        color: 'red',
      },
    ]);
  });

  it('refuses a duplicate id, a bad URL, a missing key variable and an unknown field, naming the line', () => {
    const cases: [string, RegExp][] = [
      [
        '- { id: a, url: "http://x", apiKey: k }\n- { id: a, url: "http://y", apiKey: k }',
        /:2: id a is used twice \(first at .*:1\)/,
      ],
      ['- { id: a, url: "ftp://x", apiKey: k }', /:1: url must be an http or https URL/],
      [
        '- id: a\n  url: http://x\n  apiKeyEnv: NOPE',
        /:1: service a takes its key from NOPE, which is not set/,
      ],
      ['- { id: a, url: "http://x", apiKey: k, colour: red }', /:1: unknown field colour/],
      ['- { id: "Not An Id", url: "http://x", apiKey: k }', /:1: id must be 1 to 32/],
      [
        '- { id: a, url: "http://x", apiKey: k, fileNames: maybe }',
        /:1: fileNames must be true or false/,
      ],
    ];
    for (const [text, message] of cases) {
      expect(() => readServicesFile(write(text), {}), text).toThrow(ServicesFileError);
      expect(() => readServicesFile(write(text), {}), text).toThrow(message);
    }
  });

  it('refuses a url that carries a user, a password, a query or a fragment, naming the service and never the secret (issue 39)', () => {
    for (const [url, carried] of [
      ['http://user:s3cret-pw@host:25080', 'a user name and a password'],
      ['http://host:25080/api?token=s3cret-pw', 'a query'],
      ['http://host:25080/#s3cret-pw', 'a fragment'],
    ] as const) {
      const text = `- { id: prod, url: "${url}", apiKeyEnv: PROD_KEY }`;
      let message = '';
      try {
        readServicesFile(write(text), { PROD_KEY: 'k' });
      } catch (error) {
        expect(error, url).toBeInstanceOf(ServicesFileError);
        message = (error as Error).message;
      }
      expect(message, url).toMatch(new RegExp(`:1: the url of service prod carries ${carried},`));
      expect(message, url).toContain('apiKeyEnv');
      expect(message, url).not.toContain('s3cret-pw');
    }
  });
});

describe.each(Object.values(VENDOR_VARIANTS))(
  'in front of the vendor-like service $name',
  (variant) => {
    let vendor: VendorService;
    let gateway: TestService;
    let devon: string;
    let olivia: string;
    const answers: string[] = [];

    const call = async (path: string, init: RequestInit = {}, session = devon) => {
      const response = await gateway.fetch(path, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), 'X-As-SessionId': session },
      });
      const text = await response.text();
      answers.push(text, JSON.stringify([...response.headers]));
      return { status: response.status, text, type: response.headers.get('content-type') };
    };

    beforeAll(async () => {
      vendor = await startVendorService({ variant });
      gateway = await startGateway([
        {
          id: 'prod',
          name: 'Production',
          url: vendor.url,
          apiKey: vendor.apiKey,
          label: 'production',
          color: 'red',
        },
      ]);
      devon = await signIn(gateway, 'devon');
      olivia = await signIn(gateway, 'olivia');
    });

    afterAll(async () => {
      await gateway.close();
      await vendor.close();
      // The upstream's key never reached a browser: not in any answer or header.
      expect(answers.join('\n')).not.toContain(vendor.apiKey);
    });

    it('answers our contract in all three formats for what the upstream said in XML', async () => {
      const xml = await call('/pipelineapi/list/xml');
      expect(xml.status).toBe(200);
      expect(xml.type).toBe('text/xml; charset=UTF-8');
      const json = await call('/pipelineapi/list/json');
      const tree = JSON.parse(json.text) as {
        PipelineList: { PipeLine: { Args?: { Item: unknown[] } }[] };
      };
      // Our JSON: repeated elements are arrays even of one, unlike the vendor's own JSON.
      expect(Array.isArray(tree.PipelineList.PipeLine[0]?.Args?.Item)).toBe(true);
      const client = new PipelineClient({
        baseUrl: gateway.url,
        fetch: gateway.checkedFetch,
        credentials: { kind: 'session', sessionId: devon },
      });
      const [fromXml, fromJson] = [
        await client.listPipelines('xml'),
        await client.listPipelines('json'),
      ];
      expect(fromJson).toEqual(fromXml);
      expect(fromXml[0]?.created?.zone).toBe(variant.zone.abbreviation);
      expect((await call('/pipelineapi/list/htm')).text).toContain('<td>Sales</td>');
    });

    it('executes for a developer, finds the new RequestId the upstream did not give, and audits it', async () => {
      const exec = await call(
        '/pipelineapi/exec/json',
        formPost({ pipelineid: 'pl_1', filename: 'sales.csv', region: 'EU' }),
      );
      expect(exec.status, exec.text).toBe(200);
      const requestId = (JSON.parse(exec.text) as { ExecuteResponse: { RequestId?: string } })
        .ExecuteResponse.RequestId;
      expect(requestId).toBe(vendor.requests()[0]?.requestId);
      const refused = await call(
        '/pipelineapi/exec/xml',
        formPost({ pipelineid: 'pl_1', filename: 'x.csv' }),
        olivia,
      );
      expect(refused.status).toBe(403);
      expect(vendor.requests()).toHaveLength(1);
      const audit = gateway.app.context.dbs.system
        .prepare(
          "SELECT SERVICE, USERNAME, REQUESTID, HTTPSTATUS FROM AUDIT WHERE OPERATION = 'exec' ORDER BY SEQ",
        )
        .all();
      expect(audit).toEqual([
        { SERVICE: 'prod', USERNAME: 'devon', REQUESTID: requestId, HTTPSTATUS: 200 },
        { SERVICE: 'prod', USERNAME: 'olivia', REQUESTID: null, HTTPSTATUS: 403 },
      ]);
    });

    it('pages a day the upstream does not page, with an exact Total', async () => {
      vendor.addRequests('pl_2', 150);
      // Lists are answered from the index: as of its poller's round, one now.
      await Promise.all(gateway.app.context.services.pollers().map((p) => p.pollNow()));
      const page = await call('/pipelineapi/requestlist/json?pagesize=50&index=100');
      const info = (
        JSON.parse(page.text) as {
          RequestList: { Info: Record<string, unknown>; Request: unknown[] };
        }
      ).RequestList;
      expect(info.Request).toHaveLength(50);
      expect(info.Info).toMatchObject({ Index: 100, Prev: 50, Next: 150, Count: 50, Total: 151 });
      const last = await call('/pipelineapi/requestlist/json?pagesize=50&index=150');
      expect(
        (JSON.parse(last.text) as { RequestList: { Info: { Next: number } } }).RequestList.Info
          .Next,
      ).toBe(-1);
    });

    it("turns the upstream's refusals into our errors with its own words", async () => {
      const [finished] = vendor.requests().filter((r) => r.status === variant.status.done);
      const retry = await call(`/pipelineapi/requestretry/xml?requestid=${finished?.requestId}`, {
        method: 'PUT',
      });
      expect(retry.status).toBe(409);
      expect(codeOf(retry.text)).toBe(1301);
      expect(retry.text).toContain(`cannot be retried in status ${variant.status.done}`);
      const unknown = await call(
        '/pipelineapi/requestdetail/xml?requestid=pl_1-20200101_00-000001',
      );
      expect(unknown.status).toBe(variant.failures === 'envelope' ? 400 : 404);
      expect(unknown.text).toContain('Request pl_1-20200101_00-000001 does not exist');
    });

    it('runs a request to its end through the upstream, statuses as the upstream words them', async () => {
      const [request] = vendor.requests();
      for (let i = 0; i < 4; i++) vendor.advance();
      const detail = await call(
        `/pipelineapi/requestdetail/json?requestid=${request?.requestId}&requestlog=true`,
      );
      const d = (JSON.parse(detail.text) as { RequestDetail: Record<string, unknown> })
        .RequestDetail;
      expect(d.Status).toBe(variant.status.done);
      expect(Array.isArray((d.RequestLog as { Log: unknown[] }).Log)).toBe(true);
    });

    it('tells NULL from empty cells, pages tables, and deletes only as administrators may', async () => {
      const page = await call('/pipelineapi/actiondb/json?tablename=SALES&pagesize=2&index=1');
      const result = (
        JSON.parse(page.text) as {
          Result: { Record: { Item: unknown[] }[]; Info: Record<string, number> };
        }
      ).Result;
      expect(result.Record.map((r) => r.Item[1])).toEqual([null, '']);
      expect(result.Info).toMatchObject({ Index: 1, Count: 2, Total: 3 });
      const drop = await call('/pipelineapi/droptable/xml?table=SALES', { method: 'DELETE' });
      expect(drop.status).toBe(403);
    });

    it('reaches a service by id, lists the services, and refuses an unknown one', async () => {
      const version = await call('/services/prod/pipelineapi/version/json');
      expect(JSON.parse(version.text)).toEqual({ Response: { Version: variant.version } });
      const none = await call('/services/nope/pipelineapi/version/xml');
      expect(none.status).toBe(404);
      expect(codeOf(none.text)).toBe(1204);
      const list = await gateway.fetch('/mcapi/services', {
        headers: { 'X-As-SessionId': olivia },
      });
      const services = (
        (await list.json()) as { result: { data: { services: Record<string, unknown>[] } } }
      ).result.data.services;
      expect(services).toEqual([
        expect.objectContaining({
          id: 'prod',
          name: 'Production',
          label: 'production',
          color: 'red',
          reachable: true,
          version: variant.version,
        }),
      ]);
    });
  },
);

describe('an upstream that fails', () => {
  let gateway: TestService;
  let session: string;
  const servers: Server[] = [];

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    const gone = await serve(() => undefined);
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    for (const s of servers) s.closeAllConnections();
    const slow = await serve(() => undefined);
    const garbage = await serve((_req, res) => res.end('hello, this is not XML'));
    const redirect = await serve((_req, res) => {
      res.writeHead(302, { location: 'http://elsewhere.example/' });
      res.end();
    });
    const broken = await serve((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end(
        '<html><body><h1>Service Unavailable</h1><p>maintenance until 14:00</p></body></html>',
      );
    });
    gateway = await startService({
      demo: false,
      limits: { upstreamTimeoutMs: 500 },
      services: [
        { id: 'gone', name: 'Gone', url: gone, apiKey: 'k' },
        { id: 'slow', name: 'Slow', url: slow, apiKey: 'k' },
        { id: 'garbage', name: 'Garbage', url: garbage, apiKey: 'k' },
        { id: 'redirect', name: 'Redirect', url: redirect, apiKey: 'k' },
        { id: 'broken', name: 'Broken', url: broken, apiKey: 'k' },
      ],
    });
    await addUser(gateway.app.context.shared, 'olivia', PASSWORD, 'operator', 'now');
    session = await signIn(gateway, 'olivia');
  });

  afterAll(async () => {
    await gateway.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });

  it('answers 502 or 504 naming the service and what happened, never 500, never a hang', async () => {
    const expectations: [string, number, RegExp][] = [
      ['gone', 502, /Service Gone cannot be reached \(ECONNREFUSED\)/],
      ['slow', 504, /Service Slow did not answer within 0.5 s/],
      [
        'garbage',
        502,
        /Service Garbage answered something that is not XML: hello, this is not XML/,
      ],
      [
        'redirect',
        502,
        /Service Redirect answered with a redirect \(HTTP 302 to http:\/\/elsewhere.example\/\)/,
      ],
      [
        'broken',
        502,
        /Service Broken failed \(HTTP 503\): Service Unavailable maintenance until 14:00/,
      ],
    ];
    for (const [id, status, message] of expectations) {
      const response = await gateway.fetch(`/services/${id}/pipelineapi/list/xml`, {
        headers: { 'X-As-SessionId': session },
      });
      const text = await response.text();
      expect(response.status, id).toBe(status);
      expect(text, id).toMatch(message);
    }
    const list = await gateway.fetch('/mcapi/services', { headers: { 'X-As-SessionId': session } });
    const services = (
      (await list.json()) as {
        result: { data: { services: { id: string; reachable: boolean; message: string }[] } };
      }
    ).result.data.services;
    expect(services.map((s) => [s.id, s.reachable])).toEqual([
      ['gone', false],
      ['slow', false],
      ['garbage', false],
      ['redirect', false],
      ['broken', false],
    ]);
  });
});

describe('in front of another copy of our own service', () => {
  it('passes our own answers through, RequestId included', async () => {
    const upstream = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'gw-defs-'))),
    });
    writeFileSync(join(upstream.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
    const gateway = await startGateway([
      { id: 'ours', name: 'Ours', url: upstream.url, apiKey: TEST_API_KEY },
    ]);
    try {
      const devon = await signIn(gateway, 'devon');
      const client = new PipelineClient({
        baseUrl: gateway.url,
        fetch: gateway.checkedFetch,
        credentials: { kind: 'session', sessionId: devon },
      });
      expect((await client.listPipelines()).map((p) => p.id)).toEqual(['pl_1', 'pl_2', 'pl_3']);
      const { requestId } = await client.exec('pl_1', 'orders.csv');
      expect(requestId).toMatch(/^pl_1-\d{8}_\d{2}-000001$/);
      await upstream.app.engine.whenIdle();
      expect((await client.requestDetail(requestId as string)).status).toBe('Finish');
      expect((await client.requestList()).info.total).toBe(1);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
