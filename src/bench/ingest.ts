import { spawnSync } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PipelineClient, type RequestList } from '../kit/index.ts';
import { startChild } from '../service/testing/child.ts';
import { BENCH_KEY, median } from './seed.ts';

/** Two pipelines per round, each into a table of its own, so that every ingest starts alike. */
function pipelines(rounds: number): string {
  const one = (id: string): string => `
  - id: ${id}
    name: Bench ingest ${id}
    sensor: { format: csv }
    filter:
      - keep: { field: amount, op: '>=', value: 0 }
      - cast: { id: integer, qty: integer, amount: double }
    joint:
      - table:
          name: ${tableOf(id)}
          columns:
            - { name: ID, type: BIGINT, from: id }
            - { name: NAME, type: VARCHAR, from: name }
            - { name: AMOUNT, type: DOUBLE, from: amount }
            - { name: QTY, type: INTEGER, from: qty }
            - { name: CREATED, type: TIMESTAMP, from: created }
`;
  const ids = Array.from({ length: rounds }, (_, i) => [aloneId(i + 1), underReadsId(i + 1)]);
  return `pipelines:${ids.flat().map(one).join('')}`;
}

const aloneId = (round: number): string => `pl_${2 * round - 1}`;
const underReadsId = (round: number): string => `pl_${2 * round}`;
const tableOf = (pipelineId: string): string => `BENCH_${pipelineId.slice('pl_'.length)}`;

async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('id,name,amount,qty,created\n');
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += `${i},name ${i % 1000},${((i * 7919) % 100000) / 100},${i % 17},2026-11-${String((i % 28) + 1).padStart(2, '0')} 10:${String(i % 60).padStart(2, '0')}:00\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

export interface LatencyFigures {
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** When the slowest read began, in ms from the first read (to place a stall in the ingest). */
  readonly maxAtMs: number;
}

export interface IngestRound {
  readonly sqliteSeconds: number;
  /** The engine with nothing else running, as `.import` ran. */
  readonly engineSeconds: number;
  /** `.import`'s time over the engine's: above 1, the engine was faster. */
  readonly ratio: number;
  /** The engine again, while the light reads run (its end seen in their request lists). */
  readonly underReadsSeconds: number;
  readonly underReadsRatio: number;
}

export interface IngestResult {
  rows: number;
  /** `.import`, the engine alone and the engine under the light reads in turn, each on a fresh table. */
  rounds: IngestRound[];
  /** The median round's ratio (the engine alone). */
  ratio: number;
  /** The median round's ratio under the light reads. */
  underReadsRatio: number;
  peakRssMb: number;
  /** Light reads (version, a small request list) with nothing running, over every round. */
  idle: LatencyFigures;
  /** The same reads while the ingests run. */
  busy: LatencyFigures;
}

function figures(reads: { at: number; took: number }[]): LatencyFigures {
  const samples = reads.map((r) => r.took);
  const sorted = [...samples].sort((a, b) => a - b);
  const slowest = reads.reduce((a, b) => (b.took > a.took ? b : a), { at: NaN, took: -1 });
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return {
    requests: sorted.length,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: sorted.at(-1) ?? NaN,
    maxAtMs: slowest.at - (reads[0]?.at ?? NaN),
  };
}

/**
 * Light reads, alternating a version and a one-page request list, one every
 * `READ_INTERVAL_MS` on one connection (a closed loop with no pause would be a load of its
 * own, taking a core from the ingest), until `until` resolves or `enough` says so of a
 * request list; each read's time from send to the last byte.
 */
async function lightReads(
  client: PipelineClient,
  until: Promise<unknown> | undefined,
  enough: (list: RequestList) => boolean = () => false,
): Promise<{ at: number; took: number }[]> {
  let done = false;
  void until?.finally(() => (done = true));
  const samples: { at: number; took: number }[] = [];
  for (let i = 0; !done; i++) {
    const started = performance.now();
    if (i % 2 === 0) await client.version();
    else if (enough(await client.requestList({ pageSize: 10 }))) done = true;
    const took = performance.now() - started;
    samples.push({ at: started, took });
    if (!done && took < READ_INTERVAL_MS) await sleep(READ_INTERVAL_MS - took);
  }
  return samples;
}

const READ_INTERVAL_MS = 10;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `sqlite3 .import` of the file into a same-schema table: the baseline, in seconds. */
function sqliteImport(csv: string, database: string): number {
  const script = `PRAGMA journal_mode=WAL;\nCREATE TABLE BENCH (ID BIGINT, NAME VARCHAR, AMOUNT DOUBLE, QTY INTEGER, CREATED TIMESTAMP);\n.import --csv --skip 1 ${csv} BENCH\n`;
  const started = performance.now();
  const sqlite = spawnSync('sqlite3', [database], { input: script, encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (sqlite.status !== 0)
    throw new Error(
      `sqlite3 failed (is the sqlite3 package installed?): ${sqlite.stderr || sqlite.error?.message}`,
    );
  rmSync(database, { force: true });
  return seconds;
}

/**
 * The engine's ingest of a generated CSV against `sqlite3 .import` of the same file, in
 * `rounds` rounds (on this kind of machine one pair's ratio swings by half from run to run;
 * the median of a few is what a change can be judged by). Each round runs `.import`, the
 * engine with nothing else running (as `.import` ran: the light reads and their client take
 * about a fifth of a core), then the engine again while the light reads run.
 */
export async function benchIngest(rows = 1_000_000, rounds = 3): Promise<IngestResult> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  try {
    const data = join(folder, 'data');
    mkdirSync(join(data, 'inbox'), { recursive: true });
    const csv = join(data, 'inbox', 'bench.csv');
    await writeCsv(csv, rows);
    writeFileSync(join(folder, 'pipelines.yaml'), pipelines(rounds));

    const child = await startChild([
      '--data',
      data,
      '--pipelines',
      join(folder, 'pipelines.yaml'),
      '--no-demo',
      '--api-key',
      BENCH_KEY,
    ]);
    try {
      const client = new PipelineClient({ baseUrl: child.url, apiKey: BENCH_KEY });
      const probe = new PipelineClient({ baseUrl: child.url, apiKey: BENCH_KEY });
      const results: IngestRound[] = [];
      const idle: { at: number; took: number }[] = [];
      const busy: { at: number; took: number }[] = [];
      /** Seconds from exec to the request's Finish, seen by polling its detail every 20 ms. */
      const ingest = async (pipelineId: string): Promise<number> => {
        const begin = performance.now();
        const { requestId } = await client.exec(pipelineId, 'bench.csv');
        for (;;) {
          const detail = await client.requestDetail(requestId as string);
          if (detail.status === 'Error')
            throw new Error(`ingest failed: ${JSON.stringify(detail)}`);
          if (detail.status === 'Finish') break;
          await sleep(20);
        }
        return (performance.now() - begin) / 1000;
      };
      // Counting a million rows holds the main thread for tens of milliseconds: done once the
      // timing and the light reads are over.
      const check = async (pipelineId: string): Promise<void> => {
        const total = (await client.table('action', tableOf(pipelineId), { pageSize: 1 })).info
          .total;
        if (total !== rows) throw new Error(`expected ${rows} rows, the table has ${total}`);
      };
      for (let round = 1; round <= rounds; round++) {
        const sqliteSeconds = sqliteImport(csv, join(folder, 'baseline.db'));
        // Settle (the first answers compile and fill caches; after an ingest, the Joint's
        // thread copies its log into the database), then the engine as .import ran: alone.
        await lightReads(probe, sleep(500));
        await sleep(500);
        const engineSeconds = await ingest(aloneId(round));
        await check(aloneId(round));
        await lightReads(probe, sleep(500));
        idle.push(...(await lightReads(probe, sleep(2000))));
        // The reads' own request lists tell when the request ends: polling its detail besides
        // would run in the reads' process and slow them, which idle reads never see.
        const begin = performance.now();
        const { requestId } = await client.exec(underReadsId(round), 'bench.csv');
        busy.push(
          ...(await lightReads(probe, undefined, (list) => {
            const status = list.requests.find((r) => r.requestId === requestId)?.status;
            if (status === 'Error') throw new Error(`ingest ${requestId} failed`);
            return status === 'Finish';
          })),
        );
        const underReadsSeconds = (performance.now() - begin) / 1000;
        await check(underReadsId(round));
        results.push({
          sqliteSeconds,
          engineSeconds,
          ratio: sqliteSeconds / engineSeconds,
          underReadsSeconds,
          underReadsRatio: sqliteSeconds / underReadsSeconds,
        });
      }
      return {
        rows,
        rounds: results,
        ratio: median(results.map((r) => r.ratio)),
        underReadsRatio: median(results.map((r) => r.underReadsRatio)),
        peakRssMb: peakRssMb(child.process.pid as number),
        idle: figures(idle),
        busy: figures(busy),
      };
    } finally {
      child.process.kill('SIGTERM');
      await child.exited;
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchIngest(
    Number(process.argv[2] ?? 1_000_000),
    Number(process.argv[3] ?? 3),
  );
  console.log(result);
}
