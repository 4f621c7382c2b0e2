import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases, type Databases } from '../databases.ts';
import { acquireLease, leaseHolder } from '../leases.ts';
import { openSharedStore, type SharedStore } from '../../store/shared-store.ts';
import { startPostgres, type PostgresCluster } from '../../testing/postgres.ts';
import { indexDayStatusCounts } from './fleet.ts';
import type { ListedRequest } from './ingest.ts';
import { daysOf, indexRange } from './request-range.ts';
import { RequestIndex } from './request-index.ts';
import { upstreamRequestStats } from './request-stats.ts';
import { indexDayDurations, wallClockMs } from './trends.ts';

// The request index over both stores (issue 28): the same calls give the same answers
// whether it is its own SQLite file or the gateways' shared PostgreSQL.

const DAY = '20261122';

let cluster: PostgresCluster;
const opened: { index: RequestIndex; store?: SharedStore; dbs?: Databases }[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
});

afterAll(async () => {
  for (const { index, store, dbs } of opened) {
    index.close();
    await store?.close();
    dbs?.close();
  }
  await cluster.remove();
});

async function open(engine: 'sqlite' | 'postgres'): Promise<RequestIndex> {
  const folder = mkdtempSync(join(tmpdir(), 'index-store-'));
  if (engine === 'sqlite') {
    const index = RequestIndex.open(folder);
    opened.push({ index });
    return index;
  }
  const dbs = openDatabases(folder, { embedded: false });
  const store = await openSharedStore({
    databaseUrl: await cluster.freshDatabase(),
    system: dbs.system,
    log: () => undefined,
  });
  const index = new RequestIndex(store.sql);
  opened.push({ index, store, dbs });
  return index;
}

/** `count` requests of a pipeline, newest first as a list gives them, numbered from `from`. */
function listed(
  pipelineId: string,
  count: number,
  status: string,
  from = 0,
  hour = 9,
): ListedRequest[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + count - i;
    return {
      requestId: `${pipelineId}-${DAY}_${String(hour).padStart(2, '0')}-${String(n).padStart(6, '0')}`,
      pipelineId,
      name: `Pipeline ${pipelineId}`,
      status,
      stage: 'Joint',
      // Two a second, later ones later: ties are ordered by the list's own order.
      beginDate: new Date(Date.UTC(2026, 10, 22, hour) + Math.floor(n / 2) * 1000)
        .toISOString()
        .slice(0, 19)
        .replace('T', ' '),
    };
  });
}

describe.each(['sqlite', 'postgres'] as const)('the request index on %s', (engine) => {
  let index: RequestIndex;
  beforeAll(async () => {
    index = await open(engine);
    index.attempts.configure('svc', ['Error', 'Abort']);
  });

  it('takes in a day of thousands in few statements, numbering and counting it exactly', async () => {
    // More than a statement's and a transaction's rows, in one answer.
    const day = [...listed('pl_2', 700, 'Running', 0, 10), ...listed('pl_1', 5000, 'Finish')];
    const first = await index.ingest('svc', DAY, day, false, 1_000);
    expect(first).toMatchObject({ added: 5700, changed: 0, gap: false });
    expect(first.entered).toHaveLength(5700);
    await index.markDay('svc', DAY, true);
    // A first round's guess is kept as an estimate, a round without one keeps it as it was,
    // and a request seen to begin replaces it.
    await index.markIndexed('svc', DAY, new Date(500), { minutes: 420, estimated: true });
    await index.markIndexed('svc', DAY, new Date(700));
    expect(await index.state('svc')).toMatchObject({ offsetMinutes: 420, offsetEstimated: true });
    await index.markIndexed('svc', DAY, new Date(1_000), { minutes: 540, estimated: false });
    expect(await index.state('svc')).toEqual({
      today: DAY,
      indexedAt: new Date(1_000).toISOString(),
      offsetMinutes: 540,
      offsetEstimated: false,
    });
    // Taken in again: nothing new, and each request's check time moves on.
    const again = await index.ingest('svc', DAY, day, false, 2_000);
    expect(again).toMatchObject({ added: 0, changed: 0, entered: [] });
    expect(await index.unsettled('svc', 2_000, 10)).toEqual([]);
    expect(await index.unsettled('svc', 2_001, 1000)).toHaveLength(700);
    const page = await index.list('svc', DAY, {}, 0, 3);
    expect(page.total).toBe(5700);
    // Newest first: pl_2's hour 10 before pl_1's hour 9.
    expect(page.rows.map((r) => r.requestId)).toEqual(day.slice(0, 3).map((r) => r.requestId));
    expect(page.rows[0]).toEqual({ ...day[0], changedMs: 1_000 });
    const deep = await index.list('svc', DAY, {}, 5699, 10);
    expect(deep.rows.map((r) => r.requestId)).toEqual([day.at(-1)?.requestId]);
  });

  it('filters by pipeline, statuses, since and text in any case, counting exactly', async () => {
    const changed = listed('pl_2', 3, 'Error', 697, 10);
    const taken = await index.ingest('svc', DAY, changed, false, 3_000);
    expect(taken).toMatchObject({ added: 0, changed: 3 });
    const running = await index.list('svc', DAY, { statuses: ['Running'] }, 0, 1);
    expect(running.total).toBe(697);
    const both = await index.list('svc', DAY, { statuses: ['Running', 'Error'] }, 0, 1);
    expect(both.total).toBe(700);
    expect((await index.list('svc', DAY, { sinceMs: 3_000 }, 0, 10)).rows).toHaveLength(3);
    expect((await index.list('svc', DAY, { pipelineId: 'pl_1' }, 0, 1)).total).toBe(5000);
    const text = changed[0]?.requestId.toUpperCase() ?? '';
    expect((await index.list('svc', DAY, { text }, 0, 10)).total).toBe(1);
    // LIKE's own characters are taken as they are.
    expect((await index.list('svc', DAY, { text: '%' }, 0, 10)).total).toBe(0);
    expect(await index.failedSince('svc', 2_500, ['Error'])).toHaveLength(3);
    expect(
      await index.statusCounts('svc', [
        ...changed.map((r) => r.requestId),
        changed[0]?.requestId ?? '',
        'unknown',
      ]),
    ).toEqual([{ status: 'Error', count: 3 }]);
  });

  it('keeps attempts, evidence and settles, and finds a request by its failure', async () => {
    const id = listed('pl_2', 1, 'Error', 699, 10)[0]?.requestId ?? '';
    expect(await index.attempts.backlog('svc')).toBe(3);
    const due = await index.attempts.due('svc', 10);
    expect(due.map((d) => d.attempt)).toEqual([1, 1, 1]);
    await index.attempts.keep('svc', id, 1, {
      message: 'Disk Full on node 7',
      log: [{ date: '2026-11-22 10:00:01', type: 'ERROR', message: 'disk full' }],
      sensorFile: 'daily_Sales.csv',
      beginTime: '2026-11-22 10:00:00',
      endTime: '2026-11-22 10:00:02',
    });
    expect(await index.attempts.failureOf('svc', id)).toBe('Disk Full on node 7');
    expect((await index.list('svc', DAY, { text: 'disk full' }, 0, 10)).total).toBe(1);
    expect((await index.list('svc', DAY, { text: 'SALES.CSV' }, 0, 10)).total).toBe(1);
    // Retried at the service: a second attempt, then ended as a detail says.
    expect(
      await index.settle(
        'svc',
        id,
        { status: 'Running', stage: 'Sensor', endTime: '', sensorFile: 'daily_Sales.csv' },
        4_000,
      ),
    ).toEqual({ pipelineId: 'pl_2' });
    await index.settle(
      'svc',
      id,
      { status: 'Finish', stage: 'Joint', endTime: '2026/11/22 10:30:00' },
      5_000,
    );
    const attempts = await index.attempts.list('svc', id);
    expect(attempts.map((a) => [a.attempt, a.status, a.failed, a.evidence])).toEqual([
      [1, 'Error', true, 'kept'],
      [2, 'Finish', false, ''],
    ]);
    expect(attempts[0]?.log).toHaveLength(1);
    expect(attempts[1]?.changes.map((c) => c.status)).toEqual(['Running', 'Finish']);
    await index.attempts.missed('svc', due[1]?.requestId ?? '', 1, true);
    expect(await index.attempts.backlog('svc')).toBe(1);
    // A request never changed: its one attempt told from its row.
    const plain = listed('pl_1', 1, 'Finish', 0)[0]?.requestId ?? '';
    expect(await index.attempts.list('svc', plain)).toMatchObject([
      { attempt: 1, status: 'Finish', failed: false, startedMs: 1_000 },
    ]);
    expect(await index.attempts.fileless('svc', 2)).toHaveLength(2);
    await index.settle('svc', 'gone-one', 'gone', 6_000);
  });

  it('answers counts, statistics, a range of days and durations alike', async () => {
    const stats = await upstreamRequestStats(index, 'svc', DAY);
    expect(stats.total).toBe(5700);
    expect(stats.pipelines.map((p) => p.id)).toEqual(['pl_1', 'pl_2']);
    expect(stats.hours.map((h) => h.hour)).toEqual([9, 10]);
    expect(await indexDayStatusCounts(index, 'svc', DAY)).toEqual([
      { status: 'Error', count: 2 },
      { status: 'Finish', count: 5001 },
      { status: 'Running', count: 697 },
    ]);
    const days = daysOf('20261121', DAY) ?? [];
    const range = await indexRange(index, 'svc', days, { statuses: ['Error'] }, 0, 10);
    expect(range).toMatchObject({
      total: 2,
      exact: false,
      days: [
        { day: '20261121', count: 0, state: 'unwatched' },
        { day: DAY, count: 2, state: 'complete' },
      ],
      statuses: [{ status: 'Error', count: 2 }],
    });
    await index.markDay('svc', DAY, false);
    await index.markDay('svc', DAY, true);
    expect(await index.day('svc', DAY)).toEqual({ complete: false });
    // The one request whose end a detail told: 10:05:50 to 10:30:00.
    expect(await indexDayDurations(index, 'svc', DAY)).toEqual([
      { pipelineId: 'pl_2', count: 1, p50: 1_450_000, p95: 1_450_000 },
    ]);
  });

  it('keeps the pollers lease in the same store as the index', async () => {
    expect(await acquireLease(index.sql, 'poller:svc', 'one', 10_000, 10_000)).toBe(true);
    expect(await acquireLease(index.sql, 'poller:svc', 'two', 15_000, 10_000)).toBe(false);
    expect(await acquireLease(index.sql, 'poller:svc', 'two', 20_001, 10_000)).toBe(true);
    expect(await leaseHolder(index.sql, 'poller:svc', 20_001)).toBe('two');
  });
});

describe('a date as julianday read it', () => {
  it('reads the forms SQLite reads, and none other', () => {
    expect(wallClockMs('2026-11-22 10:00:00')).toBe(Date.UTC(2026, 10, 22, 10));
    expect(wallClockMs('2026-11-22T10:00')).toBe(Date.UTC(2026, 10, 22, 10));
    expect(wallClockMs('2026-11-22')).toBe(Date.UTC(2026, 10, 22));
    expect(wallClockMs('2026-11-22 10:00:00.250')).toBe(Date.UTC(2026, 10, 22, 10) + 250);
    expect(wallClockMs('2026-11-22 10:00:00+09:00')).toBe(Date.UTC(2026, 10, 22, 1));
    expect(wallClockMs('2026-11-22 10:00:00 JST')).toBeUndefined();
    expect(wallClockMs('22/11/2026')).toBeUndefined();
  });
});
