import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError, PipelineClient, dayOfRequestId, statusTableName } from '../../kit/index.ts';
import type { BulkJob } from '../../kit/index.ts';
import { run } from '../../kit/cli/pipelinectl.ts';
import { addUser } from '../auth/users.ts';
import { openDatabases } from '../db/databases.ts';
import { createBulkJob, markStarted } from '../db/system/bulk-jobs.ts';
import { sqliteSql } from '../db/sqlite-sql.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { eventually, startService, TEST_API_KEY, type TestService } from '../testing/service.ts';

// Bulk retry and cancel by filter (issue 14, item 4): a preview with the exact count, a
// run that needs a reason, in batches, request by request in the audit log, resumed after
// a restart with exactly what was done before it.

const PASSWORD = 'bulk-password-1';
let service: TestService;
let day: string;
let failed: string[] = [];
let operator: PipelineClient;

async function signIn(userName: string): Promise<string> {
  const response = await service.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName, password: PASSWORD }).toString(),
  });
  return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
}

async function finished(client: PipelineClient, jobId: number): Promise<BulkJob> {
  return eventually(async () => {
    const job = await client.bulk.job(jobId, { pageSize: 1000 });
    return job.state === 'done' ? job : undefined;
  }, `bulk job ${jobId}`);
}

async function refusal(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; text: string }> {
  const response = await service.keyed(path, init);
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'bulk-defs-'))),
  });
  await addUser(service.app.context.shared, 'olivia', PASSWORD, 'operator', 'now');
  operator = new PipelineClient({
    baseUrl: service.url,
    fetch: service.checkedFetch,
    credentials: { kind: 'session', sessionId: await signIn('olivia') },
  });
  // 130 failures: more than one batch of 100.
  for (let i = 0; i < 130; i++)
    failed.push((await service.client.exec('pl_1', 'later.csv')).requestId as string);
  await service.app.engine.whenIdle();
  day = dayOfRequestId(failed[0] as string) as string;
  failed = failed.reverse();
});

afterAll(async () => {
  await service.close();
});

describe('bulk retry', () => {
  it('previews the exact count and the first requests, newest first', async () => {
    const preview = await operator.bulk.preview({ action: 'retry', date: day, id: 'pl_1' });
    expect(preview.total).toBe(130);
    expect(preview.requestIds).toEqual(failed.slice(0, 20));
    const none = await operator.bulk.preview({ action: 'retry', date: day, q: 'no such text' });
    expect(none.total).toBe(0);
  });

  it('refuses bad input with the parameter named, and starts nothing', async () => {
    const post = (fields: Record<string, string>) =>
      refusal('/pipelineapi/bulk/json', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    const base = { action: 'retry', date: day, reason: 'file arrived' };
    for (const [fields, status, code, name] of [
      [{ ...base, reason: '' }, 400, 1001, 'reason'],
      [{ ...base, reason: '   ' }, 400, 1001, 'reason'],
      [{ ...base, action: 'delete' }, 400, 1002, 'action'],
      [{ action: 'retry', reason: 'x' }, 400, 1001, 'date'],
      [{ ...base, date: '20261131' }, 400, 1002, 'date'],
      [{ ...base, status: 'Finish' }, 400, 1002, 'status'],
      [{ ...base, status: 'Error;DROP' }, 400, 1002, 'status'],
      [{ ...base, since: '20261122000000' }, 400, 1002, 'since'],
      [{ ...base, id: 'pl_x' }, 400, 1002, 'id'],
      [{ ...base, expect: 'many' }, 400, 1002, 'expect'],
      [{ ...base, id: 'pl_99' }, 404, 1201, 'pl_99'],
      [{ ...base, expect: '7' }, 409, 1301, '130 requests match now, not 7'],
    ] as const) {
      const answer = await post(fields);
      expect(answer.status, JSON.stringify(fields)).toBe(status);
      expect(answer.text, JSON.stringify(fields)).toContain(`"Code":${code}`);
      expect(answer.text, JSON.stringify(fields)).toContain(name);
    }
    expect((await refusal(`/pipelineapi/bulk/xml?action=retry&date=${day}`)).status).toBe(400);
    const anonymous = await service.fetch(`/pipelineapi/bulk/json?action=retry&date=${day}`);
    expect(anonymous.status).toBe(401);
    expect(await service.client.bulk.jobs()).toEqual([]);
  });

  it('retries every match in batches, request by request, each call in the audit log', async () => {
    writeFileSync(join(service.dataDir, 'inbox', 'later.csv'), 'id,amount,note\n1,20,x\n');
    const started = await operator.bulk.start(
      { action: 'retry', date: day, id: 'pl_1', statuses: ['Error'] },
      'the file arrived late',
      130,
    );
    expect(started).toMatchObject({ total: 130, user: 'olivia', action: 'retry' });
    const job = await finished(operator, started.jobId);
    expect(job).toMatchObject({ done: 130, succeeded: 130, refused: 0, failed: 0 });
    expect(job.items.map((i) => i.requestId)).toEqual(failed);
    expect(job.items.every((i) => i.outcome === 'ok' && i.time !== null)).toBe(true);
    await service.app.engine.whenIdle();
    const stats = await service.client.requestStats({ date: day, id: 'pl_1' });
    expect(stats.pipelines[0]?.counts).toEqual([{ status: 'Finish', value: 130 }]);
    // What became of them, not only that each retry was accepted.
    expect((await operator.bulk.job(started.jobId)).now).toEqual({
      accepted: 130,
      unknown: 0,
      statuses: [{ status: 'Finish', count: 130 }],
    });

    const admin = await signInAdmin();
    const audit = (await (
      await service.fetch(`/mcapi/audit?operation=requestretry&user=olivia&pagesize=1000`, {
        headers: { 'X-As-SessionId': admin },
      })
    ).json()) as {
      result: {
        data: {
          total: number;
          entries: { parameters: Record<string, string>; requestId: string }[];
        };
      };
    };
    expect(audit.result.data.total).toBe(130);
    expect(new Set(audit.result.data.entries.map((e) => e.requestId))).toEqual(new Set(failed));
    expect(audit.result.data.entries[0]?.parameters).toMatchObject({
      bulkjob: String(started.jobId),
      reason: 'the file arrived late',
    });
    const starts = (await (
      await service.fetch('/mcapi/audit?operation=bulkretry', {
        headers: { 'X-As-SessionId': admin },
      })
    ).json()) as { result: { data: { total: number } } };
    expect(starts.result.data.total).toBeGreaterThanOrEqual(1);
    expect((await operator.bulk.jobs()).map((j) => j.jobId)).toContain(started.jobId);
  });
});

async function signInAdmin(): Promise<string> {
  await addUser(service.app.context.shared, `ada${Date.now()}`, PASSWORD, 'administrator', 'now');
  const names = await service.app.context.shared.all<{ name: string }>(
    `SELECT NAME AS "name" FROM USERS WHERE NAME LIKE 'ada%' ORDER BY NAME DESC`,
  );
  return signIn(names[0]?.name as string);
}

describe('bulk cancel', () => {
  it('cancels the waiting requests of a suspended pipeline', async () => {
    const waiting: string[] = [];
    for (let i = 0; i < 5; i++)
      waiting.push((await service.client.exec('pl_3', 'later.csv')).requestId as string);
    const preview = await operator.bulk.preview({ action: 'cancel', date: day, id: 'pl_3' });
    expect(preview.total).toBe(5);
    const started = await operator.bulk.start(
      { action: 'cancel', date: day, id: 'pl_3' },
      'not needed today',
      preview.total,
    );
    const job = await finished(operator, started.jobId);
    expect(job.succeeded).toBe(5);
    const stats = await service.client.requestStats({ date: day, id: 'pl_3' });
    expect(stats.pipelines[0]?.counts).toEqual([{ status: 'Stop', value: 5 }]);
    expect(job.now).toEqual({ accepted: 5, unknown: 0, statuses: [{ status: 'Stop', count: 5 }] });
    await expect(
      operator.bulk.start({ action: 'cancel', date: day, statuses: ['Error'] }, 'x'),
    ).rejects.toBeInstanceOf(HttpError);
  });
});

describe('pipelinectl bulk', () => {
  it('previews without a reason, runs with one and reports the job', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await service.client.exec('pl_2', 'nowhere.jsonl')).requestId as string);
    await service.app.engine.whenIdle();
    const ctl = async (...args: string[]) => {
      let out = '';
      const code = await run(
        [...args, '--url', service.url, '--key', TEST_API_KEY],
        {},
        (t) => (out += t),
      );
      return { code, out };
    };
    const preview = await ctl('bulk', 'retry', '--date', day, '--pipeline', 'pl_2');
    expect(preview.out.split('\n')[0]).toBe('3 requests would be retried; add --reason to do it.');
    expect(preview.out).toContain(ids[2]);
    const done = await ctl('bulk', 'retry', '--date', day, '--pipeline', 'pl_2', '--reason', 'cli');
    expect(done.code).toBe(0);
    const jobId = /^job (\d+) \(retry, done\): 3 of 3 done, 3 ok, 0 refused, 0 failed$/m.exec(
      done.out,
    )?.[1];
    expect(jobId).toBeDefined();
    // Retried, the three failed again (their file is still missing), as the job now says.
    await service.app.engine.whenIdle();
    const later = (await ctl('bulk-job', jobId as string)).out;
    expect(later).toContain('3 of 3 done');
    expect(later).toContain('the 3 accepted now: 3 Error\n');
    await expect(ctl('bulk', 'delete', '--date', day)).rejects.toThrow(
      'bulk takes retry or cancel',
    );
  });
});

describe('a bulk job across a restart', () => {
  it('resumes, and reports what was done before the stop', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'bulk-restart-'));
    const pipelinesFile = writeTestPipelines(folder);
    const first = await startService({ pipelinesFile, keepData: true });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await first.client.exec('pl_1', 'missing.csv')).requestId as string);
    await first.app.engine.whenIdle();
    const dataDir = first.dataDir;
    const requestDay = dayOfRequestId(ids[0] as string) as string;
    await first.close();

    // As a crash would leave it: one request not begun, one begun but not changed, one
    // changed (it left Error) before the outcome could be written, and one not begun that
    // someone else changed meanwhile.
    const dbs = openDatabases(dataDir);
    const shared = sqliteSql(dbs.system);
    // Its starter still exists and may still retry there: the job goes on after the restart.
    await addUser(shared, 'olivia', PASSWORD, 'operator', 'now');
    const jobId = await createBulkJob(
      shared,
      {
        service: 'local',
        action: 'retry',
        day: requestDay,
        pipelineId: 'pl_1',
        statuses: ['Error'],
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
    const finish = dbs.status.prepare(
      `UPDATE ${statusTableName(requestDay)} SET STATUS = 'Finish' WHERE REQUESTID = ?`,
    );
    finish.run(ids[2]);
    finish.run(ids[3]);
    dbs.close();

    const second = await startService({ pipelinesFile, dataDir });
    try {
      const job = await eventually(async () => {
        const j = await second.client.bulk.job(jobId);
        return j.state === 'done' ? j : undefined;
      }, 'the resumed job');
      expect(job.resumed).not.toBeNull();
      expect(job.items.map((i) => [i.requestId, i.outcome])).toEqual([
        [ids[0], 'ok'],
        [ids[1], 'ok'],
        [ids[2], 'ok'],
        [ids[3], 'refused'],
      ]);
      expect(job.items[0]?.message).toBe('Success');
      expect(job.items[1]?.message).toBe('Success');
      expect(job.items[2]?.message).toBe('Done before the restart: the request is now Finish.');
      expect(job.items[3]?.message).toContain('is Finish; only a request in Error or Stop');
      expect(job).toMatchObject({ total: 4, succeeded: 3, refused: 1, failed: 0 });
      const refused = await second.client.bulk.job(jobId, { outcome: 'refused' });
      expect(refused.items.map((i) => i.requestId)).toEqual([ids[3]]);
    } finally {
      await second.close();
    }
  });
});

describe('a bulk job whose audit entries cannot be written', () => {
  it('reports no outcome the audit log does not hold, and ends each with its entry once it can', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'bulk-audit-'));
    const pipelinesFile = writeTestPipelines(folder);
    const first = await startService({ pipelinesFile, keepData: true });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await first.client.exec('pl_1', 'audited-late.csv')).requestId as string);
    await first.app.engine.whenIdle();
    const requestDay = dayOfRequestId(ids[0] as string) as string;
    writeFileSync(join(first.dataDir, 'inbox', 'audited-late.csv'), 'id,amount,note\n1,20,x\n');
    // The audit log refuses the retries' entries, as a full disk would, in the database itself.
    const system = first.app.context.dbs.system;
    system.exec(
      `CREATE TRIGGER refuse_retry_entries BEFORE INSERT ON AUDIT
       WHEN NEW.OPERATION = 'requestretry' BEGIN SELECT RAISE(ABORT, 'audit log full'); END`,
    );
    const started = await first.client.bulk.start(
      { action: 'retry', date: requestDay, id: 'pl_1', statuses: ['Error'] },
      'the audit log is full',
      3,
    );
    // The retries are made and run; their outcomes roll back with the entries that failed.
    await eventually(async () => {
      const stats = await first.client.requestStats({ date: requestDay, id: 'pl_1' });
      return stats.pipelines[0]?.counts.some((c) => c.status === 'Finish' && c.value === 3)
        ? true
        : undefined;
    }, 'the three retries');
    const dataDir = first.dataDir;
    await first.close();
    const dbs = openDatabases(dataDir);
    const outcomes = dbs.system
      .prepare('SELECT OUTCOME AS outcome FROM BULK_ITEM WHERE JOBID = ? ORDER BY SEQ')
      .all(started.jobId) as { outcome: string }[];
    expect(outcomes.map((o) => o.outcome)).toEqual(['started', 'started', 'started']);
    const entries = (sql: string) => (dbs.system.prepare(sql).get() as { n: number }).n;
    expect(entries(`SELECT COUNT(*) AS n FROM AUDIT WHERE OPERATION = 'requestretry'`)).toBe(0);
    dbs.system.exec('DROP TRIGGER refuse_retry_entries');
    dbs.close();

    // Once it can be written: each request settled by looking at it (not called twice), each
    // outcome with its entry.
    const second = await startService({ pipelinesFile, dataDir });
    try {
      const job = await eventually(async () => {
        const j = await second.client.bulk.job(started.jobId);
        return j.state === 'done' ? j : undefined;
      }, 'the resumed job');
      expect(job.items.map((i) => i.message)).toEqual(
        Array(3).fill('Done before the restart: the request is now Finish.'),
      );
      const audited = await second.app.context.shared.all<{ requestId: string }>(
        `SELECT REQUESTID AS "requestId" FROM AUDIT WHERE OPERATION = 'requestretry'`,
      );
      expect(audited.map((e) => e.requestId).sort()).toEqual([...ids].sort());
    } finally {
      await second.close();
    }
  });
});
