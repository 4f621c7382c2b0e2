import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { PipelineClient } from '../../kit/index.ts';
import { addUser } from '../auth/users.ts';
import { eventually, signIn, startService, type TestService } from '../testing/service.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../testing/vendor/vendor-service.ts';

// requestlist's filters (contract section 8): status, q and since, on the server, with
// Total counting every match of the day.

let service: TestService;
const ids: Record<string, string> = {};

interface ListAnswer {
  RequestList: {
    Request: { RequestId: string; Status: string }[];
    Info: { Total: number; AsOf?: string };
  };
}

async function list(query: string): Promise<{ status: number; body: ListAnswer; text: string }> {
  const response = await service.keyed(`/pipelineapi/requestlist/json?${query}`);
  const text = await response.text();
  return {
    status: response.status,
    body: (response.status === 200 ? JSON.parse(text) : {}) as ListAnswer,
    text,
  };
}

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'filter-defs-'))),
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
  ids.finished = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
  ids.failed = (await service.client.exec('pl_1', 'missing-100%_file.csv')).requestId as string;
  ids.waiting = (await service.client.exec('pl_3', 'orders.csv')).requestId as string;
  await service.app.engine.whenIdle();
});

afterAll(async () => {
  await service.close();
});

describe('requestlist filters', () => {
  it('lists by status, one or several, with the exact Total', async () => {
    const errors = await list('status=Error');
    expect(errors.body.RequestList.Request.map((r) => r.RequestId)).toEqual([ids.failed]);
    expect(errors.body.RequestList.Info.Total).toBe(1);
    const two = await list('status=Error,Wait&pagesize=1');
    expect(two.body.RequestList.Request).toHaveLength(1);
    expect(two.body.RequestList.Info.Total).toBe(2);
    expect((await list('status=Running')).body.RequestList.Info.Total).toBe(0);
  });

  it('searches the id, the file name and the error message, taking % and _ literally', async () => {
    expect((await list('q=100%25_FILE')).body.RequestList.Request.map((r) => r.RequestId)).toEqual([
      ids.failed,
    ]);
    expect(
      (await list(`q=${ids.waiting?.slice(-6)}`)).body.RequestList.Info.Total,
    ).toBeGreaterThanOrEqual(1);
    expect((await list('q=%25%25')).body.RequestList.Info.Total).toBe(0);
    expect((await list('q=not found in the inbox')).body.RequestList.Info.Total).toBe(1);
  });

  it('lists what changed since a time', async () => {
    expect((await list('since=20000101000000')).body.RequestList.Info.Total).toBe(3);
    expect((await list('since=29991231235959')).body.RequestList.Info.Total).toBe(0);
  });

  it('says what time it is as of, which sent back as since reads only what changed after', async () => {
    // Each with its own page size: an answer from the read cache keeps the AsOf it had (true
    // still, as nothing changed since), and this wants the clock to move on.
    let pageSize = 1000;
    const asOfNow = async () =>
      (await list(`pagesize=${pageSize--}`)).body.RequestList.Info.AsOf ?? '';
    expect(await asOfNow()).toMatch(/^\d{14}$/);
    // AsOf overlaps the last seconds (a change may be read twice, never missed): once they
    // have passed, it reads nothing of the quiet day.
    const asOf = await eventually(async () => {
      const stamp = await asOfNow();
      return (await list(`since=${stamp}`)).body.RequestList.Info.Total === 0 ? stamp : undefined;
    }, 'an AsOf after every change so far');
    expect((await service.client.retry(ids.failed as string)).status).toBe('OK');
    await service.app.engine.whenIdle();
    const after = await list(`since=${asOf}`);
    expect(after.body.RequestList.Request.map((r) => r.RequestId)).toEqual([ids.failed]);
    expect(after.body.RequestList.Info.Total).toBe(1);
  });

  it('refuses a bad filter with 400/1002 naming it', async () => {
    for (const [query, name] of [
      ['status=Err%25or', 'status'],
      ['status=Error,', 'status'],
      ['since=2026', 'since'],
      ['since=20261322000000', 'since'],
      [`q=${'x'.repeat(201)}`, 'q'],
    ] as const) {
      const answer = await list(query);
      expect(answer.status, query).toBe(400);
      expect(answer.text, query).toContain('"Code":1002');
      expect(answer.text, query).toContain(`Parameter ${name} `);
    }
  });
});

describe('requestlist filters behind the gateway', () => {
  let vendor: VendorService;
  let gateway: TestService;

  beforeAll(async () => {
    vendor = await startVendorService();
    gateway = await startService({
      services: [{ id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey }],
      apiKey: 'gateway-key-0123456789abcdef',
    });
    vendor.addRequests('pl_2', 5);
    await gateway.fetch('/pipelineapi/exec/xml', {
      method: 'POST',
      headers: {
        'X-Pipelinewebapi': 'gateway-key-0123456789abcdef',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'pipelineid=pl_1&filename=sales.csv',
    });
  });

  afterAll(async () => {
    await gateway.close();
    await vendor.close();
  });

  it('filters by status, and by since, from the index its poller keeps of the upstream', async () => {
    const get = (query: string) =>
      gateway.fetch(`/pipelineapi/requestlist/json?${query}`, {
        headers: { 'X-Pipelinewebapi': 'gateway-key-0123456789abcdef' },
      });
    // The index is as of the poller's last round: one now, rather than waiting for it.
    await Promise.all(gateway.app.context.services.pollers().map((p) => p.pollNow()));
    const waiting = (await (await get('status=Wait')).json()) as ListAnswer;
    expect(waiting.RequestList.Info.Total).toBe(1);
    const old = (await (await get('since=20000101000000')).json()) as ListAnswer;
    expect(old.RequestList.Info.Total).toBe(6);
    const future = (await (await get('since=29991231000000')).json()) as ListAnswer;
    expect(future.RequestList.Info.Total).toBe(0);
    // AsOf is on the upstream's clock (JST here), before the round that filled the index:
    // sent back, it reads no more than the index learned since, and a later round's news.
    const asOf = waiting.RequestList.Info.AsOf ?? '';
    expect(asOf).toMatch(/^\d{14}$/);
    const sinceAsOf = (await (await get(`since=${asOf}`)).json()) as ListAnswer;
    expect(sinceAsOf.RequestList.Info.Total).toBeLessThanOrEqual(6);
    expect((await (await get('date=20200101')).json()) as ListAnswer).not.toHaveProperty(
      'RequestList.Info.AsOf',
    );
    // A day before the index began is asked of the upstream, which tells no change times.
    const since = await get('date=20200101&since=20200101000000');
    expect(since.status).toBe(400);
    expect(await since.text()).toContain(
      'since is not available for this day of service Production',
    );
  });
});

describe('requestlist filters behind the gateway, in a vendor’s own status words', () => {
  const KEY = 'gateway-key-0123456789abcdef';
  let vendor: VendorService;
  let gateway: TestService;

  beforeAll(async () => {
    vendor = await startVendorService({
      variant: {
        ...VENDOR_VARIANTS.kanto,
        status: {
          waiting: '待機中',
          running: '実行中',
          done: '正常終了',
          failed: '異常終了',
          cancelled: 'En cours d’annulation',
        },
      },
    });
    gateway = await startService({
      services: [{ id: 'tokyo', name: 'Tokyo', url: vendor.url, apiKey: vendor.apiKey }],
      apiKey: KEY,
    });
    vendor.addRequests('pl_2', 3, 'done.csv');
    vendor.addRequests('pl_2', 2, 'broken.csv', 'failed');
    await Promise.all(gateway.app.context.services.pollers().map((p) => p.pollNow()));
  });

  afterAll(async () => {
    await gateway.close();
    await vendor.close();
  });

  const get = (query: string) =>
    gateway.fetch(`/pipelineapi/requestlist/json?${query}`, {
      headers: { 'X-Pipelinewebapi': KEY },
    });

  it('takes the vendor’s words as they are, alone or several, and counts them exactly', async () => {
    const failed = (await (
      await get(`status=${encodeURIComponent('異常終了')}`)
    ).json()) as ListAnswer;
    expect(failed.RequestList.Info.Total).toBe(2);
    expect(new Set(failed.RequestList.Request.map((r) => r.Status))).toEqual(new Set(['異常終了']));
    const both = await get(`status=${encodeURIComponent('異常終了, 正常終了')}`);
    expect(((await both.json()) as ListAnswer).RequestList.Info.Total).toBe(5);
    // A word with a space and an apostrophe is a word: none of its requests, not a refusal.
    const spaced = await get(`status=${encodeURIComponent('En cours d’annulation')}`);
    expect(spaced.status).toBe(200);
    expect(((await spaced.json()) as ListAnswer).RequestList.Info.Total).toBe(0);
  });

  it('filters several days by the vendor’s words too (the range of Part A)', async () => {
    await addUser(gateway.app.context.shared, 'olga', 'olga-password-0123', 'operator', 'now');
    const sessionId = await signIn(gateway, 'olga', 'olga-password-0123');
    // The vendor's day, in its zone (JST).
    const day = new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10).replaceAll('-', '');
    const range = await gateway.fetch(
      `/mcapi/requests/range?service=tokyo&from=${day}&to=${day}&status=${encodeURIComponent('異常終了')}`,
      { headers: { 'X-As-SessionId': sessionId } },
    );
    expect(range.status, await range.clone().text()).toBe(200);
    expect(
      ((await range.json()) as { result: { data: { total: number } } }).result.data.total,
    ).toBe(2);
    // A bulk retry's selection reads the same words.
    const olga = new PipelineClient({
      baseUrl: `${gateway.url}/services/tokyo`,
      credentials: { kind: 'session', sessionId },
    });
    const preview = await olga.bulk.preview({ action: 'retry', date: day, statuses: ['異常終了'] });
    expect(preview.total).toBe(2);
  });

  it('refuses only an empty, over-long or multi-line word, naming status', async () => {
    for (const query of ['status=%E7%95%B0,', `status=${'語'.repeat(65)}`, 'status=a%0Ab']) {
      const answer = await get(query);
      expect(answer.status, query).toBe(400);
      expect(await answer.text(), query).toContain('Parameter status ');
    }
  });

  it('the embedded engine still keeps its own words’ shape', async () => {
    const answer = await list(`status=${encodeURIComponent('異常終了')}`);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('such as Error,Stop');
  });
});
