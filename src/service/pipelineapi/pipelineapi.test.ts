import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeExecuteResponse,
  decodePipelineList,
  decodeRequestDetail,
  decodeRequestList,
  decodeTableList,
  decodeTablePage,
} from '../../kit/records.ts';
import {
  htmlToTree,
  PipelineResult,
  ResultStatus,
  xmlToTree,
  type TreeObject,
} from '../../kit/index.ts';
import { eventually, startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { ordersCsv, writeTestPipelines } from '../testing/pipelines.ts';

let service: TestService;
let finishedId: string;

const KEY = { 'X-Pipelinewebapi': TEST_API_KEY };

async function tree(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; type: string; body: string; tree: TreeObject }> {
  const response = await service.keyed(path, init);
  const body = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const parsed = type.startsWith('text/xml')
    ? xmlToTree(body)
    : type.startsWith('text/html')
      ? htmlToTree(body)
      : (JSON.parse(body) as TreeObject);
  return { status: response.status, type, body, tree: parsed };
}

async function error(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; code: unknown; message: unknown; headers: Headers }> {
  const response = await service.fetch(path, init);
  const body = await response.text();
  const result = new PipelineResult(
    response.status,
    response.headers.get('content-type') ?? '',
    body,
    init?.method ?? 'GET',
    path,
  );
  const decoded = result.error();
  expect(result.status()).toBe(
    response.status >= 500 ? ResultStatus.SystemError : ResultStatus.Error,
  );
  return {
    status: response.status,
    code: decoded.code,
    message: decoded.message,
    headers: response.headers,
  };
}

const form = (fields: Record<string, string>) => ({
  headers: { ...KEY, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
  body: new URLSearchParams(fields).toString(),
});

beforeAll(async () => {
  const folder = mkdtempSync(join(tmpdir(), 'pipeline-defs-'));
  service = await startService({ pipelinesFile: writeTestPipelines(folder), workers: 2 });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), ordersCsv(40));
  writeFileSync(join(service.dataDir, 'inbox', 'events.jsonl'), '{"kind":"<b>bold</b>","n":1}\n');
  const exec = await service.client.exec('pl_1', 'orders.csv');
  finishedId = exec.requestId as string;
  await service.client.exec('pl_2', 'events.jsonl');
  await service.app.engine.whenIdle();
});

afterAll(async () => {
  await service.close();
});

/**
 * A day's list says the second it was answered in (AsOf, contract 8): answers of one list
 * in three formats, each computed on its own call, differ there alone when the calls fall
 * either side of a second's turn.
 */
const ANSWERED_AT = /<AsOf>[^<]*<\/AsOf>/;
function withoutAnsweredAt<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutAnsweredAt) as T;
  // Only plain records are rebuilt: a Date or another instance is compared as it is.
  if (
    value === null ||
    typeof value !== 'object' ||
    Object.getPrototypeOf(value) !== Object.prototype
  )
    return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => name !== 'AsOf' && name !== 'asOf')
      .map(([name, child]) => [name, withoutAnsweredAt(child as unknown)]),
  ) as T;
}

describe('formats', () => {
  const paths = () => [
    '/pipelineapi/list',
    '/pipelineapi/requestlist',
    '/pipelineapi/requeststats',
    `/pipelineapi/requestdetail?requestid=${finishedId}&requestlog=true&applog=true`,
    '/pipelineapi/version',
    '/pipelineapi/systemdb',
    '/pipelineapi/systemdb?tablename=PIPELINE',
    '/pipelineapi/statusdb',
    '/pipelineapi/actiondb?tablename=ORDERS&pagesize=5',
  ];

  it('answers XML without a type, and XML, JSON and HTML that decode to the same tree', async () => {
    for (const path of paths()) {
      const [base, query] = path.split('?');
      const suffix = query ? `?${query}` : '';
      const bare = await tree(`${base}${suffix}`);
      const xml = await tree(`${base}/xml${suffix}`);
      const json = await tree(`${base}/json${suffix}`);
      expect(bare.type).toBe('text/xml; charset=UTF-8');
      expect(xml.type).toBe('text/xml; charset=UTF-8');
      expect(json.type).toBe('text/javascript; charset=UTF-8');
      expect(xml.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
      expect(bare.body.replace(ANSWERED_AT, '')).toBe(xml.body.replace(ANSWERED_AT, ''));
      expect(withoutAnsweredAt(xml.tree), path).toEqual(withoutAnsweredAt(json.tree));
      const html = await tree(`${base}/htm${suffix}`);
      expect(html.type).toBe('text/html; charset=UTF-8');
      expect(html.body.startsWith('<!DOCTYPE html>')).toBe(true);
    }
  });

  it('decodes every typed record alike from XML, JSON and HTML', async () => {
    const detailPath = `/pipelineapi/requestdetail/TYPE?requestid=${finishedId}&requestlog=true&applog=true`;
    const decoders: [string, (t: TreeObject) => unknown][] = [
      ['/pipelineapi/requestlist/TYPE?id=pl_1', decodeRequestList],
      [detailPath, decodeRequestDetail],
      ['/pipelineapi/statusdb/TYPE', decodeTableList],
      ['/pipelineapi/actiondb/TYPE?tablename=ORDERS', decodeTablePage],
      ['/pipelineapi/resume/TYPE', decodeExecuteResponse],
    ];
    for (const [path, decode] of decoders) {
      const init = path.includes('resume') ? form({ pipelineid: 'pl_1' }) : undefined;
      const method = path.includes('resume') ? 'PUT' : 'GET';
      const results = await Promise.all(
        ['xml', 'json', 'htm'].map(async (t) =>
          decode((await tree(path.replace('TYPE', t), { ...init, method })).tree),
        ),
      );
      expect(withoutAnsweredAt(results[1]), path).toEqual(withoutAnsweredAt(results[0]));
      expect(withoutAnsweredAt(results[2]), path).toEqual(withoutAnsweredAt(results[0]));
    }
    // HTML has no Args (the spec's six cells); everything else matches.
    const [xml, html] = await Promise.all(
      ['xml', 'htm'].map(async (t) =>
        decodePipelineList((await tree(`/pipelineapi/list/${t}`)).tree),
      ),
    );
    expect(html).toEqual(xml?.map((p) => ({ ...p, args: [] })));
  });

  it('writes the pipeline list as the spec shows it, Args only where a pipeline has them', async () => {
    const { tree: t } = await tree('/pipelineapi/list/json');
    const list = (t.PipelineList as TreeObject).PipeLine as TreeObject[];
    expect(list.map((p) => p.Id)).toEqual(['pl_1', 'pl_2', 'pl_3']);
    expect(list[0]).toMatchObject({
      Name: 'Orders',
      Runmode: 'run',
      Args: { Item: [{ Name: 'minAmount', Value: '10' }] },
    });
    expect(list[1]).not.toHaveProperty('Args');
    expect(list[0]?.Createdate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3} \S+$/);
    expect(Object.keys(list[1] as object)).toEqual([
      'Id',
      'Name',
      'Runmode',
      'Createdate',
      'Updatedate',
      'Description',
    ]);
    const html = await (await service.keyed('/pipelineapi/list/htm')).text();
    expect(html).toContain(
      '<tr><th>Id</th><th>Name</th><th>Runmode</th><th>Createdate</th><th>Updatedate</th><th>Description</th></tr>',
    );
  });

  it('keeps arrays of one element as arrays in JSON', async () => {
    const { tree: t } = await tree('/pipelineapi/requestlist/json?id=pl_2');
    const requests = (t.RequestList as TreeObject).Request;
    expect(Array.isArray(requests)).toBe(true);
    expect(requests).toHaveLength(1);
    const one = await tree('/pipelineapi/actiondb/json?tablename=EVENTS');
    const records = (one.tree.Result as TreeObject).Record as TreeObject[];
    expect(records).toHaveLength(1);
    expect(Array.isArray(records[0]?.Item)).toBe(true);
    const header = ((one.tree.Result as TreeObject).Header as TreeObject).Item;
    expect(header).toEqual([
      { Name: 'KIND', Type: 'VARCHAR', Key: 'false' },
      { Name: 'N', Type: 'INTEGER', Key: 'false' },
    ]);
  });

  it('renders null cells as isnull in XML, null in JSON and marked cells in HTML, apart from empty strings', async () => {
    const page = await service.client.table('action', 'ORDERS', { pageSize: 100 });
    const noteOf = (id: number) => page.rows.find((r) => r[0] === String(id))?.[3];
    expect(noteOf(12)).toBe(''); // the CSV had an empty cell: an empty string
    const xml = await (
      await service.keyed(
        '/pipelineapi/statusdb/xml?tablename=' + `STATUS${finishedId.slice(5, 13)}`,
      )
    ).text();
    expect(xml).toContain('<Item isnull="true"/>');
    const json = await tree(
      `/pipelineapi/statusdb/json?tablename=STATUS${finishedId.slice(5, 13)}`,
    );
    const cells = ((json.tree.Result as TreeObject).Record as TreeObject[]).flatMap(
      (r) => r.Item as unknown[],
    );
    expect(cells).toContain(null);
    const html = await (
      await service.keyed(`/pipelineapi/statusdb/htm?tablename=STATUS${finishedId.slice(5, 13)}`)
    ).text();
    expect(html).toContain('<td data-null="true"></td>');
  });

  it('escapes hostile names in HTML and XML', async () => {
    const html = await (await service.keyed('/pipelineapi/list/htm')).text();
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; Co');
    const xml = await (await service.keyed('/pipelineapi/list/xml')).text();
    expect(xml).toContain('&lt;script&gt;');
    const decoded = decodePipelineList(htmlToTree(html));
    expect(decoded[1]?.name).toBe("<script>alert('x')</script> & Co");
    expect(decoded[1]?.description).toBe('<img src=x onerror=alert(1)> "quoted" & \'single\'');
  });

  it('answers the request detail with logs only when asked, SensorFile in CDATA', async () => {
    const plain = await service.client.requestDetail(finishedId);
    expect(plain.requestLog).toBeUndefined();
    expect(plain.appLog).toBeUndefined();
    const xml = await (
      await service.keyed(`/pipelineapi/requestdetail/xml?requestid=${finishedId}`)
    ).text();
    expect(xml).toContain('<SensorFile><![CDATA[orders.csv]]></SensorFile>');
    const full = await service.client.requestDetail(
      finishedId,
      { requestLog: true, appLog: true },
      'xml',
    );
    expect(full).toMatchObject({
      status: 'Finish',
      stage: 'Complete',
      sensorFile: 'orders.csv',
      name: 'Orders',
    });
    expect(full.fileSize).toMatch(/^\d+(\.\d)? (B|KB)$/);
    expect(full.sensorTime).toMatch(/^\d{2}:\d{2}$/);
    expect(full.requestLog?.length).toBeGreaterThan(4);
    expect(full.appLog?.map((l) => l.index)).toEqual(full.appLog?.map((_, i) => i + 1));
  });
});

describe('errors', () => {
  it('1001: a required parameter is missing', async () => {
    expect(await error('/pipelineapi/requestdetail/json', { headers: KEY })).toMatchObject({
      status: 400,
      code: 1001,
      message: expect.stringContaining('requestid'),
    });
    expect(
      await error('/pipelineapi/exec/json', { method: 'POST', ...form({ pipelineid: 'pl_1' }) }),
    ).toMatchObject({ status: 400, code: 1001, message: expect.stringContaining('filename') });
    expect(
      await error('/pipelineapi/pipelinecache/json?pipelineid=pl_1', {
        method: 'DELETE',
        headers: KEY,
      }),
    ).toMatchObject({ status: 400, code: 1001 });
  });

  it('1002: a parameter has a bad value', async () => {
    const cases = [
      '/pipelineapi/requestlist/json?date=20261301',
      '/pipelineapi/requestlist/json?date=yesterday',
      '/pipelineapi/requestlist/json?pagesize=0',
      '/pipelineapi/requestlist/json?pagesize=1001',
      '/pipelineapi/requestlist/json?index=-1',
      '/pipelineapi/requestlist/json?id=pl_1&id=pl_2',
      '/pipelineapi/requestdetail/json?requestid=nope',
      `/pipelineapi/requestdetail/json?requestid=${finishedId}&applog=yes`,
      '/pipelineapi/systemdb/json?pagesize=10001',
      '/pipelineapi/actiondb/json?tablename=ORDERS;DROP TABLE ORDERS',
      '/pipelineapi/actiondb/json?tablename=' + encodeURIComponent('"ORDERS"'),
    ];
    for (const path of cases) {
      expect(await error(path, { headers: KEY }), path).toMatchObject({ status: 400, code: 1002 });
    }
    for (const filename of ['../etc/passwd', 'a/b.csv', 'a\\b.csv', '..', 'x\u0000.csv']) {
      expect(
        await error('/pipelineapi/exec/json', {
          method: 'POST',
          ...form({ pipelineid: 'pl_1', filename }),
        }),
        filename,
      ).toMatchObject({ status: 400, code: 1002, message: expect.stringContaining('filename') });
    }
    expect(
      await error('/pipelineapi/exec/json', {
        method: 'POST',
        headers: { ...KEY, 'Content-Type': 'application/json' },
        body: '{"pipelineid":"pl_1"}',
      }),
    ).toMatchObject({ status: 400, code: 1002 });
    // Nothing was created by the refused calls.
    expect((await service.client.requestList({ id: 'pl_1' })).info.total).toBe(1);
    expect((await service.client.table('action', 'ORDERS')).info.total).toBeGreaterThan(0);
  });

  it('1003: unknown response type', async () => {
    expect(await error('/pipelineapi/list/yaml', { headers: KEY })).toMatchObject({
      status: 400,
      code: 1003,
    });
  });

  it('1204 and 1401: unknown api and wrong method, with Allow', async () => {
    expect(await error('/pipelineapi/nothing/json', { headers: KEY })).toMatchObject({
      status: 404,
      code: 1204,
    });
    expect(await error('/pipelineapi/__proto__/json', { headers: KEY })).toMatchObject({
      status: 404,
      code: 1204,
    });
    const wrong = await error('/pipelineapi/resume/json', { headers: KEY });
    expect(wrong).toMatchObject({ status: 405, code: 1401 });
    expect(wrong.headers.get('allow')).toBe('PUT');
    expect(
      (await error('/pipelineapi/list/json', { method: 'DELETE', headers: KEY })).headers.get(
        'allow',
      ),
    ).toBe('GET, HEAD');
  });

  it('1201, 1202, 1203: pipeline, request and table not found', async () => {
    expect(
      await error('/pipelineapi/resume/json', { method: 'PUT', ...form({ pipelineid: 'pl_99' }) }),
    ).toMatchObject({ status: 404, code: 1201 });
    expect(await error('/pipelineapi/requestlist/json?id=pl_99', { headers: KEY })).toMatchObject({
      status: 404,
      code: 1201,
    });
    expect(
      await error('/pipelineapi/requestdetail/json?requestid=pl_1-20260101_00-000001', {
        headers: KEY,
      }),
    ).toMatchObject({ status: 404, code: 1202 });
    expect(
      await error('/pipelineapi/actiondb/json?tablename=NOPE', { headers: KEY }),
    ).toMatchObject({ status: 404, code: 1203 });
    // The service's own tables are not in the catalogue a client sees.
    expect(
      await error('/pipelineapi/actiondb/json?tablename=_CACHE', { headers: KEY }),
    ).toMatchObject({ status: 404, code: 1203 });
    expect(
      await error('/pipelineapi/droptable/json?table=_CACHE', { method: 'DELETE', headers: KEY }),
    ).toMatchObject({ status: 404, code: 1203 });
    expect(
      await error('/pipelineapi/systemdb/json?tablename=SETTING', { headers: KEY }),
    ).toMatchObject({ status: 404, code: 1203 });
    expect(
      await error('/pipelineapi/droptable/json?table=STATUS20261121', {
        method: 'DELETE',
        headers: KEY,
      }),
    ).toMatchObject({ status: 404, code: 1203 });
  });

  it('1301: the state forbids it', async () => {
    expect(
      await error('/pipelineapi/requestretry/json', {
        method: 'PUT',
        ...form({ requestid: finishedId }),
      }),
    ).toMatchObject({ status: 409, code: 1301, message: expect.stringContaining('Finish') });
    expect(
      await error(`/pipelineapi/requestcancel/json?requestid=${finishedId}`, {
        method: 'DELETE',
        headers: KEY,
      }),
    ).toMatchObject({ status: 409, code: 1301 });
  });

  it('1501: body too large', async () => {
    const big = 'x'.repeat(1024 * 1024 + 10);
    expect(
      await error('/pipelineapi/exec/json', {
        method: 'POST',
        ...form({ pipelineid: 'pl_1', filename: big }),
      }),
    ).toMatchObject({ status: 413, code: 1501 });
  });

  it('1102 and 1103: no or wrong credentials; the header name is case-insensitive', async () => {
    expect(await error('/pipelineapi/list/json')).toMatchObject({ status: 401, code: 1102 });
    expect(
      await error('/pipelineapi/list/json', { headers: { 'X-Pipelinewebapi': 'wrong' } }),
    ).toMatchObject({ status: 401, code: 1103 });
    expect(
      await error('/pipelineapi/list/json', { headers: { Cookie: 'SESSIONID=forged' } }),
    ).toMatchObject({ status: 401, code: 1103 });
    for (const name of ['x-pipelinewebapi', 'X-PIPELINEWEBAPI', 'x-PipelineWebApi']) {
      expect(
        (await service.fetch('/pipelineapi/version/json', { headers: { [name]: TEST_API_KEY } }))
          .status,
        name,
      ).toBe(200);
    }
  });

  it('5000: an unexpected failure hides internals and carries a correlation id', async () => {
    const { mkdtempSync: mk } = await import('node:fs');
    const other = await startService({ dataDir: mk(join(tmpdir(), 'pipeline-broken-')) });
    other.app.context.dbs.system.close();
    const response = await other.keyed('/pipelineapi/list/xml');
    const body = await response.text();
    expect(response.status).toBe(500);
    expect(body).toContain('<Status>SystemError</Status><Code>5000</Code>');
    expect(body).toMatch(/under req-\w+/);
    expect(body).not.toMatch(/at \w+ \(|\.ts:|sqlite|\/tmp\//i);
    await other.app.server.close();
  });
});

describe('authentication', () => {
  it('sets SESSIONID after a keyed call, and the cookie alone then works', async () => {
    const first = await service.keyed('/pipelineapi/version/json');
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^SESSIONID=[\w.-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    const cookie = setCookie.split(';')[0] as string;
    const again = await service.fetch('/pipelineapi/version/json', { headers: { Cookie: cookie } });
    expect(again.status).toBe(200);
    const withBoth = await service.keyed('/pipelineapi/version/json', {
      headers: { Cookie: cookie },
    });
    expect(withBoth.headers.get('set-cookie')).toBeNull();
  });

  it('refuses every call with 403/1101 while the API is disabled, and a reissued key revokes the old one and its cookies', async () => {
    const other = await startService();
    const cookie = (
      (await other.keyed('/pipelineapi/version/json')).headers.get('set-cookie') ?? ''
    ).split(';')[0] as string;
    await other.app.context.access.setEnabled(false);
    expect(
      await (async () => {
        const r = await other.keyed('/pipelineapi/list/json');
        return [r.status, JSON.parse(await r.text()).ExecuteResponse.Code];
      })(),
    ).toEqual([403, 1101]);
    await other.app.context.access.setEnabled(true);
    const newKey = await other.app.context.access.reissue();
    expect((await other.keyed('/pipelineapi/list/json')).status).toBe(401);
    expect(
      (await other.fetch('/pipelineapi/list/json', { headers: { Cookie: cookie } })).status,
    ).toBe(401);
    expect(
      (await other.fetch('/pipelineapi/list/json', { headers: { 'X-Pipelinewebapi': newKey } }))
        .status,
    ).toBe(200);
    await other.close();
  });
});

describe('operations', () => {
  it('pages requests with Index, Prev, Next, Count and Total', async () => {
    const other = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'defs-'))),
    });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await other.client.exec('pl_3', `f${i}.csv`)).requestId as string);
    const newestFirst = [...ids].reverse();
    const page = (index: number) => other.client.requestList({ id: 'pl_3', index, pageSize: 3 });
    const first = await page(0);
    expect(first.info).toMatchObject({
      index: 0,
      prev: -1,
      next: 3,
      count: 3,
      total: 7,
      error: false,
      id: 'pl_3',
    });
    expect(first.requests.map((r) => r.requestId)).toEqual(newestFirst.slice(0, 3));
    const second = await page(3);
    expect(second.info).toMatchObject({ index: 3, prev: 0, next: 6, count: 3, total: 7 });
    const last = await page(6);
    expect(last.info).toMatchObject({ index: 6, prev: 3, next: -1, count: 1, total: 7 });
    expect(last.requests.map((r) => r.requestId)).toEqual(newestFirst.slice(6));
    const beyond = await page(9);
    expect(beyond.info).toMatchObject({ count: 0, next: -1 });
    const empty = await other.client.requestList({ date: '20200101' });
    expect(empty).toMatchObject({
      requests: [],
      info: { count: 0, total: 0, date: '20200101', prev: -1, next: -1 },
    });
    // RequestIds follow <pipeline>-<yyyymmdd>_<hh>-<serial> with serials 000001…
    expect(ids.map((id) => id.slice(-6))).toEqual([
      '000001',
      '000002',
      '000003',
      '000004',
      '000005',
      '000006',
      '000007',
    ]);
    await other.close();
  });

  it('pages the table list and table contents', async () => {
    const tables = await service.client.tables('system', { pageSize: 2 });
    expect(tables.tables).toEqual(['PIPELINE', 'PIPELINE_ACTION']);
    expect(tables.info).toMatchObject({ index: 0, prev: -1, next: 2, count: 2, total: 3 });
    const rows = await service.client.table('action', 'ORDERS', { index: 2, pageSize: 5 });
    expect(rows.info).toMatchObject({ index: 2, prev: 0, next: 7, count: 5 });
    expect(rows.columns).toEqual([
      { name: 'ID', type: 'BIGINT', key: true },
      { name: 'AMOUNT', type: 'DOUBLE', key: false },
      { name: 'DOUBLED', type: 'DOUBLE', key: false },
      { name: 'NOTE', type: 'VARCHAR', key: false },
    ]);
  });

  it('suspends and resumes idempotently', async () => {
    await service.client.suspend('pl_1');
    await service.client.suspend('pl_1');
    expect((await service.client.listPipelines())[0]?.runmode).toBe('stop');
    await service.client.resume('pl_1');
    await service.client.resume('pl_1');
    expect((await service.client.listPipelines())[0]?.runmode).toBe('run');
  });

  it('exec with an Arg override filters by it; deletetable and droptable report RowCount', async () => {
    // The first run kept amounts >= 10 (ids 10..40); this one lowers the bar to 5.
    expect((await service.client.table('action', 'ORDERS')).info.total).toBe(31);
    const { requestId } = await service.client.exec('pl_1', 'orders.csv', { minAmount: '5' });
    await eventually(
      async () =>
        (await service.client.requestDetail(requestId as string)).status === 'Finish'
          ? true
          : undefined,
      'finish',
    );
    const orders = await service.client.table('action', 'ORDERS', { pageSize: 1000 });
    // Keyed rows are replaced, not doubled: ids 5..40, once each.
    expect(orders.rows.map((r) => Number(r[0])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 36 }, (_, i) => i + 5),
    );
    const deleted = await service.client.deleteTable('EVENTS');
    expect(deleted).toMatchObject({ status: 'OK', rowCount: 1 });
    await service.client.exec('pl_2', 'events.jsonl');
    await service.app.engine.whenIdle();
    const dropped = await service.client.dropTable('EVENTS', 'xml');
    expect(dropped.rowCount).toBe(1);
    expect((await service.client.tables('action')).tables).not.toContain('EVENTS');
  });
});

describe('answer cache', () => {
  it('answers repeated reads alike and forgets them as soon as anything changes', async () => {
    const list = async () => (await service.keyed('/pipelineapi/list/json')).text();
    const first = await list();
    expect(await list()).toBe(first);
    await service.client.suspend('pl_2');
    expect(await list()).not.toBe(first);
    expect((await service.client.listPipelines()).find((p) => p.id === 'pl_2')?.runmode).toBe(
      'stop',
    );
    await service.client.resume('pl_2');

    writeFileSync(join(service.dataDir, 'inbox', 'cache.jsonl'), '{"kind":"x","n":5}\n');
    await service.client.exec('pl_2', 'cache.jsonl');
    await service.app.engine.whenIdle();
    const before = await service.client.table('action', 'EVENTS');
    expect(await service.client.table('action', 'EVENTS')).toEqual(before);
    await service.client.dropTable('EVENTS');
    await expect(service.client.table('action', 'EVENTS')).rejects.toMatchObject({
      status: 404,
      code: 1203,
    });
    // Credentials are checked before any cached answer is given.
    expect((await service.fetch('/pipelineapi/list/json')).status).toBe(401);
  });
});
