import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient, dayOfRequestId, decodeAttempts } from '../../kit/index.ts';
import { addUser } from '../auth/users.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startService, type TestService } from '../testing/service.ts';

// Issue 25 on the embedded service: the engine records each attempt of a request as it
// writes its status, a failure's message and last application-log lines included, so a
// retry that succeeds leaves the first failure readable, with who retried it; `q` finds a
// request by any failure it had; requests over a range of days are counted exactly.

const PASSWORD = 'attempts-password-1';
let service: TestService;
let sessionId: string;
let failedThenFixed: string;
let finished: string;

interface AttemptAnswer {
  attempt: number;
  status: string;
  failed: boolean;
  message: string;
  evidence: string;
  log: { date: string; type: string; message: string }[];
  changes: { status: string }[];
  retriedBy: { userName: string | null; via: string } | null;
  cancelledBy: { userName: string | null } | null;
}

async function mc(path: string) {
  const response = await service.fetch(path, { headers: { 'X-As-SessionId': sessionId } });
  const body = (await response.json()) as {
    result: { message?: string; data?: Record<string, unknown> };
  };
  return { status: response.status, data: body.result.data ?? {}, message: body.result.message };
}

async function found(q: string): Promise<string[]> {
  const response = await service.keyed(`/pipelineapi/requestlist/json?q=${encodeURIComponent(q)}`);
  const list = (await response.json()) as { RequestList: { Request?: { RequestId: string }[] } };
  return (list.RequestList.Request ?? []).map((r) => r.RequestId);
}

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'attempts-defs-'))),
  });
  await addUser(service.app.context.shared, 'olga', PASSWORD, 'operator', 'now');
  const login = await service.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName: 'olga', password: PASSWORD }).toString(),
  });
  sessionId = ((await login.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
  finished = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
  failedThenFixed = (await service.client.exec('pl_1', 'orders-0601.csv')).requestId as string;
  await service.app.engine.whenIdle();
});

afterAll(async () => {
  await service.close();
});

describe('attempts of a request of the embedded service', () => {
  it('keeps the first failure and who retried it after a retry that succeeds', async () => {
    const before = await mc(`/mcapi/requests/attempts?requestid=${failedThenFixed}`);
    expect(before.status).toBe(200);
    const [first] = before.data.attempts as AttemptAnswer[];
    expect(first).toMatchObject({ attempt: 1, status: 'Error', failed: true, evidence: 'kept' });
    expect(first?.message).toContain('was not found in the inbox');
    expect(first?.log.map((l) => l.type)).toContain('ERROR');
    expect(first?.changes.map((c) => c.status)).toEqual(['Start', 'Error']);
    expect(await found('orders-0601')).toEqual([failedThenFixed]);
    expect(await found('NOT FOUND in the inbox')).toEqual([failedThenFixed]);

    // The file arrives; Olga retries, and it finishes.
    writeFileSync(join(service.dataDir, 'inbox', 'orders-0601.csv'), 'id,amount,note\n2,30,y\n');
    const olga = new PipelineClient({
      baseUrl: service.url,
      fetch: service.checkedFetch,
      credentials: { kind: 'session', sessionId },
    });
    await olga.retry(failedThenFixed);
    await service.app.engine.whenIdle();

    const after = await mc(`/mcapi/requests/attempts?requestid=${failedThenFixed}`);
    const list = after.data.attempts as AttemptAnswer[];
    expect(list.map((a) => [a.attempt, a.status, a.failed])).toEqual([
      [1, 'Error', true],
      [2, 'Finish', false],
    ]);
    expect(list[0]?.message).toBe(first?.message);
    expect(list[0]?.log).toEqual(first?.log);
    expect(list[1]?.retriedBy).toMatchObject({ userName: 'olga', via: 'session' });
    expect(list[1]?.changes.map((c) => c.status)).toEqual(['Wait', 'Start', 'Process', 'Finish']);
    expect(after.data.actions).toMatchObject([{ action: 'retry', userName: 'olga' }]);
    // The kit reads the same answer into its typed records.
    const decoded = decodeAttempts(after.data);
    expect(decoded.attempts.map((a) => a.retriedBy?.userName ?? null)).toEqual([null, 'olga']);
    expect(decoded.attempts[0]?.message).toBe(first?.message);
    // The status row no longer holds the error, yet q still finds it by those words.
    expect(await found('not found in the inbox')).toEqual([failedThenFixed]);
  });

  it('tells a request that never failed as one attempt, and refuses what it cannot answer', async () => {
    const one = await mc(`/mcapi/requests/attempts?requestid=${finished}`);
    expect((one.data.attempts as AttemptAnswer[]).map((a) => [a.status, a.failed])).toEqual([
      ['Finish', false],
    ]);
    // Its instants are the engine's own record, not a gateway's sightings (issue 38).
    expect(one.data.attempts).toMatchObject([{ observed: false, startedAt: expect.any(String) }]);
    const none = await mc('/mcapi/requests/attempts?requestid=pl_1-20200101_09-000001');
    expect(none.status).toBe(404);
    expect(none.message).toContain('does not exist');
    const missing = await mc('/mcapi/requests/attempts');
    expect(missing.status).toBe(400);
    expect(missing.message).toContain('requestid');
  });

  it('counts requests over a range of days exactly, the same way as a gateway', async () => {
    const day = dayOfRequestId(finished) as string;
    const held = (await service.client.exec('pl_3', 'orders.csv')).requestId as string;
    const range = await mc(`/mcapi/requests/range?from=20200101&to=20200131`);
    expect(range.status).toBe(200);
    expect(range.data).toMatchObject({ total: 0, exact: true });
    const earlier = `${Number(day.slice(0, 4)) - 1}${day.slice(4)}`;
    const far = await mc(`/mcapi/requests/range?from=${earlier}&to=${day}`);
    expect(far.status).toBe(400);
    expect(far.message).toContain('more than 31 days');
    const today = await mc(`/mcapi/requests/range?from=${day}&to=${day}&pagesize=2`);
    expect(today.data).toMatchObject({
      total: 3,
      exact: true,
      days: [{ day, count: 3, state: 'complete' }],
      statuses: [
        { status: 'Finish', count: 2 },
        { status: 'Wait', count: 1 },
      ],
      next: 2,
    });
    expect((today.data.requests as { requestId: string }[]).map((r) => r.requestId)).toEqual([
      held,
      failedThenFixed,
    ]);
    const byError = await mc(
      `/mcapi/requests/range?from=${day}&to=${day}&q=${encodeURIComponent('not found')}`,
    );
    expect(byError.data).toMatchObject({ total: 1 });
  });
});
