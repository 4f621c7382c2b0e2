import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../kit/index.ts';
import { addUser } from '../auth/users.ts';
import { RequestIndex } from '../db/index/request-index.ts';
import { startGatewayBefore } from '../testing/gateway-before.ts';
import type { TestService } from '../testing/service.ts';
import {
  VENDOR_VARIANTS,
  type VendorBehaviour,
  type VendorService,
} from '../testing/vendor/vendor-service.ts';
import { IndexPoller } from './poller.ts';

// Issue 25 behind the gateway: each attempt of a vendor's request, with a failure's words
// and log lines read when the failure was first seen (the vendor rewrites its log on
// retry), who retried it through this server, `q` over file names and failures, and
// requests over a range of days with exact counts.

const PASSWORD = 'attempts-password-1';
const variant = VENDOR_VARIANTS.kanto;

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function setup(options: { vendorNow?: () => Date; behaviour?: Partial<VendorBehaviour> }) {
  const { vendor, gateway, poller, close } = await startGatewayBefore({
    vendor: { variant, now: options.vendorNow, behaviour: options.behaviour },
    entry: { id: 'vendor', failedStatuses: [variant.status.failed] },
  });
  open.push(close);
  await addUser(gateway.app.context.shared, 'olga', PASSWORD, 'operator', 'now');
  const login = await gateway.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName: 'olga', password: PASSWORD }).toString(),
  });
  const sessionId = ((await login.json()) as { result: { data: { sessionId: string } } }).result
    .data.sessionId;
  return { vendor, gateway, poller, sessionId };
}

/** A Part A extension's answer: its status and the envelope's data or message. */
async function mc(gateway: TestService, sessionId: string, path: string) {
  const response = await gateway.fetch(path, { headers: { 'X-As-SessionId': sessionId } });
  const body = (await response.json()) as {
    result: { status: string; message?: string; data?: Record<string, unknown> };
  };
  return { status: response.status, data: body.result.data ?? {}, message: body.result.message };
}

interface AttemptAnswer {
  attempt: number;
  status: string;
  failed: boolean;
  message: string;
  evidence: string;
  log: { date: string; type: string; message: string }[];
  retriedBy: { userName: string | null; via: string; at: string } | null;
  startedAt: string | null;
}

async function attempts(gateway: TestService, sessionId: string, requestId: string) {
  const answer = await mc(
    gateway,
    sessionId,
    `/mcapi/requests/attempts?service=vendor&requestid=${requestId}`,
  );
  expect(answer.status).toBe(200);
  return answer.data.attempts as AttemptAnswer[];
}

async function found(gateway: TestService, q: string): Promise<string[]> {
  const response = await gateway.keyed(
    `/services/vendor/pipelineapi/requestlist/json?q=${encodeURIComponent(q)}`,
  );
  expect(response.status).toBe(200);
  const list = (await response.json()) as { RequestList: { Request?: { RequestId: string }[] } };
  return (list.RequestList.Request ?? []).map((r) => r.RequestId);
}

const detailCalls = (vendor: VendorService) => vendor.calls().requestdetail ?? 0;

describe('attempts of a request behind the gateway', () => {
  it('keeps the first failure and who retried it after a retry that succeeds rewrote the log', async () => {
    const { vendor, gateway, poller, sessionId } = await setup({
      behaviour: { retryLog: 'rewritten' },
    });
    vendor.addRequests('pl_1', 1, 'fail-0601.csv', 'waiting');
    vendor.addRequests('pl_2', 2, 'stock.csv', 'done');
    await poller.pollNow();
    for (let i = 0; i < 4; i++) vendor.advance();
    await poller.pollNow();
    const [request] = vendor.requests().filter((r) => r.pipelineId === 'pl_1');
    if (!request) throw new Error('no request at the vendor');
    const id = request.requestId;
    expect(request.status).toBe(variant.status.failed);

    const first = await attempts(gateway, sessionId, id);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      attempt: 1,
      status: variant.status.failed,
      failed: true,
      evidence: 'kept',
      message: 'Input fail-0601.csv could not be parsed',
      retriedBy: null,
    });
    expect(first[0]?.log.map((l) => l.message)).toContain(
      'Input fail-0601.csv could not be parsed',
    );
    // q finds it by its file and by its failure's words (any case), and nothing else.
    expect(await found(gateway, 'FAIL-0601')).toEqual([id]);
    expect(await found(gateway, 'could not be PARSED')).toEqual([id]);

    // Olga retries it through the gateway; the vendor starts its log again and it finishes.
    const olga = new PipelineClient({
      baseUrl: `${gateway.url}/services/vendor`,
      fetch: gateway.checkedFetch,
      credentials: { kind: 'session', sessionId },
    });
    await olga.retry(id);
    await poller.pollNow();
    for (let i = 0; i < 4; i++) vendor.advance();
    await poller.pollNow();
    expect(request.status).toBe(variant.status.done);
    const now = await gateway.keyed(
      `/services/vendor/pipelineapi/requestdetail/json?requestid=${id}&requestlog=true&applog=true`,
    );
    expect(await now.text()).not.toContain('could not be parsed');

    const after = await attempts(gateway, sessionId, id);
    expect(after.map((a) => [a.attempt, a.status, a.failed])).toEqual([
      [1, variant.status.failed, true],
      [2, variant.status.done, false],
    ]);
    expect(after[0]?.message).toBe('Input fail-0601.csv could not be parsed');
    expect(after[0]?.log.map((l) => l.message)).toContain(
      'Input fail-0601.csv could not be parsed',
    );
    expect(after[1]?.retriedBy).toMatchObject({ userName: 'olga', via: 'session' });
    expect(Date.parse(after[1]?.retriedBy?.at ?? '')).toBeLessThanOrEqual(
      Date.parse(after[1]?.startedAt ?? ''),
    );
    // Still found by the words of the failure that made her retry it, and by its file now.
    expect(await found(gateway, 'could not be parsed')).toEqual([id]);
    expect(await found(gateway, 'fixed-0601')).toEqual([id]);
  });

  it('answers clearly for a request it does not hold and for bad parameters', async () => {
    const { gateway, sessionId } = await setup({});
    const none = await mc(
      gateway,
      sessionId,
      '/mcapi/requests/attempts?service=vendor&requestid=pl_1-20260101_09-000001',
    );
    expect(none.status).toBe(404);
    expect(none.message).toContain('is not in the index of service vendor');
    // Any shape is the vendor's own (issue 37), but not a line break.
    const bad = await mc(
      gateway,
      sessionId,
      '/mcapi/requests/attempts?service=vendor&requestid=x%0Ay',
    );
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('requestid');
    const unknown = await mc(
      gateway,
      sessionId,
      '/mcapi/requests/attempts?service=nope&requestid=pl_1-20260101_09-000001',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.message).toContain('"nope"');
    const anonymous = await gateway.fetch(
      '/mcapi/requests/attempts?requestid=pl_1-20260101_09-000001',
    );
    expect(anonymous.status).toBe(401);
  });

  it('reads failures within its budget per round and minute, keeping the rest for later rounds', async () => {
    let nowMs = Date.parse('2026-11-21T01:00:00Z');
    const now = () => new Date(nowMs);
    const { vendor, gateway } = await setup({ vendorNow: now });
    const upstream = gateway.app.context.services.route('vendor')?.upstream;
    if (!upstream) throw new Error('no upstream');
    const folder = mkdtempSync(join(tmpdir(), 'attempts-budget-'));
    const index = RequestIndex.open(folder);
    open.push(async () => {
      index.close();
      rmSync(folder, { recursive: true, force: true });
    });
    // A poller of its own over the gateway's upstream, with a small budget: 3 a round, 5 a minute.
    const poller = new IndexPoller(upstream, index, {
      intervalMs: 5000,
      now,
      scheduled: false,
      failedStatuses: [variant.status.failed],
      evidence: { perRound: 3, perMinute: 5 },
    });
    vendor.addRequests('pl_2', 12, 'broken.csv', 'failed');
    vendor.addRequests('pl_1', 30, 'daily.csv', 'done');
    const reads: number[] = [];
    const round = async () => {
      const before = detailCalls(vendor);
      await poller.pollNow();
      reads.push(detailCalls(vendor) - before);
      nowMs += 5000;
    };
    await round();
    await round();
    await round();
    // 3, then 2 (the minute's 5 are spent), then none until the minute has passed.
    expect(reads).toEqual([3, 2, 0]);
    expect(await index.attempts.backlog('vendor')).toBe(7);
    nowMs += 60_000;
    // A read that fails stays due and is read again next round.
    vendor.setFault('error', { apis: ['requestdetail'] });
    await round();
    expect(reads.at(-1)).toBe(3);
    expect(await index.attempts.backlog('vendor')).toBe(7);
    vendor.setFault(undefined);
    await round();
    expect(reads.at(-1)).toBe(2);
    expect(await index.attempts.backlog('vendor')).toBe(5);
    nowMs += 60_000;
    for (let i = 0; i < 3; i++) await round();
    expect(await index.attempts.backlog('vendor')).toBe(0);
    const broken = vendor.requests().filter((r) => r.filename === 'broken.csv');
    for (const r of broken)
      expect(await index.attempts.failureOf('vendor', r.requestId)).not.toBeUndefined();
    // Finished requests' files are asked only when told to (each costs a read).
    expect(await index.attempts.fileless('vendor', 100)).toHaveLength(30);
  });

  it('lists and counts requests over a range of days exactly, and refuses bad ranges', async () => {
    let nowMs = Date.parse('2026-11-21T01:00:00Z');
    const { vendor, gateway, poller, sessionId } = await setup({
      vendorNow: () => new Date(nowMs),
    });
    vendor.addRequests('pl_1', 3);
    vendor.addRequests('pl_2', 2, 'broken.csv', 'failed');
    await poller.pollNow();
    nowMs = Date.parse('2026-11-22T01:00:00Z');
    vendor.addRequests('pl_1', 4);
    await poller.pollNow();
    const range = (query: string) => mc(gateway, sessionId, `/mcapi/requests/range?${query}`);

    const both = await range('service=vendor&from=20261121&to=20261122&pagesize=4');
    expect(both.status).toBe(200);
    expect(both.data).toMatchObject({
      from: '20261121',
      to: '20261122',
      total: 9,
      exact: true,
      days: [
        { day: '20261121', count: 5, state: 'complete' },
        { day: '20261122', count: 4, state: 'complete' },
      ],
      statuses: [
        { status: variant.status.failed, count: 2 },
        { status: variant.status.done, count: 7 },
      ],
      next: 4,
    });
    const rows = both.data.requests as { requestId: string; day: string }[];
    expect(rows.map((r) => r.day)).toEqual(['20261122', '20261122', '20261122', '20261122']);
    const last = await range('service=vendor&from=20261121&to=20261122&pagesize=4&index=8');
    expect((last.data.requests as unknown[]).length).toBe(1);
    expect(last.data.next).toBe(-1);
    const failed = await range(
      `service=vendor&from=20261101&to=20261130&status=${variant.status.failed}`,
    );
    expect(failed.data).toMatchObject({ total: 2, exact: false });
    expect(
      (failed.data.days as { state: string }[]).filter((d) => d.state === 'complete'),
    ).toHaveLength(2);
    expect((await range('service=vendor&from=20261121&to=20261122&q=broken')).data.total).toBe(2);

    for (const [query, words] of [
      ['from=20261122&to=20261121', 'is before from'],
      ['from=20261101&to=20261202', 'more than 31 days'],
      ['from=2026112&to=20261122', 'must be a day as yyyymmdd'],
      ['from=20261131&to=20261201', 'must be a day as yyyymmdd'],
      ['from=20261121', 'Parameter to is required'],
      // A vendor's status words are its own (issue 37), but none is empty.
      ['from=20261121&to=20261122&status=Abort,%20,Finish', 'status'],
    ] as const) {
      const refused = await range(`service=vendor&${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.message, query).toContain(words);
    }
  });
});
