import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabases } from '../service/db/databases.ts';
import { quoteIdentifier } from '../service/db/sqlite.ts';
import { statusTableName } from '../service/db/status/requests.ts';
import { freePort } from '../service/testing/child.ts';
import { BENCH_KEY, seedRequests, startBenchService } from './seed.ts';

/** One request in 2,500 of the seeded day ends in Error: 40 of 100,000, spread over the day. */
const ERROR_EVERY = 2500;

/** Turns some of the seeded day's requests to Error (the status triggers keep the counts). */
function seedErrors(dataDir: string, day: string): number {
  const dbs = openDatabases(dataDir);
  try {
    return dbs.status
      .prepare(
        `UPDATE ${quoteIdentifier(statusTableName(day))} SET STATUS = 'Error', ERRORMSG = 'input missing', ERROR = 1
         WHERE rowid % ${ERROR_EVERY} = 0`,
      )
      .run().changes;
  } finally {
    dbs.close();
  }
}

function medianMs(run: () => unknown, times = 21): number {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    run();
    ms.push(performance.now() - started);
  }
  return ms.sort((a, b) => a - b)[Math.floor(times / 2)] ?? Number.NaN;
}

/**
 * In the database alone, what requeststats and a list by status cost against reading the
 * day: the kept counts against a GROUP BY over the day's table, the status index against
 * the same query told not to use it. Medians of 21.
 */
function countsAgainstScans(dataDir: string, day: string) {
  const dbs = openDatabases(dataDir);
  try {
    const table = quoteIdentifier(statusTableName(day));
    const counts = dbs.status.prepare(
      'SELECT PIPELINEID, HOUR, STATUS, N FROM REQUEST_COUNT WHERE DAY = ? AND N > 0',
    );
    const scan = dbs.status.prepare(
      `SELECT PIPELINEID, CAST(substr(CREATED, 12, 2) AS INTEGER) AS HOUR, STATUS, COUNT(*) FROM ${table} GROUP BY 1, 2, 3`,
    );
    const byIndex = dbs.status.prepare(
      `SELECT REQUESTID FROM ${table} WHERE STATUS IN ('Error') ORDER BY rowid DESC LIMIT 100`,
    );
    const noIndex = dbs.status.prepare(
      `SELECT REQUESTID FROM ${table} NOT INDEXED WHERE STATUS IN ('Error') ORDER BY rowid DESC LIMIT 100`,
    );
    return {
      countsMs: medianMs(() => counts.all(day)),
      scanMs: medianMs(() => scan.all()),
      statusIndexMs: medianMs(() => byIndex.all()),
      statusScanMs: medianMs(() => noIndex.all()),
    };
  } finally {
    dbs.close();
  }
}

async function firstAnswerMs(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: HEADERS });
  await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - started;
}

const HEADERS = { 'X-Pipelinewebapi': BENCH_KEY };

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  /**
   * CPU time (user and system, every thread) the server's process spent per answer: on two
   * shared cores the req/s of either side follow the CPU the scheduler gives it, its CPU
   * per answer much less so. NaN where /proc cannot tell.
   */
  readonly cpuMicrosPerAnswer: number;
}

/** CPU time of a process so far, in µs, from /proc (utime + stime, in clock ticks of 10 ms). */
function cpuMicros(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

/** wrk (Debian package) when it is installed: autocannon saturates its own core first (perf notes). */
export const LOAD_GENERATOR = spawnSync('wrk', ['--version']).error ? 'autocannon' : 'wrk';

function milliseconds(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return Number.NaN;
  const value = Number(m[1]);
  const unit = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm'];
  return value * unit;
}

/**
 * A percentile of wrk's "Latency Distribution", in ms. Read from the start of its own line:
 * unanchored, `50%` first matched the "+/- Stdev" column above it (`75.50%`), and the word
 * after that (`Req/Sec`) made the p50 NaN.
 */
export function wrkPercentile(out: string, percent: 50 | 75 | 90 | 99): number {
  return milliseconds(new RegExp(`^\\s*${percent}%\\s+(\\S+)\\s*$`, 'm').exec(out)?.[1] ?? '');
}

async function load(
  url: string,
  seconds: number,
  headers: Record<string, string>,
  pid: number | undefined,
): Promise<LoadResult> {
  const cpuBefore = cpuMicros(pid);
  if (LOAD_GENERATOR === 'wrk') {
    const headerArgs = Object.entries(headers).flatMap(([name, value]) => [
      '-H',
      `${name}: ${value}`,
    ]);
    const out = spawnSync(
      'wrk',
      ['-t1', '-c50', `-d${seconds}s`, '--latency', ...headerArgs, url],
      { encoding: 'utf8' },
    ).stdout;
    return {
      requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
      p50: wrkPercentile(out, 50),
      p99: wrkPercentile(out, 99),
      non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
      cpuMicrosPerAnswer:
        (cpuMicros(pid) - cpuBefore) / Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN),
    };
  }
  const result = await autocannon({ url, connections: 50, duration: seconds, headers });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    cpuMicrosPerAnswer: (cpuMicros(pid) - cpuBefore) / result.requests.total,
  };
}

/** A bare node:http server answering every request with the same bytes, in its own process. */
async function bareServer(body: Buffer, contentType: string, folder: string) {
  const file = join(folder, `body-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, body);
  const port = await freePort();
  const code = `const b=require('fs').readFileSync(${JSON.stringify(file)});require('http').createServer((q,r)=>{r.writeHead(200,{'content-type':${JSON.stringify(contentType)},'content-length':b.length});r.end(b)}).listen(${port},'127.0.0.1',()=>console.log('up'))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

export interface ApiRow {
  readonly name: string;
  readonly bytes: number;
  /** The run of each side whose ratio was the median of the rounds. */
  readonly bare: LoadResult;
  readonly service: LoadResult;
  /** Service req/s over bare req/s of each round (bare and service back to back). */
  readonly ratios: readonly number[];
  /** The median of `ratios`. */
  readonly ratio: number;
}

/**
 * How the load generator calls: with the key and the SESSIONID the first answer set, as
 * interfaces.md's coordinator client does (a live cookie: nothing is minted), or with the
 * key alone (the contract then mints a SESSIONID for every answer).
 */
export type Caller = 'key and cookie' | 'key alone';

/** The first list/json row: the cached answer the goal (ratio ≥ 0.5) is about. */
export const HEADLINE = 'list, json';

/**
 * Each endpoint under load next to a bare server returning the same bytes, in the same run:
 * `rounds` times the bare server then the service, back to back, and the median ratio.
 */
export async function benchApi(
  seconds = 5,
  requests = 100_000,
  rounds = 3,
): Promise<{
  rows: ApiRow[];
  firstDeepMs: number;
  firstListMs: number;
  /** Uncached requeststats and requestlist by status=Error, and the errors in the day. */
  firstStatsMs: number;
  firstErrorListMs: number;
  errors: number;
  database: ReturnType<typeof countsAgainstScans>;
}> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-api-'));
  try {
    const data = join(folder, 'data');
    const { day, sample } = seedRequests(data, requests);
    const errors = seedErrors(data, day);
    const database = countsAgainstScans(data, day);
    const child = await startBenchService(data);
    try {
      const endpoints: [string, string, Caller?][] = [
        [HEADLINE, '/pipelineapi/list/json'],
        ['list, json, key alone', '/pipelineapi/list/json', 'key alone'],
        ['list, xml', '/pipelineapi/list/xml'],
        ['requestlist, first page', `/pipelineapi/requestlist/xml?date=${day}&pagesize=100`],
        [
          'requestlist, index 90,000',
          `/pipelineapi/requestlist/xml?date=${day}&pagesize=100&index=${Math.max(0, requests - 10_000)}`,
        ],
        [
          'requestdetail with logs',
          `/pipelineapi/requestdetail/xml?requestid=${sample}&requestlog=true&applog=true`,
        ],
        ['statusdb page', `/pipelineapi/statusdb/xml?tablename=STATUS${day}&pagesize=100`],
        ['requeststats of the day', `/pipelineapi/requeststats/xml?date=${day}`],
        [
          'requestlist, status=Error',
          `/pipelineapi/requestlist/xml?date=${day}&status=Error&pagesize=100`,
        ],
      ];
      // The first, uncached answers: what a deep page costs the database.
      let started = performance.now();
      await fetch(`${child.url}${endpoints[4]?.[1]}`, { headers: HEADERS }).then((r) => r.text());
      const firstDeepMs = performance.now() - started;
      started = performance.now();
      await fetch(`${child.url}${endpoints[3]?.[1]}`, { headers: HEADERS }).then((r) => r.text());
      const firstListMs = performance.now() - started;
      const firstStatsMs = await firstAnswerMs(`${child.url}${endpoints[7]?.[1]}`);
      const firstErrorListMs = await firstAnswerMs(`${child.url}${endpoints[8]?.[1]}`);
      const rows: ApiRow[] = [];
      for (const [name, path, caller = 'key and cookie'] of endpoints) {
        const response = await fetch(`${child.url}${path}`, { headers: HEADERS });
        const body = Buffer.from(await response.arrayBuffer());
        if (response.status !== 200) throw new Error(`${name} answered ${response.status}`);
        const cookie = /^SESSIONID=[^;]+/.exec(response.headers.get('set-cookie') ?? '')?.[0];
        if (cookie === undefined) throw new Error(`${name}: the answer set no SESSIONID`);
        const headers = caller === 'key alone' ? HEADERS : { ...HEADERS, Cookie: cookie };
        const bare = await bareServer(
          body,
          response.headers.get('content-type') ?? 'text/xml',
          folder,
        );
        try {
          // Neither side is measured while V8 still compiles its hot path.
          await load(bare.url, 1, {}, undefined);
          await load(`${child.url}${path}`, 1, headers, undefined);
          const runs: { bare: LoadResult; service: LoadResult; ratio: number }[] = [];
          for (let round = 0; round < rounds; round++) {
            const bareResult = await load(bare.url, seconds, {}, bare.pid);
            const serviceResult = await load(
              `${child.url}${path}`,
              seconds,
              headers,
              child.process.pid,
            );
            const ratio = serviceResult.requestsPerSecond / bareResult.requestsPerSecond;
            runs.push({ bare: bareResult, service: serviceResult, ratio });
          }
          const ratios = runs.map((r) => r.ratio);
          const middle = [...runs].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds / 2)];
          if (!middle) throw new Error('no rounds');
          rows.push({
            name,
            bytes: body.length,
            bare: middle.bare,
            service: middle.service,
            ratios,
            ratio: middle.ratio,
          });
        } finally {
          bare.stop();
        }
      }
      return {
        rows,
        firstDeepMs,
        firstListMs,
        firstStatsMs,
        firstErrorListMs,
        errors,
        database,
      };
    } finally {
      child.process.kill('SIGTERM');
      await child.exited;
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Exec to Finish of a 10-row file, one request at a time, from the status table's own timestamps. */
export async function benchLatency(runs = 50): Promise<{ median: number; p90: number }> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-latency-'));
  try {
    const child = await startBenchService(join(folder, 'data'));
    try {
      writeFileSync(
        join(folder, 'data', 'inbox', 'ten.csv'),
        `order_id,customer,region,amount,quantity,ordered_at\n${Array.from({ length: 10 }, (_, i) => `${i},c${i},EU,${i + 20},2,2026-11-20 10:00:00`).join('\n')}\n`,
      );
      const ids: string[] = [];
      for (let i = 0; i < runs; i++) {
        const response = await fetch(`${child.url}/pipelineapi/exec/json`, {
          method: 'POST',
          headers: { ...HEADERS, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'pipelineid=pl_1&filename=ten.csv',
        });
        const id = ((await response.json()) as { ExecuteResponse: { RequestId: string } })
          .ExecuteResponse.RequestId;
        ids.push(id);
        for (;;) {
          const detail = (await (
            await fetch(`${child.url}/pipelineapi/requestdetail/json?requestid=${id}`, {
              headers: HEADERS,
            })
          ).json()) as { RequestDetail: { Status: string } };
          if (['Finish', 'Error'].includes(detail.RequestDetail.Status)) break;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
      const day = ids[0]?.slice(5, 13);
      const table = (await (
        await fetch(`${child.url}/pipelineapi/statusdb/json?tablename=STATUS${day}&pagesize=1000`, {
          headers: HEADERS,
        })
      ).json()) as {
        Result: { Record: { Item: (string | null)[] }[] };
      };
      const ms = table.Result.Record.map(
        (r) =>
          Date.parse((r.Item[3] as string).replace(' ', 'T')) -
          Date.parse((r.Item[2] as string).replace(' ', 'T')),
      ).sort((a, b) => a - b);
      return {
        median: ms[Math.floor(ms.length / 2)] ?? NaN,
        p90: ms[Math.floor(ms.length * 0.9)] ?? NaN,
      };
    } finally {
      child.process.kill('SIGTERM');
      await child.exited;
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
