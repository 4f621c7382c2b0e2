import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases, type Databases } from '../databases.ts';
import { openSharedStore, type SharedStore } from '../../store/shared-store.ts';
import { startPostgres, type PostgresCluster } from '../../testing/postgres.ts';
import { indexDayStatusCounts } from './fleet.ts';
import type { ListedRequest } from './ingest.ts';
import { RequestIndex } from './request-index.ts';
import { indexDayDurations, indexDayOutcomes } from './trends.ts';

/*
 * The trends' and the fleet's reads of the gateway's index on a day of 100,000 requests,
 * filed as a poller files them (ingest, then settle with the EndTime a requestdetail
 * gave): exact against the same figures computed here, and timed. On PostgreSQL too (issue
 * 28), with a day of 20,000: each settle is a few round trips there, and filing 100,000 of
 * them one by one would time the test harness rather than the reads.
 */

const DAY = '20261122';
const SIZES = { sqlite: 100_000, postgres: 20_000 } as const;
const PIPELINES = ['pl_1', 'pl_2', 'pl_3', 'pl_4'];

/** A duration in seconds per request that is neither sorted nor uniform. */
const secondsOf = (n: number) => (n * 7919) % 3600;

function nearestRank(values: number[], p: number): number {
  values.sort((a, b) => a - b);
  return values[Math.ceil((p * values.length) / 100) - 1] as number;
}

const clock = (seconds: number) => {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h, m, s].map((v) => String(v).padStart(2, '0')).join(':');
};

let cluster: PostgresCluster | undefined;

afterAll(async () => {
  await cluster?.remove();
});

describe.each(['sqlite', 'postgres'] as const)("the trends' reads of a day on %s", (engine) => {
  const SIZE = SIZES[engine];
  let folder: string;
  let index: RequestIndex;
  let store: SharedStore | undefined;
  let dbs: Databases | undefined;
  const truth = new Map<string, { statuses: Map<string, number>; seconds: number[] }>();

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'index-trends-'));
    if (engine === 'sqlite') index = RequestIndex.open(folder);
    else {
      cluster ??= await startPostgres();
      dbs = openDatabases(folder, { embedded: false });
      store = await openSharedStore({
        databaseUrl: await cluster.freshDatabase(),
        system: dbs.system,
        log: () => undefined,
      });
      index = new RequestIndex(store.sql);
    }
    const listed: ListedRequest[] = [];
    for (let n = 0; n < SIZE; n++) {
      const pipelineId = PIPELINES[n % PIPELINES.length] as string;
      const status = n % 50 === 0 ? 'Abort' : n % 97 === 0 ? 'Running' : 'Finish';
      listed.push({
        requestId: `${pipelineId}-${DAY}_00-${String(n).padStart(6, '0')}`,
        pipelineId,
        name: pipelineId.toUpperCase(),
        status,
        stage: 'Joint',
        beginDate: `2026-11-22 00:00:00`,
      });
      const entry = truth.get(pipelineId) ?? {
        statuses: new Map<string, number>(),
        seconds: [] as number[],
      };
      entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
      if (status !== 'Running') entry.seconds.push(secondsOf(n));
      truth.set(pipelineId, entry);
    }
    // Newest first, as a list answers.
    await index.ingest('vendor', DAY, [...listed].reverse(), false, 1);
    // In one transaction, as the writes of one round would be: an index over it settles them.
    await index.sql.transaction(async (tx) => {
      const inTransaction = new RequestIndex(tx);
      for (const [n, r] of listed.entries()) {
        if (r.status !== 'Running')
          await inTransaction.settle(
            'vendor',
            r.requestId,
            // Alternating the vendor's date forms: slashes, and a T with a zone.
            {
              status: r.status,
              stage: 'Joint',
              endTime:
                n % 2 === 0
                  ? `2026/11/22 ${clock(secondsOf(n))}`
                  : `2026-11-22T${clock(secondsOf(n))} JST`,
            },
            2,
          );
      }
    });
  }, 240_000);

  afterAll(async () => {
    index.close();
    await store?.close();
    dbs?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('counts per pipeline and status exactly, and per status for the fleet', async () => {
    // The first read after the writes, then one from a warm page cache: the worse is asserted.
    const timed = async () => {
      const started = performance.now();
      const rows = await indexDayOutcomes(index, 'vendor', DAY);
      return { rows, ms: performance.now() - started };
    };
    const first = await timed();
    const { rows, ms: warm } = await timed();
    const ms = Math.max(first.ms, warm);
    for (const [pipelineId, entry] of truth)
      for (const [status, count] of entry.statuses)
        expect(rows.find((r) => r.pipelineId === pipelineId && r.status === status)?.count).toBe(
          count,
        );
    expect(rows.reduce((sum, r) => sum + r.count, 0)).toBe(SIZE);
    const words = await indexDayStatusCounts(index, 'vendor', DAY);
    expect(words.reduce((sum, w) => sum + w.count, 0)).toBe(SIZE);
    console.log(
      `outcomes of ${SIZE} requests: ${first.ms.toFixed(0)} ms, then ${warm.toFixed(0)} ms`,
    );
    expect(ms).toBeLessThan(2000);
  });

  it('gives each pipeline its exact nearest-rank p50 and p95, read in SQL and ranked as streamed', async () => {
    const timed = async () => {
      const started = performance.now();
      const rows = await indexDayDurations(index, 'vendor', DAY);
      return { rows, ms: performance.now() - started };
    };
    const first = await timed();
    const { rows, ms: warm } = await timed();
    const ms = Math.max(first.ms, warm);
    expect(rows.map((r) => r.pipelineId)).toEqual(PIPELINES);
    for (const row of rows) {
      const seconds = truth.get(row.pipelineId)?.seconds ?? [];
      expect(row.count).toBe(seconds.length);
      expect(row.p50).toBe(nearestRank(seconds, 50) * 1000);
      expect(row.p95).toBe(nearestRank(seconds, 95) * 1000);
    }
    console.log(
      `p50 and p95 of ${SIZE} requests: ${first.ms.toFixed(0)} ms, then ${warm.toFixed(0)} ms`,
    );
    expect(ms).toBeLessThan(3000);
  });
});
