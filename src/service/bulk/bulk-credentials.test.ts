import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient, type BulkJob } from '../../kit/index.ts';
import { addUser } from '../auth/users.ts';
import { queryAudit } from '../db/system/audit.ts';
import { startPostgres, type PostgresCluster } from '../testing/postgres.ts';
import {
  eventually,
  signIn as signInAs,
  startService,
  TEST_API_KEY,
  type TestService,
} from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';
import { BULK_BATCH } from './jobs.ts';

// Issue 39, item 1: a bulk job runs under the credential it started with (a session, a
// personal token or the shared key) and stops within one batch once that credential ends,
// saying why in the job's outcome and in the audit log. On SQLite (one gateway) and on
// PostgreSQL across two gateways: the job runs on one, the credential ends on the other.

const PASSWORD = 'bulk-credentials-password-1';
const REQUESTS = 3 * BULK_BATCH;

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.remove();
});

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

interface Gateways {
  readonly vendor: VendorService;
  /** Where the job starts and runs. */
  readonly runs: TestService;
  /** Where the credential ends: the same gateway on SQLite, the other on PostgreSQL. */
  readonly ends: TestService;
  readonly day: string;
}

async function gateways(store: 'sqlite' | 'postgres'): Promise<Gateways> {
  const vendor = await startVendorService();
  open.push(() => vendor.close());
  const services = [{ id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey }];
  const databaseUrl = store === 'postgres' ? await cluster.freshDatabase() : undefined;
  const runs = await startService({ services, pollScheduled: false, databaseUrl });
  open.push(() => runs.close());
  const ends =
    store === 'postgres'
      ? await startService({ services, pollScheduled: false, databaseUrl })
      : runs;
  if (ends !== runs) open.push(() => ends.close());
  const poller = runs.app.context.services.route('prod')?.upstream?.poller;
  if (!poller) throw new Error('the gateway keeps no index of its upstream');
  vendor.addRequests('pl_2', REQUESTS, 'broken.csv', 'failed');
  await poller.pollNow();
  const day = (await poller.index.state('prod')).today as string;
  await addUser(runs.app.context.shared, 'olivia', PASSWORD, 'operator', 'now');
  await addUser(runs.app.context.shared, 'ada', PASSWORD, 'administrator', 'now');
  return { vendor, runs, ends, day };
}

/** A session of `userName` on `server` (the testing helper, with this file's password). */
const signIn = (server: TestService, userName: string): Promise<string> =>
  signInAs(server, userName, PASSWORD);

/** A Part A call as `sessionId`, form fields in its body; its status. */
async function partA(
  server: TestService,
  sessionId: string,
  path: string,
  method: string,
  fields: Record<string, string> = {},
): Promise<{ status: number; data: Record<string, unknown> }> {
  const response = await server.fetch(path, {
    method,
    headers: {
      'X-As-SessionId': sessionId,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    ...(method === 'GET' ? {} : { body: new URLSearchParams(fields).toString() }),
  });
  const body = (await response.json()) as { result: { data?: Record<string, unknown> } };
  return { status: response.status, data: body.result.data ?? {} };
}

const client = (server: TestService, credentials: { sessionId: string } | { apiKey: string }) =>
  new PipelineClient({
    baseUrl: `${server.url}/services/prod`,
    fetch: server.checkedFetch,
    ...('apiKey' in credentials
      ? { apiKey: credentials.apiKey }
      : { credentials: { kind: 'session' as const, sessionId: credentials.sessionId } }),
  });

interface Kind {
  /** A client with the credential, and the session id when it is one. */
  start(g: Gateways): Promise<{ client: PipelineClient; sessionId?: string }>;
  end(g: Gateways, sessionId: string | undefined): Promise<void>;
  readonly why: RegExp;
}

/** The credential each kind starts a job with, and how it ends on another gateway. */
const KINDS: Record<'session' | 'token' | 'key', Kind> = {
  session: {
    async start(g) {
      const sessionId = await signIn(g.runs, 'olivia');
      return { client: client(g.runs, { sessionId }), sessionId };
    },
    async end(g, sessionId) {
      const out = await g.ends.fetch('/mcapi/auth/logout', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ sessionId: sessionId ?? '' }).toString(),
      });
      expect(out.status).toBe(200);
    },
    why: /^The session it was started in ended \(signed out.*\), so the job stopped\.$/,
  },
  token: {
    async start(g) {
      const olivia = await signIn(g.runs, 'olivia');
      const made = await partA(g.runs, olivia, '/mcapi/tokens', 'POST', {
        name: 'nightly',
        expiresInDays: '2',
      });
      expect(made.status).toBe(200);
      return { client: client(g.runs, { apiKey: made.data.token as string }) };
    },
    async end(g) {
      // Revoked by an administrator, on the other gateway.
      const ada = await signIn(g.ends, 'ada');
      const listed = await partA(g.ends, ada, '/mcapi/tokens?user=olivia', 'GET');
      const [token] = listed.data.tokens as { id: number }[];
      expect((await partA(g.ends, ada, `/mcapi/tokens/${token?.id}`, 'DELETE')).status).toBe(200);
    },
    why: /^The personal token nightly was revoked at \S+ \(revoked by the administrator ada\), so the job stopped\.$/,
  },
  key: {
    start: async (g) => ({ client: client(g.runs, { apiKey: TEST_API_KEY }) }),
    async end(g) {
      const ada = await signIn(g.ends, 'ada');
      const off = await partA(g.ends, ada, '/mcapi/pipeline/settings', 'PUT', {
        apiEnabled: 'true',
        sharedKeyEnabled: 'false',
      });
      expect(off.status).toBe(200);
    },
    why: /^The shared key was turned off by an administrator, so the job stopped\.$/,
  },
};

describe.each(['sqlite', 'postgres'] as const)(
  'a bulk job on %s whose credential ends',
  (store) => {
    it.each(['session', 'token', 'key'] as const)(
      'started with a %s: stops within one batch, saying why in its outcome and the audit log',
      async (kind) => {
        const g = await gateways(store);
        const { start, end, why } = KINDS[kind];
        const { client: started, sessionId } = await start(g);
        // Each call at the vendor takes a while: the first batch is still running when the
        // credential ends.
        g.vendor.setDelay(15);
        const job = await started.bulk.start(
          { action: 'retry', date: g.day, statuses: [g.vendor.variant.status.failed] },
          'rerun after the outage',
          REQUESTS,
        );
        await end(g, sessionId);

        // Read by an administrator of the gateway that runs it.
        const reader = client(g.runs, { sessionId: await signIn(g.runs, 'ada') });
        const ended: BulkJob = await eventually(async () => {
          const read = await reader.bulk.job(job.jobId, { pageSize: 1 });
          return read.state === 'running' ? undefined : read;
        }, `bulk job ${job.jobId} to stop`);
        expect(ended.state).toBe('stopped');
        expect(ended.stopped).toMatch(why);
        const done = ended.succeeded + ended.refused + ended.failed;
        expect(done).toBeLessThanOrEqual(BULK_BATCH);
        // Nothing more is called once it stopped: the vendor's requests left failed stay so.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const later = await reader.bulk.job(job.jobId, { pageSize: 1 });
        expect(later.succeeded + later.refused + later.failed).toBe(done);
        const failedAtVendor = g.vendor
          .requests()
          .filter((r) => r.status === g.vendor.variant.status.failed).length;
        expect(failedAtVendor).toBeGreaterThanOrEqual(REQUESTS - done);

        // The audit log says so, once, under the job's starter.
        const { entries } = await queryAudit(g.runs.app.context.shared, {
          index: 0,
          pageSize: 500,
        });
        const stops = entries.filter(
          (entry) =>
            entry.operation === 'bulkretry' && entry.message.endsWith('so the job stopped.'),
        );
        expect(stops).toHaveLength(1);
        expect(stops[0]?.message).toMatch(why);
        expect(stops[0]?.parameters.bulkjob).toBe(String(job.jobId));
        expect(stops[0]?.httpStatus).toBe(401);
      },
      120_000,
    );
  },
);
