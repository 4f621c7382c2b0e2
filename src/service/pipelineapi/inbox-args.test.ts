import { mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HttpError,
  htmlToTree,
  PipelineClient,
  xmlToTree,
  type TreeObject,
} from '../../kit/index.ts';
import { run } from '../../kit/cli/pipelinectl.ts';
import { addUser } from '../auth/users.ts';
import { parseDefinitions } from '../pipelines/definition.ts';
import { TEST_PIPELINES } from '../testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../testing/vendor/vendor-service.ts';

// Contract section 10: the inbox list, and Args that declare a type, whether they are
// required, a pattern and choices, which exec enforces before any request exists.

const TYPED = `${TEST_PIPELINES}
  - id: pl_7
    name: Typed
    description: Args with rules
    args:
      - { name: minAmount, default: '10', type: integer, required: true }
      - { name: ratio, type: number }
      - { name: flag, default: 'false', type: boolean }
      - { name: day, type: date }
      - { name: region, default: EU, choices: [EU, US, APAC] }
      - { name: code, pattern: '[A-Z]{3}' }
      - { name: owner, required: true }
    sensor: { format: csv }
    filter:
      - keep: { field: amount, op: '>=', value: '\${minAmount}' }
    joint:
      - file: { name: 'typed-\${requestid}.csv', format: csv }
`;

let service: TestService;
let inbox: string;

function definitionsFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'typed-defs-')), 'defs.yaml');
  writeFileSync(path, text);
  return path;
}

async function get(path: string): Promise<{ status: number; text: string }> {
  const response = await service.keyed(path);
  return { status: response.status, text: await response.text() };
}

async function execForm(fields: Record<string, string>) {
  const response = await service.keyed('/pipelineapi/exec/json', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    body: new URLSearchParams(fields).toString(),
  });
  return {
    status: response.status,
    body: (await response.json()) as { ExecuteResponse: { Code?: number; Message: string } },
  };
}

beforeAll(async () => {
  service = await startService({ pipelinesFile: definitionsFile(TYPED) });
  inbox = join(service.dataDir, 'inbox');
  writeFileSync(join(inbox, 'orders.csv'), 'id,amount,note\n1,20,x\n2,5,y\n');
  writeFileSync(join(inbox, 'b events.jsonl'), '{"kind":"a"}\n');
  writeFileSync(join(inbox, '.hidden.csv'), 'secret\n');
  writeFileSync(join(inbox, 'upload.csv.partial'), 'half');
  mkdirSync(join(inbox, 'nested'));
  writeFileSync(join(inbox, 'nested', 'deep.csv'), 'x\n');
  symlinkSync('/etc/hostname', join(inbox, 'link.csv'));
  const when = new Date('2026-11-20T08:30:00Z');
  utimesSync(join(inbox, 'orders.csv'), when, when);
});

afterAll(async () => {
  await service.close();
});

describe('inbox', () => {
  it('lists the files exec may name, with exact sizes, in all three formats alike', async () => {
    const json = await get('/pipelineapi/inbox/json');
    expect(json.status).toBe(200);
    const tree = JSON.parse(json.text) as TreeObject;
    const xml = await get('/pipelineapi/inbox/xml');
    const htm = await get('/pipelineapi/inbox');
    expect(xml.status).toBe(200);
    expect(xmlToTree(xml.text)).toEqual(tree);
    expect(htmlToTree((await get('/pipelineapi/inbox/htm')).text)).toEqual(tree);
    expect(htm.text).toBe(xml.text); // no type: XML, as every operation
    const files = (tree.Inbox as { File: { Name: string; Size: number; Modified: string }[] }).File;
    expect(files.map((f) => [f.Name, f.Size])).toEqual([
      ['b events.jsonl', 13],
      ['orders.csv', 28],
    ]);
    expect(files[1]?.Modified).toBe(
      service.app.context.time.stamp(new Date('2026-11-20T08:30:00Z')).slice(0, 19),
    );
  });

  it('is read again on every call: a file that arrives is listed at once', async () => {
    const before = await service.client.inbox();
    writeFileSync(join(inbox, 'late.csv'), 'id\n');
    const after = await service.client.inbox('xml');
    expect(after.map((f) => f.name)).toEqual([...before.map((f) => f.name), 'late.csv'].sort());
    expect(after.find((f) => f.name === 'late.csv')?.size).toBe(3);
  });

  it('is listed by pipelinectl inbox, as a table and as JSON', async () => {
    let text = '';
    const args = ['inbox', '--url', service.url, '--key', TEST_API_KEY];
    expect(await run(args, {}, (t) => (text += t))).toBe(0);
    expect(text.split('\n')[0]).toMatch(/^Name\s+Size\s+Modified$/);
    expect(text).toMatch(/orders\.csv\s+28\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    let json = '';
    expect(await run([...args, '--json', '--wire', 'xml'], {}, (t) => (json += t))).toBe(0);
    expect((JSON.parse(json) as { name: string; size: number }[]).map((f) => f.name)).toContain(
      'b events.jsonl',
    );
  });

  it('refuses an unknown response type and a method other than GET', async () => {
    const bad = await get('/pipelineapi/inbox/csv');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('<Code>1003</Code>');
    const post = await service.keyed('/pipelineapi/inbox/json', { method: 'POST' });
    expect(post.status).toBe(405);
    const anonymous = await service.fetch('/pipelineapi/inbox/json');
    expect(anonymous.status).toBe(401);
  });

  it('is readable by an operator, like list', async () => {
    await addUser(service.app.context.shared, 'olivia', 'inbox-password-1', 'operator', 'now');
    const login = await service.fetch('/mcapi/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: new URLSearchParams({ userName: 'olivia', password: 'inbox-password-1' }).toString(),
    });
    const sessionId = ((await login.json()) as { result: { data: { sessionId: string } } }).result
      .data.sessionId;
    const client = new PipelineClient({
      baseUrl: service.url,
      fetch: service.checkedFetch,
      credentials: { kind: 'session', sessionId },
    });
    expect((await client.inbox()).map((f) => f.name)).toContain('orders.csv');
  });
});

describe('typed Args', () => {
  it('are listed with their rules, alike in XML and JSON', async () => {
    const [fromJson, fromXml] = [
      await service.client.listPipelines('json'),
      await service.client.listPipelines('xml'),
    ];
    expect(fromXml).toEqual(fromJson);
    const typed = fromJson.find((p) => p.id === 'pl_7');
    expect(typed?.args).toEqual([
      { name: 'minAmount', value: '10', type: 'integer', required: true },
      { name: 'ratio', value: '', type: 'number' },
      { name: 'flag', value: 'false', type: 'boolean' },
      { name: 'day', value: '', type: 'date' },
      { name: 'region', value: 'EU', choices: ['EU', 'US', 'APAC'] },
      { name: 'code', value: '', pattern: '[A-Z]{3}' },
      { name: 'owner', value: '', required: true },
    ]);
    // An Arg without rules is listed as before: Name and Value only.
    expect(fromJson.find((p) => p.id === 'pl_1')?.args).toEqual([
      { name: 'minAmount', value: '10' },
    ]);
  });

  it.each([
    [{ minAmount: 'abc' }, 'minAmount', 'must be an integer'],
    [{ minAmount: '1.5' }, 'minAmount', 'must be an integer'],
    [{ ratio: '1,5' }, 'ratio', 'must be a number'],
    [{ flag: 'yes' }, 'flag', 'must be true or false'],
    [{ day: '2026-02-30' }, 'day', 'must be a calendar date'],
    [{ region: 'MARS' }, 'region', 'must be one of EU, US, APAC'],
    [{ code: 'abcd' }, 'code', 'must match the pattern [A-Z]{3}'],
    // An empty value is the default, and owner has none.
    [{ owner: '' }, 'owner', 'is required'],
  ])('refuses %j with 400/1002 naming %s, and starts nothing', async (args, name, why) => {
    const { status, body } = await execForm({
      pipelineid: 'pl_7',
      filename: 'orders.csv',
      owner: 'ops',
      ...args,
    });
    expect(status).toBe(400);
    expect(body.ExecuteResponse.Code).toBe(1002);
    expect(body.ExecuteResponse.Message).toContain(`Parameter ${name} ${why}`);
    expect((await service.client.requestList({ id: 'pl_7' })).info.total).toBe(0);
  });

  it('runs with values that keep the rules', async () => {
    const { status } = await execForm({
      pipelineid: 'pl_7',
      filename: 'orders.csv',
      minAmount: '-3',
      ratio: '.5e2',
      flag: 'true',
      day: '2024-02-29',
      region: 'APAC',
      code: 'ABC',
      owner: 'ops',
    });
    expect(status).toBe(200);
    expect((await service.client.requestList({ id: 'pl_7' })).info.total).toBe(1);
    await service.app.engine.whenIdle();
  });

  it('refuses a definition whose default breaks its own rules, or whose pattern is broken', () => {
    const one = (arg: string) =>
      `pipelines:\n  - id: pl_1\n    name: X\n    args: [${arg}]\n    joint: [{ file: { name: x.csv, format: csv } }]\n`;
    expect(() => parseDefinitions(one("{ name: n, default: 'x', type: integer }"))).toThrow(
      'arg n: default must be an integer',
    );
    expect(() => parseDefinitions(one("{ name: n, default: 'Z', choices: [A, B] }"))).toThrow(
      'must be one of A, B',
    );
    expect(() => parseDefinitions(one("{ name: n, pattern: '([' }"))).toThrow(
      'pattern is not a regular expression',
    );
    expect(() => parseDefinitions(one('{ name: n, type: money }'))).toThrow('args.0.type');
  });
});

describe('inbox through the gateway', () => {
  let vendors: VendorService[];
  let upstream: TestService;
  let gateway: TestService;

  beforeAll(async () => {
    // One vendor refuses an unknown API with a 404, the other inside a 200's envelope.
    vendors = await Promise.all(
      Object.values(VENDOR_VARIANTS).map((variant) => startVendorService({ variant })),
    );
    upstream = await startService({ pipelinesFile: definitionsFile(TYPED) });
    writeFileSync(join(upstream.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
    gateway = await startService({
      services: [
        ...vendors.map((v, i) => ({
          id: `vendor${i}`,
          name: `Vendor ${v.variant.name}`,
          url: v.url,
          apiKey: v.apiKey,
        })),
        { id: 'ours', name: 'Ours', url: upstream.url, apiKey: TEST_API_KEY },
      ],
      demo: false,
    });
  });

  afterAll(async () => {
    await gateway.close();
    await upstream.close();
    await Promise.all(vendors.map((v) => v.close()));
  });

  it("answers our own upstream's list, and its Args' rules", async () => {
    const response = await gateway.keyed('/services/ours/pipelineapi/inbox/json');
    expect(response.status).toBe(200);
    const tree = (await response.json()) as {
      Inbox: { File: { Name: string; Size: number }[] };
    };
    expect(tree.Inbox.File.map((f) => [f.Name, f.Size])).toEqual([['orders.csv', 22]]);
    const list = await gateway.keyed('/services/ours/pipelineapi/list/xml');
    const text = await list.text();
    expect(text).toContain('<Choice>APAC</Choice>');
    expect(text).toContain('<Type>integer</Type>');
    expect(text).toContain('<Required>true</Required>');
  });

  it("passes on our own upstream's rows per stage in requestdetail", async () => {
    const ours = new PipelineClient({
      baseUrl: `${gateway.url}/services/ours`,
      fetch: gateway.checkedFetch,
      apiKey: TEST_API_KEY,
    });
    const { requestId } = await ours.exec('pl_1', 'orders.csv');
    await upstream.app.engine.whenIdle();
    // One row, amount 20 >= 10: read, kept and written.
    expect(await ours.requestDetail(requestId as string)).toMatchObject({
      status: 'Finish',
      sensorRows: 1,
      filterKept: 1,
      jointRows: 1,
    });
  });

  it('says that a vendor service has no inbox list, and invents none', async () => {
    const cases = vendors.flatMap((v, i) =>
      ['xml', 'json', 'htm'].map((type) => ({ i, type, name: v.variant.name })),
    );
    expect(new Set(vendors.map((v) => v.variant.failures)).size).toBeGreaterThan(1);
    for (const { i, type, name } of cases) {
      const response = await gateway.keyed(`/services/vendor${i}/pipelineapi/inbox/${type}`);
      const text = await response.text();
      expect(response.status, text).toBe(404);
      expect(text).toContain('1204');
      expect(text).toContain(`Service Vendor ${name} has no inbox list`);
      expect(text).not.toContain('<File>');
    }
    await expect(
      new PipelineClient({
        baseUrl: `${gateway.url}/services/vendor0`,
        fetch: gateway.checkedFetch,
        apiKey: TEST_API_KEY,
      }).inbox(),
    ).rejects.toBeInstanceOf(HttpError);
  });
});

describe('the demo pipelines', () => {
  it('type the Orders ingest Args, so that minAmount=abc is refused before any run', async () => {
    const demo = await startService({ demo: true });
    try {
      const orders = (await demo.client.listPipelines()).find((p) => p.id === 'pl_1');
      expect(orders?.args).toEqual([
        { name: 'minAmount', value: '10', type: 'integer', required: true },
        { name: 'region', value: 'EU', choices: ['EU', 'US', 'APAC'] },
      ]);
      const before = (await demo.client.requestList({ id: 'pl_1' })).info.total;
      const error = await demo.client
        .exec('pl_1', 'orders.csv', { minAmount: 'abc' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).message).toContain('minAmount');
      expect((await demo.client.requestList({ id: 'pl_1' })).info.total).toBe(before);
      await demo.app.engine.whenIdle();
    } finally {
      await demo.close();
    }
  });
});
