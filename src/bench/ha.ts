import { PipelineClient } from '../kit/index.ts';
import { dayOfRequestId } from '../kit/wire.ts';
import { holdingLease, startGatewayChild, type ChildService } from '../service/testing/child.ts';
import { leaseHolderIn, startPostgres, type PostgresCluster } from '../service/testing/postgres.ts';
import {
  startVendorService,
  type VendorService,
} from '../service/testing/vendor/vendor-service.ts';

// Issue 28: what sharing PostgreSQL costs and what it buys. Sign-ins, and a signed-in
// person's Part C reads the gateway answers itself: a day's requeststats from its index (the
// session, role and index all in the store), and the pipeline list it holds for an interval
// and shares with everyone (the session and role in the store, the answer in memory); through
// one gateway on SQLite (the baseline), one gateway on PostgreSQL and two gateways on one
// PostgreSQL (the load split over both), in this run;
// then how long a poller's lease and a bulk job take to move to the other gateway when
// theirs is killed (SIGKILL).

const ADMIN_PASSWORD = 'bench-ha-admin-password';

export interface ThroughputRow {
  readonly setup: string;
  readonly signInsPerSecond: number;
  /** A day's requeststats, answered from the index. */
  readonly readsPerSecond: number;
  /** The pipeline list, the answer cached for an interval and shared. */
  readonly cachedPerSecond: number;
}

export interface HaResult {
  readonly rows: readonly ThroughputRow[];
  /** Kill of the poller lease's holder to the survivor holding it (ms). */
  readonly pollerFailoverMs: number;
  /** Kill of a bulk job's gateway to the job resumed on the other (ms). */
  readonly bulkFailoverMs: number;
  /** The vendor's retries carried out over the job's requests (1: none called twice). */
  readonly bulkCallsPerRequest: number;
}

const gateway = (vendor: VendorService, databaseUrl?: string): Promise<ChildService> =>
  // Sign-ins are limited per client address: each measured sign-in comes from an address of
  // its own, as many people's would, told by a proxy the gateway believes (loopback).
  startGatewayChild({ upstream: vendor, databaseUrl, adminPassword: ADMIN_PASSWORD });

let people = 0;
/** Another person's address, as a proxy in front of the gateways would tell it. */
const nextAddress = (): string => {
  people++;
  return `10.${(people >> 16) & 255}.${(people >> 8) & 255}.${people & 255}`;
};

async function signIn(url: string): Promise<string> {
  const response = await fetch(`${url}/mcapi/auth/login`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Forwarded-For': nextAddress(),
    },
    body: new URLSearchParams({ userName: 'admin', password: ADMIN_PASSWORD }).toString(),
  });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
  return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
}

/** Completed calls per second over `seconds`, `concurrency` at once, spread over `urls`. */
async function rate(
  urls: readonly string[],
  seconds: number,
  concurrency: number,
  call: (url: string) => Promise<void>,
): Promise<number> {
  const end = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const url = urls[i % urls.length] as string;
      while (Date.now() < end) {
        await call(url);
        done++;
      }
    }),
  );
  return done / seconds;
}

async function throughput(
  setup: string,
  urls: readonly string[],
  seconds: number,
  path: string,
): Promise<ThroughputRow> {
  const signInsPerSecond = await rate(urls, seconds, 8, async (url) => void (await signIn(url)));
  const sessions = new Map<string, string>();
  for (const url of urls) sessions.set(url, await signIn(url));
  // Each gateway answers from the index once it has seen the day.
  for (const url of urls) {
    let last = '';
    await until(async () => {
      const response = await fetch(`${url}${path}`, {
        headers: { 'X-As-SessionId': sessions.get(url) as string },
      });
      last = `${response.status} ${(await response.text()).slice(0, 200)}`;
      return response.status === 200 ? true : undefined;
    }, `${url} to index the day`).catch((error: unknown) => {
      throw new Error(`${(error as Error).message} (its last answer: ${last})`);
    });
  }
  const reads = (readPath: string) =>
    rate(urls, seconds, 32, async (url) => {
      const response = await fetch(`${url}${readPath}`, {
        headers: { 'X-As-SessionId': sessions.get(url) as string },
      });
      if (response.status !== 200) throw new Error(`${readPath} answered ${response.status}`);
      await response.arrayBuffer();
    });
  const readsPerSecond = await reads(path);
  const cachedPerSecond = await reads('/pipelineapi/list/json');
  return { setup, signInsPerSecond, readsPerSecond, cachedPerSecond };
}

async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function failovers(
  cluster: PostgresCluster,
): Promise<Pick<HaResult, 'pollerFailoverMs' | 'bulkFailoverMs' | 'bulkCallsPerRequest'>> {
  const vendor = await startVendorService();
  const requests = 300;
  vendor.addRequests('pl_2', requests, 'daily.csv', 'failed');
  const url = await cluster.freshDatabase();
  const children = [await gateway(vendor, url), await gateway(vendor, url)];
  try {
    // The poller: whoever holds `poller:prod` is killed; the other takes it.
    const first = await until(
      () => leaseHolderIn(url, 'poller:upstream'),
      'a poller to hold its lease',
    );
    const polling = holdingLease(children, first);
    if (!polling) throw new Error(`no gateway holds ${first}`);
    polling.process.kill('SIGKILL');
    const pollerKilled = Date.now();
    await until(async () => {
      const holder = await leaseHolderIn(url, 'poller:upstream');
      return holder !== undefined && holder !== first ? holder : undefined;
    }, 'the other gateway to take the poller over');
    const pollerFailoverMs = Date.now() - pollerKilled;

    // A bulk job: started on the survivor, which is then killed; a third gateway takes it.
    const survivor = children.find((child) => child !== polling) as ChildService;
    children.push(await gateway(vendor, url));
    const session = await signIn(survivor.url);
    const client = new PipelineClient({
      baseUrl: survivor.url,
      credentials: { kind: 'session', sessionId: session },
    });
    const day = dayOfRequestId(vendor.requests()[0]?.requestId ?? '') as string;
    const selection = {
      action: 'retry' as const,
      date: day,
      statuses: [vendor.variant.status.failed],
    };
    await until(
      async () => ((await client.bulk.preview(selection)).total === requests ? true : undefined),
      'the day to be indexed',
    );
    vendor.setDelay(20);
    const started = await client.bulk.start(selection, 'bench', requests);
    await until(
      async () => ((vendor.calls().requestretry ?? 0) >= 40 ? true : undefined),
      'the job to be under way',
    );
    survivor.process.kill('SIGKILL');
    const bulkKilled = Date.now();
    vendor.setDelay(0);
    const third = new PipelineClient({
      baseUrl: (children[2] as ChildService).url,
      credentials: { kind: 'session', sessionId: session },
    });
    const job = await until(async () => {
      const seen = await third.bulk.job(started.jobId);
      return seen.state === 'done' ? seen : undefined;
    }, 'the job to finish on the third gateway');
    return {
      pollerFailoverMs,
      bulkFailoverMs: Date.parse(job.resumed ?? '') - bulkKilled,
      bulkCallsPerRequest: (vendor.carriedOut().requestretry ?? 0) / requests,
    };
  } finally {
    for (const child of children)
      if (child.process.exitCode === null) child.process.kill('SIGKILL');
    await vendor.close();
  }
}

export async function benchHa(seconds: number): Promise<HaResult> {
  const cluster = await startPostgres();
  const vendor = await startVendorService();
  // Under the double's page bound (1,000), so that its whole day is in one answer.
  vendor.addRequests('pl_1', 500);
  vendor.addRequests('pl_2', 20, 'broken.csv', 'failed');
  const day = dayOfRequestId(vendor.requests()[0]?.requestId ?? '') as string;
  // The day's exact counts, which a gateway answers from its index, a person signed in.
  const path = `/pipelineapi/requeststats/json?date=${day}`;
  const started: ChildService[] = [];
  try {
    const sqlite = await gateway(vendor);
    started.push(sqlite);
    const oneUrl = await cluster.freshDatabase();
    const one = await gateway(vendor, oneUrl);
    started.push(one);
    const twoUrl = await cluster.freshDatabase();
    const pair = [await gateway(vendor, twoUrl), await gateway(vendor, twoUrl)];
    started.push(...pair);
    const rows = [
      await throughput('one gateway on SQLite (baseline)', [sqlite.url], seconds, path),
      await throughput('one gateway on PostgreSQL', [one.url], seconds, path),
      await throughput(
        'two gateways on one PostgreSQL',
        pair.map((child) => child.url),
        seconds,
        path,
      ),
    ];
    for (const child of started) child.process.kill('SIGTERM');
    return { rows, ...(await failovers(cluster)) };
  } finally {
    for (const child of started) if (child.process.exitCode === null) child.process.kill('SIGKILL');
    await vendor.close();
    await cluster.remove();
  }
}
