import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelineClient, dayOfRequestId, type BulkJob } from '../../kit/index.ts';
import { run } from '../../kit/cli/pipelinectl.ts';
import { addUser, removeUser } from '../auth/users.ts';
import { openDatabases } from '../db/databases.ts';
import { createBulkJob, markStarted, type BulkSelection } from '../db/system/bulk-jobs.ts';
import { grantRole } from '../db/system/service-roles.ts';
import { sqliteSql } from '../db/sqlite-sql.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { eventually, startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { startVendorService } from '../testing/vendor/vendor-service.ts';

// A bulk job acts only while the person who started it may (issue 24, item 6): their role
// on the job's service is read again before each batch and when a restart resumes the job,
// and a job whose starter was removed or lost the role stops there, saying so.

const PASSWORD = 'bulk-roles-password-1';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function sessionClient(server: TestService, userName: string, basePath = '') {
  const response = await server.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName, password: PASSWORD }).toString(),
  });
  const sessionId = ((await response.json()) as { result: { data: { sessionId: string } } }).result
    .data.sessionId;
  return new PipelineClient({
    baseUrl: `${server.url}${basePath}`,
    fetch: server.checkedFetch,
    credentials: { kind: 'session', sessionId },
  });
}

const ended = (client: PipelineClient, jobId: number): Promise<BulkJob> =>
  eventually(async () => {
    const job = await client.bulk.job(jobId, { pageSize: 1000 });
    return job.state === 'running' ? undefined : job;
  }, `bulk job ${jobId} to end`);

describe('a bulk job whose starter loses the role', () => {
  it('stops before its next batch, saying why, and calls nothing more', async () => {
    const vendor = await startVendorService();
    open.push(() => vendor.close());
    const server = await startService({
      services: [{ id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey }],
      pollScheduled: false,
    });
    open.push(() => server.close());
    const poller = server.app.context.services.route('prod')?.upstream?.poller;
    if (!poller) throw new Error('the gateway keeps no index of its upstream');
    vendor.addRequests('pl_2', 150, 'broken.csv', 'failed');
    await poller.pollNow();
    const day = (await poller.index.state('prod')).today as string;
    const shared = server.app.context.shared;
    await addUser(shared, 'olivia', PASSWORD, 'operator', 'now');
    const olivia = await sessionClient(server, 'olivia', '/services/prod');

    // Each call at the vendor takes a while: the first batch of 100 is still running when
    // her role on production is lowered to viewer.
    vendor.setDelay(15);
    const started = await olivia.bulk.start(
      { action: 'retry', date: day, statuses: [vendor.variant.status.failed] },
      'rerun after the outage',
      150,
    );
    await grantRole(shared, 'olivia', 'prod', 'viewer');
    const key = new PipelineClient({
      baseUrl: `${server.url}/services/prod`,
      apiKey: TEST_API_KEY,
      fetch: server.checkedFetch,
    });
    const job = await ended(key, started.jobId);
    expect(job).toMatchObject({
      state: 'stopped',
      stopped:
        'olivia no longer may call requestretry on service prod (it needs the operator role; their role there is viewer), so the job stopped.',
      total: 150,
      done: 100,
      succeeded: 100,
    });
    expect(job.finished).not.toBeNull();
    expect(job.items.slice(100).every((i) => i.outcome === 'pending')).toBe(true);
    expect(vendor.calls().requestretry).toBe(100);
    // She still reads it as a viewer; so do the recent jobs and pipelinectl.
    expect((await olivia.bulk.job(started.jobId)).state).toBe('stopped');
    expect((await olivia.bulk.jobs()).find((j) => j.jobId === started.jobId)?.stopped).toContain(
      'so the job stopped',
    );
    let out = '';
    await run(
      [
        'bulk-job',
        String(started.jobId),
        '--url',
        `${server.url}/services/prod`,
        '--key',
        TEST_API_KEY,
      ],
      {},
      (text) => (out += text),
    );
    expect(out).toContain(
      `job ${started.jobId} (retry, stopped): 100 of 150 done, 100 ok, 0 refused, 0 failed\nolivia no longer may call requestretry`,
    );
  });
});

describe('a bulk job resumed after a restart', () => {
  it('does not run when its starter was removed or lost the role there; it does when they still may', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'bulk-roles-restart-'));
    const pipelinesFile = writeTestPipelines(folder);
    const first = await startService({ pipelinesFile, keepData: true });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await first.client.exec('pl_1', 'missing.csv')).requestId as string);
    await first.app.engine.whenIdle();
    const dataDir = first.dataDir;
    await first.close();

    const day = dayOfRequestId(ids[0] as string) as string;
    const selection: BulkSelection = {
      service: 'local',
      action: 'retry',
      day,
      pipelineId: 'pl_1',
      statuses: ['Error'],
      q: undefined,
    };
    const dbs = openDatabases(dataDir);
    const shared = sqliteSql(dbs.system);
    await addUser(shared, 'gone', PASSWORD, 'operator', 'now');
    await addUser(shared, 'demoted', PASSWORD, 'operator', 'now');
    await addUser(shared, 'still', PASSWORD, 'operator', 'now');
    const job = async (userName: string, requestIds: string[]) => {
      const id = await createBulkJob(
        shared,
        selection,
        {
          reason: 'before the restart',
          userName,
          via: 'session',
          address: '127.0.0.1',
          credential: null,
        },
        new Date().toISOString(),
        requestIds,
      );
      // One begun before the stop: settling it could call it again.
      await markStarted(shared, id, [0], new Date().toISOString());
      return id;
    };
    const removedJob = await job('gone', ids.slice(0, 2));
    const demotedJob = await job('demoted', ids.slice(2, 4));
    const stillJob = await job('still', ids.slice(4, 6));
    await removeUser(shared, 'gone');
    await grantRole(shared, 'demoted', 'local', 'viewer');
    dbs.close();

    const second = await startService({ pipelinesFile, dataDir });
    open.push(() => second.close());
    const removed = await ended(second.client, removedJob);
    expect(removed).toMatchObject({
      state: 'stopped',
      stopped: 'User gone no longer exists, so the job stopped.',
      done: 0,
    });
    expect(removed.resumed).not.toBeNull();
    expect(removed.items.map((i) => i.outcome)).toEqual(['started', 'pending']);
    const demoted = await ended(second.client, demotedJob);
    expect(demoted).toMatchObject({
      state: 'stopped',
      stopped:
        'demoted no longer may call requestretry on service local (it needs the operator role; their role there is viewer), so the job stopped.',
      done: 0,
    });
    const still = await ended(second.client, stillJob);
    expect(still).toMatchObject({ state: 'done', done: 2, succeeded: 2 });
    await second.app.engine.whenIdle();
    // The stopped jobs' requests were never retried: still in Error, and no retry audited.
    for (const id of ids.slice(0, 4)) {
      const detail = await second.client.requestDetail(id);
      expect(detail.status, id).toBe('Error');
    }
    const retried = await second.app.context.shared.all<{ requestId: string }>(
      `SELECT DISTINCT REQUESTID AS "requestId" FROM AUDIT WHERE OPERATION = 'requestretry'`,
    );
    expect(retried.map((r) => r.requestId).sort()).toEqual(ids.slice(4, 6).sort());
    // A stopped job stays stopped: the next start does not take it up again.
    await second.close();
    open.pop();
    const third = await startService({ pipelinesFile, dataDir });
    open.push(() => third.close());
    await third.app.engine.whenIdle();
    expect((await third.client.bulk.job(removedJob)).resumed).toBe(removed.resumed);
  });
});
