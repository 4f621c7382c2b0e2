import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { DIST_DIR } from '../service/app.ts';
import { startChild, type ChildService } from '../service/testing/child.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../service/testing/chromium.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../service/testing/vendor/vendor-service.ts';
import { overviewRefresh, withApiKey } from './dashboard.ts';
import { openOverviews } from './fan-in.ts';
import { BENCH_KEY } from './seed.ts';

// Issue 23's goals for a gateway in front of vendors that answer a whole day in one piece
// (pagesize ignored, no Next, Shift_JIS, slash dates): a day of 100,000 requests (39 failed)
// read in bounded memory, its exact counts soon after start, a refresh that costs the
// browser little and the upstream the same whatever the number of dashboards; and how many
// such services one gateway holds with rounds of at most 30 s.

const DAY = 100_000;
const FAILED = 39;

/** A whole-day vendor with today's 100,000 requests, 39 of them in Error. */
async function wholeDayVendor(apiKey?: string): Promise<VendorService> {
  const vendor = await startVendorService({
    variant: VENDOR_VARIANTS.pacific,
    ...(apiKey ? { apiKey } : {}),
    behaviour: {
      pagesize: 'ignored',
      next: 'absent',
      charset: 'shift_jis',
      language: 'ja',
      dates: 'slash',
    },
  });
  vendor.addRequests('pl_1', DAY - FAILED);
  vendor.addRequests('pl_2', FAILED, 'broken.csv', 'failed');
  return vendor;
}

/** The resident memory (MiB) and CPU seconds of a process so far, from /proc. */
function usage(pid: number): { rssMb: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime, the 12th and 13th fields after the command; clock ticks of 1/100 s.
  const ticks = Number(stat[11]) + Number(stat[12]);
  return { rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024, cpuSeconds: ticks / 100 };
}

/** Samples a process's RSS every 20 ms until stopped; gives its peak. */
function peakRss(pid: number): () => number {
  let peak = usage(pid).rssMb;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, usage(pid).rssMb);
    } catch {
      // The process ended.
    }
  }, 20);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

interface Stats {
  RequestStats: {
    Total: number;
    Pipeline: { Count: { Status: string; Value: number }[] }[];
  };
}

/** Waits until the gateway's requeststats is exact: the day's total and its failures. */
async function untilExact(gateway: ChildService): Promise<number> {
  for (;;) {
    const response = await fetch(`${gateway.url}/pipelineapi/requeststats/json`, {
      headers: { 'X-Pipelinewebapi': BENCH_KEY, 'Accept-Encoding': 'gzip' },
    });
    if (response.status === 200) {
      const stats = (await response.json()) as Stats;
      const failed = stats.RequestStats.Pipeline.flatMap((p) => p.Count)
        .filter((c) => c.Status === 'Error')
        .reduce((n, c) => n + c.Value, 0);
      if (stats.RequestStats.Total === DAY && failed === FAILED) return performance.now();
    } else await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface WholeDayResult {
  /** RSS of the gateway as it started (before its first round), and its peak over the rounds. */
  readonly startRssMb: number;
  readonly peakRssMb: number;
  /** RSS once its rounds go on with the day indexed. */
  readonly settledRssMb: number;
  /** From starting the process to exact counts through the API, and from it serving. */
  readonly toExactFromStartMs: number;
  readonly toExactFromServingMs: number;
  /** Bytes of one overview refresh in Chromium (answers with headers), and its calls. */
  readonly bytesPerRefresh: number;
  readonly callsPerRefresh: Readonly<Record<string, number>>;
  /** Upstream calls per minute with 1 and 5 open overviews. */
  readonly upstreamPerMinute: ReadonlyMap<number, number>;
  /** Those calls by api (per minute), with 1 and 5 open overviews: what the rounds ask. */
  readonly upstreamByApi: ReadonlyMap<number, Readonly<Record<string, number>>>;
  readonly pollSeconds: number | null;
  readonly lastRoundMs: number | null;
}

async function signIn(gateway: ChildService, password: string): Promise<string> {
  const response = await fetch(`${gateway.url}/mcapi/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `userName=admin&password=${encodeURIComponent(password)}`,
  });
  const body = (await response.json()) as { result: { data: { sessionId: string } } };
  return body.result.data.sessionId;
}

interface ServiceFacts {
  id: string;
  capabilities?: { pollSeconds: number | null; lastRoundMs: number | null };
}

async function servicesOf(gateway: ChildService, session: string): Promise<ServiceFacts[]> {
  const response = await fetch(`${gateway.url}/mcapi/services`, {
    headers: { 'X-As-SessionId': session },
  });
  return ((await response.json()) as { result: { data: { services: ServiceFacts[] } } }).result.data
    .services;
}

const PASSWORD = 'bench-admin-password-0123';

/** One whole-day vendor of 100,000 requests behind a gateway in its own process. */
export async function benchGatewayWholeDay(seconds: number): Promise<WholeDayResult> {
  if (!existsSync(join(DIST_DIR, 'index.html')))
    throw new Error('build the dashboard first: npm run build');
  const vendor = await wholeDayVendor();
  const folder = mkdtempSync(join(tmpdir(), 'bench-gateway-'));
  const started = performance.now();
  const gateway = await startChild([
    ...['--data', join(folder, 'data'), '--api-key', BENCH_KEY],
    ...['--admin-password', PASSWORD, '--upstream', vendor.url, '--upstream-key', vendor.apiKey],
  ]);
  const serving = performance.now();
  const pid = gateway.process.pid as number;
  const startRssMb = usage(pid).rssMb;
  const stopSampling = peakRss(pid);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const exact = await untilExact(gateway);
    // Two more rounds with the day indexed: what a gateway holds while it goes on.
    const total = () => Object.values(vendor.calls()).reduce((sum, n) => sum + n, 0);
    const rounds = vendor.calls().requestlist ?? 0;
    while ((vendor.calls().requestlist ?? 0) < rounds + 2)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const peakRssMb = stopSampling();
    const settledRssMb = usage(pid).rssMb;

    // One refresh of an open overview: every Part C call from one requeststats to the next.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await withApiKey(context, BENCH_KEY);
    const page = await context.newPage();
    await page.goto(`${gateway.url}/`);
    await page.getByTestId('day-total').waitFor();
    const { bytesPerRefresh, callsPerRefresh } = await overviewRefresh(page);
    await context.close();

    const upstreamPerMinute = new Map<number, number>();
    const upstreamByApi = new Map<number, Record<string, number>>();
    for (const pages of [1, 5]) {
      const close = await openOverviews(browser, gateway.url, pages, () => undefined);
      const before = total();
      const beforeByApi = { ...vendor.calls() };
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      upstreamPerMinute.set(pages, ((total() - before) * 60) / seconds);
      upstreamByApi.set(
        pages,
        Object.fromEntries(
          Object.entries(vendor.calls())
            .map(([api, n]) => [api, ((n - (beforeByApi[api] ?? 0)) * 60) / seconds] as const)
            .filter(([, perMinute]) => perMinute > 0),
        ),
      );
      await close();
    }
    const facts = (await servicesOf(gateway, await signIn(gateway, PASSWORD)))[0]?.capabilities;
    return {
      startRssMb,
      peakRssMb,
      settledRssMb,
      toExactFromStartMs: exact - started,
      toExactFromServingMs: exact - serving,
      bytesPerRefresh,
      callsPerRefresh,
      upstreamPerMinute,
      upstreamByApi,
      pollSeconds: facts?.pollSeconds ?? null,
      lastRoundMs: facts?.lastRoundMs ?? null,
    };
  } finally {
    stopSampling();
    await browser.close();
    gateway.process.kill('SIGTERM');
    await gateway.exited;
    await vendor.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

export interface ServicesPerGatewayResult {
  readonly services: number;
  readonly seconds: number;
  /** Rounds each service's poller completed in the window (from the vendors' own counts). */
  readonly rounds: readonly number[];
  readonly lastRoundMs: readonly (number | null)[];
  readonly pollSeconds: readonly (number | null)[];
  readonly peakRssMb: number;
  /** Average share of one core the gateway used over the window. */
  readonly cpuShare: number;
  /** CPU seconds one service's round costs the gateway (window CPU over rounds). */
  readonly cpuPerRound: number;
  /** Whole-day services one gateway core holds with a round every 30 s (from cpuPerRound). */
  readonly estimatedServices: number;
}

/** `count` whole-day vendors of 100,000 requests each behind one gateway, for `seconds`. */
export async function benchServicesPerGateway(
  count: number,
  seconds: number,
): Promise<ServicesPerGatewayResult> {
  const vendors: VendorService[] = [];
  for (let i = 0; i < count; i++)
    vendors.push(await wholeDayVendor(`vendor-key-${i}-0123456789abcdefghij`));
  const folder = mkdtempSync(join(tmpdir(), 'bench-services-'));
  const file = join(folder, 'services.yaml');
  writeFileSync(
    file,
    `services:\n${vendors
      .map(
        (v, i) =>
          `  - id: s${i}\n    name: Service ${i}\n    url: ${v.url}\n    apiKey: ${v.apiKey}\n`,
      )
      .join('')}`,
  );
  const gateway = await startChild([
    ...['--data', join(folder, 'data'), '--api-key', BENCH_KEY, '--admin-password', PASSWORD],
    ...['--services', file],
  ]);
  const pid = gateway.process.pid as number;
  try {
    // Every service's day indexed once before the window opens.
    const session = await signIn(gateway, PASSWORD);
    for (;;) {
      const facts = await servicesOf(gateway, session);
      if (facts.every((f) => f.capabilities?.lastRoundMs != null)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const stopSampling = peakRss(pid);
    const listed = () => vendors.map((v) => v.calls().requestlist ?? 0);
    const before = listed();
    const cpuBefore = usage(pid).cpuSeconds;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const cpu = usage(pid).cpuSeconds - cpuBefore;
    const rounds = listed().map((n, i) => n - (before[i] ?? 0));
    const peakRssMb = stopSampling();
    const facts = await servicesOf(gateway, session);
    const roundsInAll = rounds.reduce((a, b) => a + b, 0);
    const cpuPerRound = roundsInAll > 0 ? cpu / roundsInAll : Number.NaN;
    return {
      services: count,
      seconds,
      rounds,
      lastRoundMs: facts.map((f) => f.capabilities?.lastRoundMs ?? null),
      pollSeconds: facts.map((f) => f.capabilities?.pollSeconds ?? null),
      peakRssMb,
      cpuShare: cpu / seconds,
      cpuPerRound,
      estimatedServices: Math.floor(30 / cpuPerRound),
    };
  } finally {
    gateway.process.kill('SIGTERM');
    await gateway.exited;
    for (const v of vendors) await v.close();
    rmSync(folder, { recursive: true, force: true });
  }
}
