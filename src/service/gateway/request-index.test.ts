import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { xmlToTree } from '../../kit/index.ts';
import { readConfig } from '../config.ts';
import { upstreamRequestStats } from '../db/index/request-stats.ts';
import { startGatewayBefore } from '../testing/gateway-before.ts';
import { eventually, startService, type TestService } from '../testing/service.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../testing/vendor/vendor-service.ts';
import type { IndexPoller } from './poller.ts';

// The gateway's index of an upstream's requests (contract section 8): one poller per
// service fills it from interfaces.md's requestlist and requestdetail, and the gateway's
// requestlist answers from it, exactly, whatever the number of clients.

interface Setup {
  vendor: VendorService;
  gateway: TestService;
  poller: IndexPoller;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function setup(
  variant: (typeof VENDOR_VARIANTS)[keyof typeof VENDOR_VARIANTS] = VENDOR_VARIANTS.kanto,
  vendorNow?: () => Date,
  fileNames?: boolean,
): Promise<Setup> {
  const { vendor, gateway, poller, close } = await startGatewayBefore({
    vendor: { variant, now: vendorNow },
    entry: { id: 'vendor', fileNames },
    gateway: { adminPassword: 'admin-password-1' },
  });
  open.push(close);
  return { vendor, gateway, poller };
}

interface ListAnswer {
  RequestList: {
    Request?: { RequestId: string; Status: string; PipelineId: string }[];
    Info: { Total: number; Count: number; Date: string; Next: number };
  };
}

async function list(gateway: TestService, query: string): Promise<ListAnswer['RequestList']> {
  const response = await gateway.keyed(`/pipelineapi/requestlist/json?${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as ListAnswer).RequestList;
}

const count = (vendor: VendorService, api: string) => vendor.calls()[api] ?? 0;

describe('the index of an upstream service', () => {
  it('holds a day of several thousand requests exactly, with totals, filters and any depth', async () => {
    const { vendor, gateway, poller } = await setup();
    // Between two rounds fewer requests arrive than the upstream lists at once (1000).
    for (let round = 0; round < 5; round++) {
      vendor.addRequests('pl_1', 500);
      vendor.addRequests('pl_2', 380);
      vendor.addRequests('pl_2', 20, 'broken.csv', 'failed');
      await poller.pollNow();
    }
    const truth = vendor.requests();
    expect(truth).toHaveLength(4500);
    const day = (await poller.index.state('vendor')).today as string;
    expect(await poller.index.day('vendor', day)).toEqual({ complete: true });

    const all = await list(gateway, 'pagesize=1000');
    expect(all.Info.Total).toBe(4500);
    expect(all.Info.Date).toBe(day);
    expect(all.Request?.map((r) => r.RequestId)).toEqual(
      truth.slice(0, 1000).map((r) => r.requestId),
    );
    // Beyond the upstream's page bound: the oldest requests of the day, in order.
    const last = await list(gateway, 'pagesize=100&index=4400');
    expect(last.Request?.map((r) => r.RequestId)).toEqual(
      truth.slice(4400).map((r) => r.requestId),
    );
    expect(last.Info.Next).toBe(-1);

    const failed = await list(gateway, 'status=Abort&pagesize=1000');
    expect(failed.Info.Total).toBe(100);
    expect(new Set(failed.Request?.map((r) => r.PipelineId))).toEqual(new Set(['pl_2']));
    const pl1 = await list(gateway, 'id=pl_1&pagesize=1');
    expect(pl1.Info.Total).toBe(2500);
    const one = truth[1234]?.requestId as string;
    const found = await list(gateway, `q=${encodeURIComponent(one.slice(-8))}`);
    expect(found.Request?.map((r) => r.RequestId)).toContain(one);

    const stats = await upstreamRequestStats(poller.index, 'vendor', day);
    expect(stats.total).toBe(4500);
    expect(stats.pipelines).toEqual([
      { id: 'pl_1', name: 'Sales', counts: [{ status: 'Finish', value: 2500 }] },
      {
        id: 'pl_2',
        name: 'Stock',
        counts: [
          { status: 'Abort', value: 100 },
          { status: 'Finish', value: 1900 },
        ],
      },
    ]);
    const byHour = new Map<number, number>();
    for (const r of truth) {
      const hour = Number(/_(\d{2})-/.exec(r.requestId)?.[1]);
      byHour.set(hour, (byHour.get(hour) ?? 0) + 1);
    }
    expect(stats.hours.map((h) => [h.hour, h.counts.reduce((sum, c) => sum + c.value, 0)])).toEqual(
      [...byHour.entries()].sort((a, b) => a[0] - b[0]),
    );
    expect((await upstreamRequestStats(poller.index, 'vendor', day, 'pl_1')).total).toBe(2500);
    expect(await poller.stats(undefined)).toEqual(stats);
    const metrics = await (await gateway.fetch('/metrics')).text();
    expect(metrics).toContain(
      'pipeline_requests_today{service="vendor",pipeline="pl_2",status="Abort"} 100',
    );
    // requeststats through the gateway: the same counts in the contract's answer, every
    // pipeline of the upstream listed, and a day the index never watched refused.
    const answer = await gateway.keyed(`/pipelineapi/requeststats/json?date=${day}`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as {
      RequestStats: {
        Total: number;
        Pipeline: { Id: string; Count?: { Status: string; Value: number }[] }[];
        Hour: { Hour: number; Count?: { Status: string; Value: number }[] }[];
      };
    };
    expect(body.RequestStats.Total).toBe(4500);
    expect(
      body.RequestStats.Pipeline.map((p) => [
        p.Id,
        (p.Count ?? []).map((c) => [c.Status, c.Value]),
      ]),
    ).toEqual([
      ['pl_1', [['Finish', 2500]]],
      [
        'pl_2',
        [
          ['Finish', 1900],
          ['Abort', 100],
        ],
      ],
      ['pl_7', []],
    ]);
    expect(body.RequestStats.Hour).toHaveLength(24);
    const unwatched = await gateway.keyed('/pipelineapi/requeststats/json?date=19990101');
    expect(unwatched.status).toBe(404);
    expect(await unwatched.text()).toContain('did not watch that day');
    expect((await gateway.keyed('/pipelineapi/requeststats/json?id=pl_9')).status).toBe(404);
    expect(await poller.stats('19990101')).toBeUndefined();
    expect((await upstreamRequestStats(poller.index, 'vendor', '19990101')).total).toBe(0);
  });

  it("reaches beyond one answer through each pipeline's list, and says when even that is not enough", async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_1', 700);
    vendor.addRequests('pl_2', 600);
    await poller.pollNow();
    const day = (await poller.index.state('vendor')).today as string;
    expect(await poller.index.day('vendor', day)).toEqual({ complete: true });
    const all = await list(gateway, 'pagesize=1000&index=300');
    expect(all.Info.Total).toBe(1300);
    expect(all.Request?.map((r) => r.RequestId)).toEqual(
      vendor
        .requests()
        .slice(300)
        .map((r) => r.requestId),
    );
    vendor.addRequests('pl_1', 1200);
    await poller.pollNow();
    expect(await poller.index.day('vendor', day)).toEqual({ complete: false });
    // Counts of a day the index could not list whole would not be exact: refused, saying why.
    expect(await poller.stats(day)).toBeUndefined();
    const refused = await gateway.keyed(`/pipelineapi/requeststats/json?date=${day}`);
    expect(refused.status).toBe(404);
    expect(await refused.text()).toContain('its request index missed some');
  });

  it('costs the upstream the same with one client as with five', async () => {
    const costs: number[] = [];
    for (const clients of [1, 5]) {
      // Without the file-name reads, which cost the same whoever looks (tested below).
      const { vendor, gateway, poller } = await setup(VENDOR_VARIANTS.kanto, undefined, false);
      vendor.addRequests('pl_1', 30);
      await poller.pollNow();
      const all = () => Object.values(vendor.calls()).reduce((sum, n) => sum + n, 0);
      const before = all();
      // What a dashboard asks on each refresh: the day's list, the pipelines, the version.
      for (let round = 0; round < 3; round++) {
        vendor.addRequests('pl_2', 5);
        await Promise.all([
          poller.pollNow(),
          ...Array.from({ length: clients }, async () => {
            for (let i = 0; i < 4; i++) {
              const page = await list(gateway, 'pagesize=10');
              expect(page.Info.Total).toBeGreaterThanOrEqual(30);
              expect((await gateway.keyed('/pipelineapi/list/json')).status).toBe(200);
              expect((await gateway.keyed('/pipelineapi/version/json')).status).toBe(200);
            }
          }),
        ]);
      }
      costs.push(all() - before);
    }
    // Three rounds of one requestlist each, and one version for the interval: the pipeline
    // list the first round asked (for the name of the service's zone) serves it too.
    expect(costs[0]).toBe(4);
    expect(costs[1]).toBe(costs[0]);
  });

  it("learns finished requests' file names within the budget, so a search by file finds them", async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_1', 25);
    await poller.pollNow();
    const details = () => vendor.calls().requestdetail ?? 0;
    const before = details();
    await poller.pollNow();
    // Ten reads a round at most (EVIDENCE_PER_ROUND), newest first.
    expect(details() - before).toBeLessThanOrEqual(10);
    expect(details() - before).toBeGreaterThan(0);
    for (let round = 0; round < 3; round++) await poller.pollNow();
    const all = await list(gateway, 'pagesize=100');
    const finished = (all.Request ?? []).find((r) => r.Status === 'Finish');
    expect(finished).toBeDefined();
    // Asked of the vendor itself: a detail read through the gateway would teach the index.
    const detail = await fetch(
      `${vendor.url}/pipelineapi/requestdetail/xml?requestid=${encodeURIComponent(finished?.RequestId ?? '')}`,
      { headers: { 'X-Pipelinewebapi': vendor.apiKey } },
    );
    const file = /<SensorFile>(?:<!\[CDATA\[)?([^<\]]*)/.exec(await detail.text())?.[1] ?? '';
    expect(file).not.toBe('');
    const found = await list(gateway, `pagesize=100&q=${encodeURIComponent(file)}`);
    expect((found.Request ?? []).map((r) => r.RequestId)).toContain(finished?.RequestId);
  });

  it('asks requestdetail only about unfinished requests no list shows, until their EndTime is set', async () => {
    let now = new Date('2026-11-21T10:00:00Z');
    const { vendor, gateway, poller } = await setup(VENDOR_VARIANTS.kanto, () => now);
    // Held: pl_7 is suspended at the vendor, so its request waits.
    const exec = await gateway.keyed('/pipelineapi/exec', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'pipelineid=pl_7&filename=fail.csv',
    });
    expect(exec.status).toBe(200);
    await poller.pollNow();
    const first = (await poller.index.state('vendor')).today as string;
    expect(first).toBe('20261121');
    // The service's day turns: the last round of the old day, then its requests by detail.
    now = new Date('2026-11-22T10:00:00Z');
    await poller.pollNow();
    expect(count(vendor, 'requestdetail')).toBe(0);
    const resume = await gateway.keyed('/pipelineapi/resume', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'pipelineid=pl_7',
    });
    expect(resume.status).toBe(200);
    for (let i = 0; i < 4; i++) vendor.advance();
    await poller.pollNow();
    expect(count(vendor, 'requestdetail')).toBe(1);
    const old = await list(gateway, 'date=20261121');
    // 'Abort' is not one of our contract's words: its EndTime told the poller it ended.
    expect(old.Request?.map((r) => r.Status)).toEqual(['Abort']);
    await poller.pollNow();
    expect(count(vendor, 'requestdetail')).toBe(1);
    // Retried at the vendor itself: a detail a browser asks for tells the index at once.
    const [held] = vendor.requests();
    if (!held) throw new Error('no request at the vendor');
    Object.assign(held, { status: 'Wait', end: null });
    const detail = await gateway.keyed(`/pipelineapi/requestdetail?requestid=${held.requestId}`);
    expect(detail.status).toBe(200);
    expect((await list(gateway, 'date=20261121')).Request?.map((r) => r.Status)).toEqual(['Wait']);
    expect(await poller.index.unsettled('vendor', Number.MAX_SAFE_INTEGER, 10)).toEqual([
      held.requestId,
    ]);
  });

  it('answers since with the requests changed since then, in the service zone', async () => {
    const { vendor, gateway, poller } = await setup(VENDOR_VARIANTS.pacific);
    vendor.addRequests('pl_1', 3);
    await poller.pollNow();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const between = new Date(Date.now() - 8 * 3600_000);
    const since = between.toISOString().slice(0, 19).replace(/\D/g, '');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    vendor.addRequests('pl_2', 2);
    await poller.pollNow();
    const changed = await list(gateway, `since=${since}`);
    expect(changed.Info.Total).toBe(2);
    expect(new Set(changed.Request?.map((r) => r.PipelineId))).toEqual(new Set(['pl_2']));
    const bad = await gateway.keyed('/pipelineapi/requestlist?since=2026');
    expect(bad.status).toBe(400);
  });

  it('backs off while the upstream fails, and says so in GET /mcapi/services', async () => {
    const { vendor, gateway, poller } = await setup();
    await poller.pollNow();
    const services = async () => {
      const login = await gateway.fetch('/mcapi/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'userName=admin&password=admin-password-1',
      });
      const sessionId = ((await login.json()) as { result: { data: { sessionId: string } } }).result
        .data.sessionId;
      const response = await gateway.fetch('/mcapi/services', {
        headers: { 'X-As-SessionId': sessionId },
      });
      return ((await response.json()) as { result: { data: { services: unknown[] } } }).result.data
        .services[0] as { indexedAt: string | null; indexError: string | null };
    };
    const good = await services();
    expect(good.indexedAt).toEqual(poller.state().indexedAt);
    expect(Date.parse(good.indexedAt as string)).not.toBeNaN();
    const interval = poller.state().pollDelayMs;
    await vendor.close();
    await poller.pollNow();
    expect(poller.state().pollDelayMs).toBe(interval * 2);
    await poller.pollNow();
    expect(poller.state().pollDelayMs).toBe(interval * 4);
    const bad = await services();
    expect(bad.indexError).toMatch(/Vendor cannot be reached/);
    // The time of the last good round stays: the index is as of then.
    expect(bad.indexedAt).toBe(good.indexedAt);
  });

  it('reads an ended request’s detail once for every browser, and again once it runs again', async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_2', 1, 'broken.csv', 'failed');
    vendor.addRequests('pl_1', 1, 'later.csv', 'waiting');
    await poller.pollNow();
    const [waiting, failed] = vendor.requests().map((r) => r.requestId) as [string, string];
    const detail = async (id: string) => {
      const response = await gateway.keyed(
        `/pipelineapi/requestdetail/json?requestid=${id}&applog=true`,
      );
      expect(response.status).toBe(200);
      return ((await response.json()) as { RequestDetail: { Status: string } }).RequestDetail;
    };
    // This vendor's failure word (Abort) is no word of ours: the index knows the request
    // ended once a detail shows its EndTime (the poller's evidence read, or this one).
    expect(await poller.index.endedStamp('vendor', failed)).toBeUndefined();
    await detail(failed);
    expect(await poller.index.endedStamp('vendor', failed)).toBeDefined();
    const before = count(vendor, 'requestdetail');
    // Five overviews at once, then two more later: one read of the upstream.
    await Promise.all(Array.from({ length: 5 }, () => detail(failed)));
    await detail(failed);
    await detail(failed);
    expect(count(vendor, 'requestdetail')).toBe(before + 1);
    // Other logs asked: another answer, read once too.
    await gateway.keyed(`/pipelineapi/requestdetail/json?requestid=${failed}`);
    expect(count(vendor, 'requestdetail')).toBe(before + 2);
    // A request that waits is read at every call: its detail may change at any time.
    await detail(waiting);
    await detail(waiting);
    expect(count(vendor, 'requestdetail')).toBe(before + 4);
    // While the upstream fails its rounds, each browser meets its failure, not a kept answer.
    vendor.setFault('truncated');
    await poller.pollNow();
    const down = await gateway.keyed(
      `/pipelineapi/requestdetail/json?requestid=${failed}&applog=true`,
    );
    expect(down.status).toBeGreaterThanOrEqual(500);
    vendor.setFault(undefined);
    await poller.pollNow();
    // Retried through the gateway: the failed request runs again, and its detail is read anew.
    const retried = await gateway.keyed(`/pipelineapi/requestretry/json?requestid=${failed}`, {
      method: 'PUT',
    });
    expect(retried.status).toBe(200);
    const afterRetry = count(vendor, 'requestdetail');
    const again = await detail(failed);
    expect(count(vendor, 'requestdetail')).toBe(afterRetry + 1);
    expect(again.Status).not.toBe('Error');
  });

  it('keeps no detail whose logs are long: what it holds does not grow with a vendor’s logs', async () => {
    const vendor = await startVendorService({ behaviour: { appLogLines: 1_200 } });
    const gateway = await startService({
      services: [{ id: 'vendor', name: 'Vendor', url: vendor.url, apiKey: vendor.apiKey }],
      pollScheduled: false,
    });
    open.push(
      () => gateway.close(),
      () => vendor.close(),
    );
    vendor.addRequests('pl_2', 1, 'broken.csv', 'failed');
    await gateway.app.context.services.route('vendor')?.upstream?.poller?.pollNow();
    const failed = vendor.requests()[0]?.requestId as string;
    const read = async (logs: string) => {
      const response = await gateway.keyed(
        `/pipelineapi/requestdetail/json?requestid=${failed}${logs}`,
      );
      expect(response.status).toBe(200);
      return response;
    };
    const lines = (await (await read('&applog=true')).json()) as {
      RequestDetail: { AppLog: { Log: unknown[] } };
    };
    expect(lines.RequestDetail.AppLog.Log.length).toBeGreaterThan(1_200);
    const before = count(vendor, 'requestdetail');
    await read('&applog=true');
    await read('&applog=true');
    expect(count(vendor, 'requestdetail')).toBe(before + 2);
    // The same request without its logs is small: kept for every browser.
    await read('');
    await read('');
    expect(count(vendor, 'requestdetail')).toBe(before + 3);
  });

  it('polls at once when the upstream is seen answering again, not at the end of its back-off', async () => {
    const vendor = await startVendorService({ variant: VENDOR_VARIANTS.kanto });
    // A scheduled poller of a long interval: its own timer would not run again within the test.
    const gateway = await startService({
      services: [
        { id: 'vendor', name: 'Vendor', url: vendor.url, apiKey: vendor.apiKey, pollSeconds: 30 },
      ],
      adminPassword: 'admin-password-1',
    });
    open.push(
      () => gateway.close(),
      () => vendor.close(),
    );
    const services = gateway.app.context.services;
    const poller = services.route('vendor')?.upstream?.poller as IndexPoller;
    const reachable = () => services.list().find((s) => s.id === 'vendor')?.reachable;
    await eventually(() => poller.state().indexedAt ?? undefined, 'the first round');
    // Every answer cut midway: the rounds fail, the upstream is unreachable, the poller backs off.
    vendor.setFault('truncated');
    await poller.pollNow();
    await poller.pollNow();
    expect(poller.state().indexError).not.toBeNull();
    expect(poller.state().pollDelayMs).toBe(120_000);
    expect(reachable()).toBe(false);
    const listed = count(vendor, 'requestlist');
    vendor.setFault(undefined);
    vendor.addRequests('pl_1', 3);
    // The 30 s check finds it back: a round follows at once, and the pace is the interval again.
    await services.checkAll();
    expect(reachable()).toBe(true);
    await eventually(
      () => (poller.state().indexError === null ? true : undefined),
      'a round after the upstream answered again',
      5_000,
    );
    expect(count(vendor, 'requestlist')).toBeGreaterThan(listed);
    expect(poller.state().pollDelayMs).toBe(30_000);
  });
});

describe('a gateway without an embedded service', () => {
  it('creates no pipelines, inbox, outbox, status or action database of its own', async () => {
    const { gateway, poller } = await setup();
    await poller.pollNow();
    expect(readdirSync(gateway.dataDir).sort()).toEqual(
      expect.arrayContaining(['system.db', 'upstream-index.db']),
    );
    expect(
      readdirSync(gateway.dataDir).filter(
        (f) => !/^(system|upstream-index)\.db(-wal|-shm)?$/.test(f),
      ),
    ).toEqual([]);
    const pipelines = xmlToTree(await (await gateway.keyed('/pipelineapi/list')).text()) as {
      PipelineList: { PipeLine: { Id: string }[] };
    };
    expect(pipelines.PipelineList.PipeLine.map((p) => p.Id)).toEqual(['pl_1', 'pl_2', 'pl_7']);
    const ready = (await (await gateway.fetch('/readyz')).json()) as {
      components: { name: string }[];
    };
    expect(ready.components.map((c) => c.name)).toEqual(['system database', 'service vendor']);
  });

  it('refuses --pipelines with --upstream, and takes --upstream-poll-s', () => {
    expect(() =>
      readConfig(
        ['--upstream', 'http://127.0.0.1:1', '--upstream-key', 'k', '--pipelines', 'x.yaml'],
        {},
      ),
    ).toThrow(/--pipelines/);
    const config = readConfig(
      ['--upstream', 'http://127.0.0.1:1', '--upstream-key', 'k', '--upstream-poll-s', '2'],
      {},
    );
    expect(config.services?.[0]).toMatchObject({ pollSeconds: 2 });
    expect(() => readConfig(['--upstream-poll-s', '2'], {})).toThrow(/--upstream-poll-s/);
    expect(() =>
      readConfig(['--upstream', 'http://x', '--upstream-key', 'k', '--upstream-poll-s', '0'], {}),
    ).toThrow(/--upstream-poll-s/);
  });
});
