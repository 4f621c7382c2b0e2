import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, PipelineClient, type BulkJob } from '../../kit/index.ts';
import { run } from '../../kit/cli/pipelinectl.ts';
import { addUser } from '../auth/users.ts';
import { openDatabases } from '../db/databases.ts';
import { createBulkJob, markStarted } from '../db/system/bulk-jobs.ts';
import type { IndexPoller } from '../gateway/poller.ts';
import type { ServiceEntry } from '../gateway/services.ts';
import { sqliteSql } from '../db/sqlite-sql.ts';
import { startGatewayBefore } from '../testing/gateway-before.ts';
import {
  eventually,
  signIn,
  startService,
  TEST_API_KEY,
  type TestService,
} from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';

// Bulk retry and cancel for a service behind the gateway (issue 14, item 4): selected
// exactly from the gateway's index of the vendor's requests, each call made at the vendor
// with its answer (a refusal in its own words, an unreachable vendor as failed) recorded
// request by request and in the audit log under the service's id, resumed after a restart.

const PASSWORD = 'bulk-password-1';

interface Setup {
  vendor: VendorService;
  gateway: TestService;
  poller: IndexPoller;
  entry: ServiceEntry;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function startGateway(
  entry: ServiceEntry,
  dataDir?: string,
): Promise<{ gateway: TestService; poller: IndexPoller }> {
  const gateway = await startService({
    services: [entry],
    pollScheduled: false,
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  open.push(() => gateway.close());
  const poller = gateway.app.context.services.route('vendor')?.upstream?.poller;
  if (!poller) throw new Error('the gateway keeps no index of its upstream');
  return { gateway, poller };
}

async function setup(dataDir?: string): Promise<Setup> {
  const vendor = await startVendorService();
  open.push(() => vendor.close());
  const entry = { id: 'vendor', name: 'Vendor', url: vendor.url, apiKey: vendor.apiKey };
  return { vendor, entry, ...(await startGateway(entry, dataDir)) };
}

async function operatorOf(gateway: TestService, userName: string) {
  await addUser(gateway.app.context.shared, userName, PASSWORD, 'operator', 'now');
  const response = await gateway.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName, password: PASSWORD }).toString(),
  });
  const sessionId = ((await response.json()) as { result: { data: { sessionId: string } } }).result
    .data.sessionId;
  return new PipelineClient({
    baseUrl: `${gateway.url}/services/vendor`,
    fetch: gateway.checkedFetch,
    credentials: { kind: 'session', sessionId },
  });
}

async function finished(client: PipelineClient, jobId: number): Promise<BulkJob> {
  return eventually(async () => {
    const job = await client.bulk.job(jobId, { pageSize: 1000 });
    return job.state === 'done' ? job : undefined;
  }, `bulk job ${jobId}`);
}

/** The vendor's request, to change it behind the gateway's back (someone else's doing). */
function atVendor(vendor: VendorService, requestId: string): { status: string } {
  const found = vendor.requests().find((r) => r.requestId === requestId);
  if (!found) throw new Error(`no request ${requestId} at the vendor`);
  return found;
}

describe('bulk retry of a service behind the gateway', () => {
  it('previews the vendor’s exact count on a day over 1,000 requests, and runs it at the vendor', async () => {
    const { vendor, gateway, poller } = await setup();
    for (let round = 0; round < 2; round++) {
      vendor.addRequests('pl_1', 500);
      vendor.addRequests('pl_2', 105, 'broken.csv', 'failed');
      await poller.pollNow();
    }
    const day = (await poller.index.state('vendor')).today as string;
    const failed = vendor.variant.status.failed;
    const truth = vendor.requests().filter((r) => r.status === failed && r.pipelineId === 'pl_2');
    expect(vendor.requests()).toHaveLength(1210);
    expect(truth).toHaveLength(210);

    const olivia = await operatorOf(gateway, 'olivia');
    const preview = await olivia.bulk.preview({
      action: 'retry',
      date: day,
      id: 'pl_2',
      statuses: [failed],
    });
    expect(preview.total).toBe(210);
    expect(preview.requestIds).toEqual(truth.slice(0, 20).map((r) => r.requestId));
    // The vendor's own status words select: every request of the day, exactly.
    const everything = await olivia.bulk.preview({
      action: 'retry',
      date: day,
      statuses: [vendor.variant.status.done, failed],
    });
    expect(everything.total).toBe(1210);
    await expect(
      olivia.bulk.preview({ action: 'retry', date: day, id: 'pl_9' }),
    ).rejects.toMatchObject({ status: 404 });

    // Someone fixes one at the vendor after the index's round: the vendor refuses it.
    const fixedElsewhere = truth[7]?.requestId as string;
    atVendor(vendor, fixedElsewhere).status = vendor.variant.status.done;
    const before = vendor.calls().requestretry ?? 0;
    const started = await olivia.bulk.start(
      { action: 'retry', date: day, id: 'pl_2', statuses: [failed] },
      'the parser is fixed',
      210,
    );
    expect(started).toMatchObject({ total: 210, service: 'vendor', user: 'olivia' });
    const job = await finished(olivia, started.jobId);
    expect(job).toMatchObject({ done: 210, succeeded: 209, refused: 1, failed: 0 });
    expect(job.items.map((i) => i.requestId)).toEqual(truth.map((r) => r.requestId));
    expect((vendor.calls().requestretry ?? 0) - before).toBe(210);
    const refused = job.items.find((i) => i.outcome === 'refused');
    expect(refused?.requestId).toBe(fixedElsewhere);
    expect(refused?.message).toBe(
      `Request ${fixedElsewhere} cannot be retried in status ${vendor.variant.status.done}`,
    );
    for (const r of truth)
      if (r.requestId !== fixedElsewhere) expect(r.status).toBe(vendor.variant.status.waiting);

    const audit = await gateway.app.context.shared.all<{
      SERVICE: string;
      USERNAME: string;
      REQUESTID: string;
      HTTPSTATUS: number;
    }>(
      `SELECT SERVICE AS "SERVICE", USERNAME AS "USERNAME", REQUESTID AS "REQUESTID",
         HTTPSTATUS AS "HTTPSTATUS" FROM AUDIT WHERE OPERATION = 'requestretry'`,
    );
    expect(audit).toHaveLength(210);
    expect(new Set(audit.map((a) => a.SERVICE))).toEqual(new Set(['vendor']));
    expect(new Set(audit.map((a) => a.USERNAME))).toEqual(new Set(['olivia']));
    expect(audit.find((a) => a.REQUESTID === fixedElsewhere)?.HTTPSTATUS).toBe(409);
    const start = await gateway.app.context.shared.all(
      `SELECT SERVICE AS "SERVICE" FROM AUDIT WHERE OPERATION = 'bulkretry'`,
    );
    expect(start).toEqual([{ SERVICE: 'vendor' }]);
    expect((await olivia.bulk.jobs()).map((j) => j.jobId)).toEqual([started.jobId]);
  });

  it('refuses a day its index did not watch, or saw only in part, naming the day', async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_2', 3, 'broken.csv', 'failed');
    await poller.pollNow();
    const olivia = await operatorOf(gateway, 'olivia');
    const refusal = async (date: string) => {
      const error = await olivia.bulk.preview({ action: 'retry', date, statuses: ['Abort'] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HttpError);
      return error as HttpError;
    };
    const unwatched = await refusal('20200101');
    expect(unwatched.status).toBe(404);
    expect(unwatched.message).toContain('20200101');
    expect(unwatched.message).toContain('did not watch that day');
    await poller.index.markDay('vendor', '20200102', false);
    const partial = await refusal('20200102');
    expect(partial.status).toBe(404);
    expect(partial.message).toContain('20200102');
    expect(partial.message).toContain('may miss');
    await expect(
      olivia.bulk.start({ action: 'retry', date: '20200101', statuses: ['Abort'] }, 'x'),
    ).rejects.toMatchObject({ status: 404 });
    expect(await olivia.bulk.jobs()).toEqual([]);
  });

  // This tree's roles (administrator, developer, operator) may all retry and cancel: what
  // is refused is a caller without valid credentials, as for a single retry.
  it('refuses a caller without credentials, or with a session that ended, and starts nothing', async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_2', 3, 'broken.csv', 'failed');
    await poller.pollNow();
    const day = (await poller.index.state('vendor')).today as string;
    const selection = { action: 'retry', date: day, statuses: ['Abort'] } as const;
    const anonymous = new PipelineClient({
      baseUrl: `${gateway.url}/services/vendor`,
      fetch: gateway.checkedFetch,
    });
    const ended = new PipelineClient({
      baseUrl: `${gateway.url}/services/vendor`,
      fetch: gateway.checkedFetch,
      credentials: { kind: 'session', sessionId: 'no-such-session-0123456789' },
    });
    for (const client of [anonymous, ended]) {
      await expect(client.bulk.preview(selection)).rejects.toMatchObject({ status: 401 });
      await expect(client.bulk.start(selection, 'not mine to do')).rejects.toMatchObject({
        status: 401,
      });
    }
    expect(vendor.calls().requestretry ?? 0).toBe(0);
    expect(await gateway.app.context.shared.get('SELECT COUNT(*) AS "n" FROM BULK_JOB')).toEqual({
      n: 0,
    });
    const refusals = await gateway.app.context.shared.all(
      `SELECT SERVICE AS "SERVICE", HTTPSTATUS AS "HTTPSTATUS" FROM AUDIT
       WHERE OPERATION = 'bulkretry' ORDER BY SEQ`,
    );
    expect(refusals).toEqual([
      { SERVICE: 'vendor', HTTPSTATUS: 401 },
      { SERVICE: 'vendor', HTTPSTATUS: 401 },
    ]);
  });

  it('cancels the waiting requests at the vendor', async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_1', 4, 'daily.csv', 'waiting');
    vendor.addRequests('pl_2', 2, 'daily.csv', 'waiting');
    await poller.pollNow();
    const day = (await poller.index.state('vendor')).today as string;
    const olivia = await operatorOf(gateway, 'olivia');
    const selection = { action: 'cancel', date: day, id: 'pl_1', statuses: ['Wait'] } as const;
    const preview = await olivia.bulk.preview(selection);
    expect(preview.total).toBe(4);
    let out = '';
    const url = `${gateway.url}/services/vendor`;
    const args = ['bulk', 'cancel', '--date', day, '--pipeline', 'pl_1', '--url', url];
    expect(await run([...args, '--key', TEST_API_KEY], {}, (t) => (out += t))).toBe(0);
    expect(out.split('\n')[0]).toBe('4 requests would be cancelled; add --reason to do it.');
    const started = await olivia.bulk.start(selection, 'not needed today', preview.total);
    const job = await finished(olivia, started.jobId);
    expect(job).toMatchObject({ total: 4, succeeded: 4, refused: 0, failed: 0 });
    expect(vendor.requests().map((r) => [r.pipelineId, r.status])).toEqual([
      ['pl_2', 'Wait'],
      ['pl_2', 'Wait'],
      ...Array(4).fill(['pl_1', vendor.variant.status.cancelled]),
    ]);
    expect(vendor.calls().requestcancel).toBe(4);
    // What became of them, in the vendor's words, once the index has seen it.
    await poller.pollNow();
    expect((await olivia.bulk.job(started.jobId)).now).toEqual({
      accepted: 4,
      unknown: 0,
      statuses: [{ status: vendor.variant.status.cancelled, count: 4 }],
    });
  });

  it('reports its progress as calls end, not only when a batch of slow calls is over', async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_2', 30, 'broken.csv', 'failed');
    await poller.pollNow();
    const day = (await poller.index.state('vendor')).today as string;
    const olivia = await operatorOf(gateway, 'olivia');
    // One batch of 30 calls of 100 ms at least each: three seconds or more.
    vendor.setDelay(100);
    const started = await olivia.bulk.start(
      { action: 'retry', date: day, statuses: [vendor.variant.status.failed] },
      'after the outage',
      30,
    );
    const seen = new Set<number>();
    const job = await eventually(
      async () => {
        const read = await olivia.bulk.job(started.jobId, { pageSize: 1 });
        seen.add(read.done);
        return read.state === 'done' ? read : undefined;
      },
      `bulk job ${started.jobId}`,
      60_000,
    );
    expect(job).toMatchObject({ total: 30, succeeded: 30 });
    // Read while the batch ran: some of it done, not all.
    expect(
      [...seen].some((done) => done > 0 && done < 30),
      [...seen].join(', '),
    ).toBe(true);
  }, 90_000);

  it('records each call to an unreachable vendor as failed, with why', async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_2', 3, 'broken.csv', 'failed');
    await poller.pollNow();
    const day = (await poller.index.state('vendor')).today as string;
    const olivia = await operatorOf(gateway, 'olivia');
    await vendor.close();
    const started = await olivia.bulk.start(
      { action: 'retry', date: day, statuses: ['Abort'] },
      'try anyway',
      3,
    );
    const job = await finished(olivia, started.jobId);
    expect(job).toMatchObject({ total: 3, succeeded: 0, refused: 0, failed: 3 });
    for (const item of job.items) expect(item.message).toContain('Vendor cannot be reached');
    expect(job.now).toEqual({ accepted: 0, unknown: 0, statuses: [] });
  });
});

describe('a bulk job of a service behind the gateway, across a restart', () => {
  it('settles started requests by the vendor’s status and runs the rest', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bulk-upstream-restart-'));
    const { vendor, entry, gateway, poller } = await setup(dataDir);
    vendor.addRequests('pl_2', 4, 'broken.csv', 'failed');
    await poller.pollNow();
    const day = (await poller.index.state('vendor')).today as string;
    const ids = vendor.requests().map((r) => r.requestId);
    await gateway.close();
    open.pop();

    // As a crash would leave it: one begun but not changed at the vendor, one changed (the
    // vendor retried it) before the outcome was written, one not begun, and one not begun
    // that someone else fixed meanwhile.
    const dbs = openDatabases(dataDir);
    const shared = sqliteSql(dbs.system);
    // Its starter still exists and may still retry there: the job goes on after the restart.
    await addUser(shared, 'olivia', PASSWORD, 'operator', 'now');
    const jobId = await createBulkJob(
      shared,
      {
        service: 'vendor',
        action: 'retry',
        day,
        pipelineId: 'pl_2',
        statuses: ['Abort'],
        q: undefined,
      },
      {
        reason: 'before the crash',
        userName: 'olivia',
        via: 'session',
        address: '127.0.0.1',
        credential: null,
      },
      new Date().toISOString(),
      ids,
    );
    await markStarted(shared, jobId, [1, 2], new Date().toISOString());
    dbs.close();
    atVendor(vendor, ids[1] as string).status = vendor.variant.status.waiting;
    atVendor(vendor, ids[3] as string).status = vendor.variant.status.done;
    const retriesBefore = vendor.calls().requestretry ?? 0;

    const second = await startGateway(entry, dataDir);
    const olivia = await operatorOf(second.gateway, 'olivia2');
    const job = await finished(olivia, jobId);
    expect(job.resumed).not.toBeNull();
    expect(job.items.map((i) => [i.requestId, i.outcome, i.message])).toEqual([
      [ids[0], 'ok', 'Success'],
      [
        ids[1],
        'ok',
        `Done before the restart: the request is now ${vendor.variant.status.waiting}.`,
      ],
      [ids[2], 'ok', 'Success'],
      [ids[3], 'refused', `Request ${ids[3]} cannot be retried in status Finish`],
    ]);
    // Retried once each where needed: not the one done before the restart.
    expect((vendor.calls().requestretry ?? 0) - retriesBefore).toBe(3);
    expect(vendor.requests().map((r) => r.status)).toEqual(['Wait', 'Wait', 'Wait', 'Finish']);
  });

  it('stops after the call under way, and finishes after the restart calling each request once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bulk-upstream-stop-'));
    const { vendor, entry, gateway, poller } = await setup(dataDir);
    vendor.addRequests('pl_2', 30, 'broken.csv', 'failed');
    await poller.pollNow();
    const day = (await poller.index.state('vendor')).today as string;
    const olivia = await operatorOf(gateway, 'olivia');
    vendor.setDelay(200);
    const started = await olivia.bulk.start(
      { action: 'retry', date: day, statuses: ['Abort'] },
      'stopped midway',
      30,
    );
    await eventually(() => ((vendor.calls().requestretry ?? 0) >= 2 ? true : undefined), 'calls');
    await gateway.close();
    open.pop();
    vendor.setDelay(0);
    const dbs = openDatabases(dataDir);
    const outcomes = await sqliteSql(dbs.system).all<{ OUTCOME: string; n: number }>(
      'SELECT OUTCOME AS "OUTCOME", COUNT(*) AS "n" FROM BULK_ITEM WHERE JOBID = ? GROUP BY OUTCOME',
      [started.jobId],
    );
    dbs.close();
    // Not the whole batch of 30 before closing: some were never called.
    expect(outcomes.find((o) => o.OUTCOME === 'started')?.n ?? 0).toBeGreaterThan(0);
    expect(vendor.calls().requestretry ?? 0).toBeLessThan(30);

    const second = await startGateway(entry, dataDir);
    const again = await operatorOf(second.gateway, 'olivia2');
    const job = await finished(again, started.jobId);
    expect(job).toMatchObject({ total: 30, succeeded: 30, refused: 0, failed: 0 });
    expect(vendor.calls().requestretry).toBe(30);
    expect(new Set(vendor.requests().map((r) => r.status))).toEqual(
      new Set([vendor.variant.status.waiting]),
    );
  });
});

describe('bulk retry at a vendor whose retry is a new request', () => {
  it("reports each item in the vendor's words, naming the new request, and audits them so", async () => {
    const started = await startGatewayBefore({
      vendor: { behaviour: { retryStart: 'new-request' } },
      entry: { id: 'vendor' },
      gateway: { adminPassword: PASSWORD },
    });
    open.push(started.close);
    const { vendor, gateway, poller } = started;
    vendor.addRequests('pl_2', 3, 'broken.csv', 'failed');
    await poller.pollNow();
    const day = (await poller.index.state('vendor')).today as string;
    const failed = vendor.requests().map((r) => r.requestId);

    const olga = await operatorOf(gateway, 'olga');
    const { jobId } = await olga.bulk.start(
      { action: 'retry', date: day, statuses: [vendor.variant.status.failed] },
      'new requests',
      3,
    );
    const job = await finished(olga, jobId);
    expect(job).toMatchObject({ done: 3, succeeded: 3 });
    const renewed = vendor
      .requests()
      .slice(0, 3)
      .map((r) => r.requestId);
    expect(renewed.some((id) => failed.includes(id))).toBe(false);
    for (const item of job.items)
      expect(item.message).toMatch(
        new RegExp(`^Request ${item.requestId} is retried as request (${renewed.join('|')})$`),
      );
    const admin = await signIn(gateway, 'admin', PASSWORD);
    const audit = (await (
      await gateway.fetch('/mcapi/audit?operation=requestretry&user=olga&pagesize=100', {
        headers: { 'X-As-SessionId': admin },
      })
    ).json()) as { result: { data: { entries: { message: string }[] } } };
    expect(audit.result.data.entries.map((e) => e.message).sort()).toEqual(
      job.items.map((i) => i.message).sort(),
    );
  });
});
