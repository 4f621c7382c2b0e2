import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../kit/index.ts';
import { addUser } from '../auth/users.ts';
import type { AttemptRecord } from '../db/index/attempt-record.ts';
import { RequestIndex } from '../db/index/request-index.ts';
import { statedTimes, type VendorTimes } from '../mcapi/request-history.ts';
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
  endedAt: string | null;
  beginTime: string;
  endTime: string;
  observed: boolean;
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

/** The vendor's own requestdetail of a request, with its request log, as it answers it. */
async function vendorDetail(vendor: VendorService, requestId: string) {
  const response = await fetch(
    `${vendor.url}/pipelineapi/requestdetail/json?requestid=${requestId}&requestlog=true`,
    { headers: { 'X-Pipelinewebapi': vendor.apiKey } },
  );
  expect(response.status).toBe(200);
  return (
    (await response.json()) as {
      RequestDetail: {
        BeginTime: string;
        EndTime: string;
        RequestLog: { Log: { Date: string }[] };
      };
    }
  ).RequestDetail;
}

/** A kanto vendor's wall clock (JST) of an instant, as its dash dates write it. */
const jst = (ms: number) =>
  new Date(ms + 9 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');

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

describe('attempts in the vendor’s time (issue 38)', () => {
  it('tells an attempt’s begin and end as the vendor states them, not when the gateway saw it', async () => {
    // The vendor's clock is its own, years from the gateway's: what the gateway sees and what
    // the vendor states cannot agree by chance.
    const began = Date.parse('2021-03-03T23:19:18Z');
    let nowMs = began;
    const { vendor, gateway, poller, sessionId } = await setup({
      vendorNow: () => new Date(nowMs),
    });
    vendor.addRequests('pl_1', 1, 'daily.csv', 'waiting');
    for (const seconds of [20, 20, 20, 28]) {
      nowMs += seconds * 1000;
      vendor.advance();
    }
    const [request] = vendor.requests();
    if (!request) throw new Error('no request at the vendor');
    expect(request.status).toBe(variant.status.done);
    // The gateway first sees it now, ended.
    await poller.pollNow();

    const detail = await vendorDetail(vendor, request.requestId);
    expect([detail.BeginTime, detail.EndTime]).toEqual([jst(began), jst(nowMs)]);
    const [only, ...more] = await attempts(gateway, sessionId, request.requestId);
    expect(more).toEqual([]);
    expect(only).toMatchObject({
      attempt: 1,
      beginTime: detail.BeginTime,
      endTime: detail.EndTime,
      observed: true,
    });
    // The gateway's sightings are still told, as its own, and are not the vendor's times.
    expect(only?.startedAt).not.toBeNull();
    expect(Date.parse(only?.startedAt ?? '')).not.toBe(began);
    expect(Date.parse(only?.endedAt ?? '')).not.toBe(nowMs);

    // Failed, retried through the gateway, and run again: the vendor keeps its log on retry
    // and its BeginTime stays the first run's, so the second run's begin is its log's.
    vendor.addRequests('pl_2', 1, 'fail-0302.csv', 'waiting');
    const failing = vendor.requests().find((r) => r.filename === 'fail-0302.csv');
    if (!failing) throw new Error('no failing request at the vendor');
    const firstBegan = nowMs;
    await poller.pollNow();
    for (let i = 0; i < 4; i++) {
      nowMs += 15_000;
      vendor.advance();
    }
    const firstEnded = nowMs;
    await poller.pollNow();
    const olga = new PipelineClient({
      baseUrl: `${gateway.url}/services/vendor`,
      fetch: gateway.checkedFetch,
      credentials: { kind: 'session', sessionId },
    });
    nowMs += 600_000;
    await olga.retry(failing.requestId);
    await poller.pollNow();
    nowMs += 5_000;
    const secondBegan = nowMs;
    for (let i = 0; i < 4; i++) {
      vendor.advance();
      nowMs += 15_000;
    }
    const secondEnded = nowMs - 15_000;
    await poller.pollNow();
    expect(failing.status).toBe(variant.status.done);

    const again = await vendorDetail(vendor, failing.requestId);
    expect(again.BeginTime).toBe(jst(firstBegan));
    expect(again.EndTime).toBe(jst(secondEnded));
    const both = await attempts(gateway, sessionId, failing.requestId);
    expect(both.map((a) => [a.attempt, a.status, a.beginTime, a.endTime, a.observed])).toEqual([
      [1, variant.status.failed, jst(firstBegan), jst(firstEnded), true],
      [2, variant.status.done, jst(secondBegan), again.EndTime, true],
    ]);
    expect(both[1]?.retriedBy).toMatchObject({ userName: 'olga' });
  });

  it('gives the gateway’s sighting, marked as one, where the vendor states no time', async () => {
    const { vendor, gateway, poller, sessionId } = await setup({
      vendorNow: () => new Date('2021-03-04T00:00:00Z'),
    });
    vendor.addRequests('pl_1', 1, 'daily.csv', 'waiting');
    await poller.pollNow();
    const [request] = vendor.requests();
    if (!request) throw new Error('no request at the vendor');
    // Its requestdetail fails: nothing the vendor states can be had now.
    vendor.setFault('error', { apis: ['requestdetail'] });
    const [only] = await attempts(gateway, sessionId, request.requestId);
    expect(only).toMatchObject({ beginTime: '', endTime: '', observed: true, endedAt: null });
    expect(Date.parse(only?.startedAt ?? '')).not.toBeNaN();

    // A vendor that states no date (or text that is none) is not given one either.
    const seen: AttemptRecord = {
      attempt: 1,
      status: variant.status.done,
      stage: 'Complete',
      startedMs: Date.parse('2026-11-21T00:04:25Z'),
      endedMs: Date.parse('2026-11-21T00:04:25Z'),
      beginTime: '',
      endTime: '',
      changes: [],
      failed: false,
      message: '',
      log: [],
      evidence: '',
    };
    const silent: VendorTimes = {
      beginTime: '',
      endTime: '',
      log: [{ date: '', stage: '', event: 'Start' }],
    };
    expect(statedTimes([seen], silent)).toEqual([{ beginTime: '', endTime: '' }]);
    expect(statedTimes([seen], undefined)).toEqual([{ beginTime: '', endTime: '' }]);
    // What it does state is taken, and a run of its log stands in for what it does not.
    expect(
      statedTimes([seen], {
        beginTime: '',
        endTime: '2026-11-21 08:20:46',
        log: [
          { date: '2026-11-21 08:19:18', stage: '', event: 'Start' },
          { date: '2026-11-21 08:20:46', stage: '', event: 'End' },
        ],
      }),
    ).toEqual([{ beginTime: '2026-11-21 08:19:18', endTime: '2026-11-21 08:20:46' }]);
  });

  it('gives a vendor’s BeginTime and log runs to the attempts they can only be', () => {
    const attempt = (n: number, ended: boolean, kept: Partial<AttemptRecord> = {}) =>
      ({
        attempt: n,
        status: '',
        stage: '',
        startedMs: 1,
        endedMs: ended ? 2 : null,
        beginTime: '',
        endTime: '',
        changes: [],
        failed: false,
        message: '',
        log: [],
        evidence: '',
        ...kept,
      }) satisfies AttemptRecord;
    const line = (date: string, stage: string, event: string) => ({ date, stage, event });
    const first = [
      line('2026-11-21 08:00:00', '', 'Start'),
      line('2026-11-21 08:01:00', '', 'End'),
    ];
    // Its log kept on retry, the retry not logged yet: the run it tells is the first attempt's.
    expect(
      statedTimes([attempt(1, true), attempt(2, false)], {
        beginTime: '2026-11-21 08:00:00',
        endTime: '',
        log: first,
      }),
    ).toEqual([
      { beginTime: '2026-11-21 08:00:00', endTime: '2026-11-21 08:01:00' },
      { beginTime: '', endTime: '' },
    ]);
    // Its log and BeginTime begun again on retry, the failure's times kept when it was read.
    const again = {
      beginTime: '2026-11-21 09:00:00',
      endTime: '2026-11-21 09:02:00',
      log: [line('2026-11-21 09:00:00', '', 'Start'), line('2026-11-21 09:02:00', '', 'End')],
    };
    const failed = { beginTime: '2026-11-21 08:00:00', endTime: '2026-11-21 08:01:00' };
    expect(statedTimes([attempt(1, true, failed), attempt(2, true)], again)).toEqual([
      failed,
      { beginTime: '2026-11-21 09:00:00', endTime: '2026-11-21 09:02:00' },
    ]);
    // Nothing kept of the first: whether the one run is the latest alone or both told as one
    // (a cancel it closed by no End) cannot be told, so neither begin is given, nor is the
    // BeginTime, which may be either's.
    expect(statedTimes([attempt(1, true), attempt(2, true)], again)).toEqual([
      { beginTime: '', endTime: '' },
      { beginTime: '', endTime: '2026-11-21 09:02:00' },
    ]);
  });
});
