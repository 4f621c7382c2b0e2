import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOfRequestId, statusTableName, type RequestStats } from '../../kit/index.ts';
import { countDay } from '../db/status/request-counts.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startService, type TestService } from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';

// requeststats (contract section 8): exact counts of a day per pipeline, hour and status,
// from the counts the status database keeps by trigger; checked against a count of the
// day's table itself after every kind of change.

let service: TestService;
let day: string;
const ids: Record<string, string> = {};

/** The day counted the slow way, straight from its status table. */
function countedFromTable(pipelineId?: string): Map<string, number> {
  const rows = service.app.context.dbs.status
    .prepare(
      `SELECT PIPELINEID || ' ' || CAST(substr(CREATED, 12, 2) AS INTEGER) || ' ' || STATUS AS k, COUNT(*) AS n
       FROM ${statusTableName(day)} WHERE ? IS NULL OR PIPELINEID = ? GROUP BY k`,
    )
    .all(pipelineId ?? null, pipelineId ?? null) as { k: string; n: number }[];
  return new Map(rows.map((r) => [r.k, r.n]));
}

/** The per-pipeline and per-hour counts of an answer, as the same keys. */
function check(stats: RequestStats, pipelineId?: string): void {
  const expected = countedFromTable(pipelineId);
  const perPipeline = new Map<string, number>();
  const perHour = new Map<string, number>();
  for (const [key, n] of expected) {
    const [pipeline, hour, status] = key.split(' ') as [string, string, string];
    perPipeline.set(`${pipeline} ${status}`, (perPipeline.get(`${pipeline} ${status}`) ?? 0) + n);
    perHour.set(`${hour} ${status}`, (perHour.get(`${hour} ${status}`) ?? 0) + n);
  }
  expect(stats.total).toBe([...expected.values()].reduce((a, b) => a + b, 0));
  expect(
    new Map(stats.pipelines.flatMap((p) => p.counts.map((c) => [`${p.id} ${c.status}`, c.value]))),
  ).toEqual(perPipeline);
  expect(
    new Map(stats.hours.flatMap((h) => h.counts.map((c) => [`${h.hour} ${c.status}`, c.value]))),
  ).toEqual(perHour);
  expect(stats.hours.map((h) => h.hour)).toEqual(Array.from({ length: 24 }, (_, i) => i));
}

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'stats-defs-'))),
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
  ids.finished = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
  ids.failed = (await service.client.exec('pl_1', 'missing.csv')).requestId as string;
  ids.waiting = (await service.client.exec('pl_3', 'orders.csv')).requestId as string;
  await service.app.engine.whenIdle();
  day = dayOfRequestId(ids.finished) as string;
});

afterAll(async () => {
  await service.close();
});

describe('requeststats', () => {
  it('counts the day exactly per pipeline, hour and status, alike in XML, JSON and HTML', async () => {
    const json = await service.client.requestStats({ date: day });
    check(json);
    expect(json.date).toBe(day);
    expect(json.total).toBe(3);
    const pl1 = json.pipelines.find((p) => p.id === 'pl_1');
    expect(pl1?.counts).toEqual([
      { status: 'Finish', value: 1 },
      { status: 'Error', value: 1 },
    ]);
    // Every pipeline is listed, one without requests that day with no counts.
    expect(json.pipelines.find((p) => p.id === 'pl_2')?.counts).toEqual([]);
    expect(await service.client.requestStats({ date: day }, 'xml')).toEqual(json);
    const html = await service.keyed(`/pipelineapi/requeststats/htm?date=${day}`);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('data-root="RequestStats"');
  });

  it('follows retry, cancel and a status outside the contract, which is its own count', async () => {
    await service.client.cancel(ids.waiting as string);
    await service.client.retry(ids.failed as string);
    await service.app.engine.whenIdle();
    service.app.context.dbs.status
      .prepare(`UPDATE ${statusTableName(day)} SET STATUS = 'Quarantined' WHERE REQUESTID = ?`)
      .run(ids.finished);
    const stats = await service.client.requestStats({ date: day });
    check(stats);
    expect(stats.pipelines.find((p) => p.id === 'pl_1')?.counts).toContainEqual({
      status: 'Quarantined',
      value: 1,
    });
    expect(stats.pipelines.find((p) => p.id === 'pl_3')?.counts).toEqual([
      { status: 'Stop', value: 1 },
    ]);
  });

  it('answers one pipeline, and a day without requests with zero', async () => {
    const one = await service.client.requestStats({ date: day, id: 'pl_1' });
    expect(one.pipelines.map((p) => p.id)).toEqual(['pl_1']);
    check(one, 'pl_1');
    const empty = await service.client.requestStats({ date: '20000101' });
    expect(empty.total).toBe(0);
    expect(empty.hours.every((h) => h.counts.length === 0)).toBe(true);
  });

  it('is answered anew after a change (the cache follows the data version)', async () => {
    const before = (await service.client.requestStats({ date: day })).total;
    await service.client.exec('pl_1', 'orders.csv');
    await service.app.engine.whenIdle();
    const after = await service.client.requestStats({ date: day });
    expect(after.total).toBe(before + 1);
    check(after);
  });

  it('counts an existing day from scratch as the migration does', async () => {
    const db = service.app.context.dbs.status;
    const before = await service.client.requestStats({ date: day });
    db.prepare('UPDATE REQUEST_COUNT SET N = 0 WHERE DAY = ?').run(day);
    countDay(db, day);
    service.app.context.dbs.touch();
    expect(await service.client.requestStats({ date: day })).toEqual(before);
  });

  it('refuses a bad date or id with 400/1002 naming it, an unknown pipeline with 404/1201', async () => {
    for (const [query, name] of [
      ['date=2026-11-22', 'date'],
      ['date=20261131', 'date'],
      ['id=pl_x', 'id'],
      ['id=pl_1&id=pl_2', 'id'],
    ] as const) {
      const response = await service.keyed(`/pipelineapi/requeststats/json?${query}`);
      const text = await response.text();
      expect(response.status, query).toBe(400);
      expect(text, query).toContain('"Code":1002');
      expect(text, query).toContain(`Parameter ${name} `);
    }
    const unknown = await service.keyed('/pipelineapi/requeststats/json?id=pl_99');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('"Code":1201');
  });
});

describe('requeststats and bulk behind the gateway', () => {
  let vendor: VendorService;
  let gateway: TestService;
  const key = 'gateway-key-0123456789abcdef';

  beforeAll(async () => {
    vendor = await startVendorService();
    gateway = await startService({
      services: [{ id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey }],
      apiKey: key,
    });
  });

  afterAll(async () => {
    await gateway.close();
    await vendor.close();
  });

  // A day before the index began: its counts and its requests cannot be told exactly.
  it('says a day its index did not watch is not available, after validating as the embedded service does', async () => {
    const get = (query: string) =>
      gateway.fetch(`/pipelineapi/requeststats/json?${query}`, {
        headers: { 'X-Pipelinewebapi': key },
      });
    const refused = await get('date=20200101');
    expect(refused.status).toBe(404);
    const text = await refused.text();
    expect(text).toContain('"Code":1204');
    expect(text).toContain('20200101 are not available for service Production');
    expect((await get('date=yesterday')).status).toBe(400);
  });

  it('refuses bulk retry and cancel of such a day, whose selection needs the index too', async () => {
    const response = await gateway.fetch('/pipelineapi/bulk/json?action=retry&date=20200101', {
      headers: { 'X-Pipelinewebapi': key },
    });
    expect(response.status).toBe(404);
    const text = await response.text();
    expect(text).toContain('"Code":1204');
    expect(text).toContain('20200101 are not available for service Production');
  });
});
