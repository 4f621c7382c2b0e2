import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient, type BulkJob } from '../../kit/index.ts';
import { dayOfRequestId } from '../../kit/wire.ts';
import { startGatewayChild, type ChildService } from '../testing/child.ts';
import { startPostgres, type PostgresCluster } from '../testing/postgres.ts';
import { eventually } from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';
import { BULK_LEASE_MS } from '../bulk/jobs.ts';

// Two gateway processes on one PostgreSQL in front of one vendor (contract section 11): a
// bulk job whose gateway is killed (SIGKILL, no goodbye) is taken over by the other within
// 60 s, calls no request twice at the vendor, and its report is complete.

const ADMIN_PASSWORD = 'takeover-admin-password';
const REQUESTS = 300;

let cluster: PostgresCluster;
let vendor: VendorService;
const children: ChildService[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
  vendor = await startVendorService();
  vendor.addRequests('pl_2', REQUESTS, 'daily.csv', 'failed');
});

afterAll(async () => {
  for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
  await vendor.close();
  await cluster.remove();
});

async function gateway(databaseUrl: string): Promise<ChildService> {
  const child = await startGatewayChild({
    upstream: vendor,
    databaseUrl,
    adminPassword: ADMIN_PASSWORD,
  });
  children.push(child);
  return child;
}

async function adminSession(child: ChildService): Promise<string> {
  const response = await fetch(`${child.url}/mcapi/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName: 'admin', password: ADMIN_PASSWORD }).toString(),
  });
  return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
}

const clientOf = (child: ChildService, sessionId: string): PipelineClient =>
  new PipelineClient({ baseUrl: child.url, credentials: { kind: 'session', sessionId } });

describe('a bulk job whose gateway dies', () => {
  it(
    'is taken over by the other gateway, calling no request twice, its report complete',
    { timeout: 180_000 },
    async () => {
      const databaseUrl = await cluster.freshDatabase();
      const [one, two] = [await gateway(databaseUrl), await gateway(databaseUrl)];
      const session = await adminSession(one);
      const onOne = clientOf(one, session);
      const failed = vendor.variant.status.failed;
      // The first gateway's index has seen the day once its preview counts every request.
      const day = dayOfRequestId(vendor.requests()[0]?.requestId ?? '') as string;
      const selection = { action: 'retry' as const, date: day, statuses: [failed] };
      await eventually(
        async () =>
          (await onOne.bulk.preview(selection).catch(() => undefined))?.total === REQUESTS
            ? true
            : undefined,
        'the first gateway to index the day',
        30_000,
      );
      // Slow enough that the job is under way when its gateway dies.
      vendor.setDelay(20);
      const started = await onOne.bulk.start(selection, 'takeover test', REQUESTS);
      await eventually(
        () => ((vendor.calls().requestretry ?? 0) >= 40 ? true : undefined),
        'the job to be under way',
        30_000,
      );
      one.process.kill('SIGKILL');
      const killedAt = Date.now();
      await one.exited;
      vendor.setDelay(0);

      // The session made on the dead gateway is the shared store's: it works on the other.
      const onTwo = clientOf(two, session);
      const job = await eventually(
        async () => {
          const seen = await onTwo.bulk.job(started.jobId, { pageSize: 1000 });
          return seen.state === 'done' ? seen : undefined;
        },
        'the other gateway to finish the job',
        120_000,
      );
      const resumedAt = Date.parse(job.resumed ?? '');
      expect(resumedAt - killedAt).toBeLessThan(60_000);
      // Not before the dead gateway's lease ran out: nobody took it while it was held.
      expect(resumedAt - killedAt).toBeGreaterThan(0);
      expect(BULK_LEASE_MS).toBeLessThan(60_000);
      expect(job).toMatchObject<Partial<BulkJob>>({
        total: REQUESTS,
        done: REQUESTS,
        succeeded: REQUESTS,
        refused: 0,
        failed: 0,
      });
      expect(new Set(job.items.map((item) => item.requestId)).size).toBe(REQUESTS);
      // Each request was retried once at the vendor, whichever gateway called it. (A call
      // that was on its way when its gateway died may have reached the vendor, which drops
      // a call whose caller left: then it was not carried out, and was made again.)
      expect(vendor.carriedOut().requestretry).toBe(REQUESTS);
      expect(vendor.calls().requestretry).toBeLessThanOrEqual(REQUESTS + 1);
      for (const request of vendor.requests()) expect(request.status).not.toBe(failed);
    },
  );
});
