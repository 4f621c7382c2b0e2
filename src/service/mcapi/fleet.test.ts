import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFleet, decodeTrends, type FleetService, type Trends } from '../../kit/fleet.ts';
import { addUser } from '../auth/users.ts';
import type { ServiceContext } from '../context.ts';
import { createRequest, dequeue, setRequestTimes, setStatus } from '../db/status/requests.ts';
import { grantRole } from '../db/system/service-roles.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { signIn as signInAs, startService, type TestService } from '../testing/service.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../testing/vendor/vendor-service.ts';
import { shiftDay } from './fleet.ts';

/*
 * The fleet view and the trends (issue 25, items 3 and 6) against the real server in
 * front of two vendor-like services (Tokyo: its own failed word Abort, configured; Pacific:
 * interfaces.md's defaults) and its own embedded one, whose status database is written
 * with the engine's own statements.
 */

const PASSWORD = 'fleet-password-1';

/** Nearest rank: the value at rank ⌈p·n/100⌉ of the sorted values. */
function nearestRank(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p * sorted.length) / 100) - 1] as number;
}

const iso = (day: string) => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;

/** `YYYY-MM-DD hh:mm:ss.mmm` of a day at 10:00 plus `ms`, as the engine stamps. */
function stampAt(day: string, ms: number): string {
  const at = new Date(Date.parse(`${iso(day)}T10:00:00.000Z`) + ms);
  return at.toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * Requests of the embedded service on a day as the engine records them: created, taken off
 * the queue (the engine never runs them), in `status`, with a duration when ended.
 */
function seedLocal(
  ctx: ServiceContext,
  day: string,
  pipelineId: string,
  status: 'Wait' | 'Process' | 'Finish' | 'Error' | 'Stop',
  durationsMs: readonly (number | null)[],
): void {
  const db = ctx.dbs.status;
  for (const ms of durationsMs) {
    const stamp = stampAt(day, 0);
    const requestId = createRequest(db, {
      pipelineId,
      filename: 'seed.csv',
      args: {},
      day,
      hour: '10',
      stamp,
    });
    dequeue(db, requestId);
    setStatus(db, { requestId, day }, { status, stage: 'Joint', stamp });
    if (ms !== null)
      setRequestTimes(db, requestId, { beginTime: stamp, endTime: stampAt(day, ms) });
  }
}

const signIn = (server: TestService, userName: string) => signInAs(server, userName, PASSWORD);

async function get(
  server: TestService,
  path: string,
  sessionId: string,
): Promise<{ status: number; code: number; message: string; data: Record<string, unknown> }> {
  const response = await server.fetch(path, { headers: { 'X-As-SessionId': sessionId } });
  const body = (await response.json()) as {
    result: { code?: number; message?: string; data?: Record<string, unknown> };
  };
  return {
    status: response.status,
    code: body.result.code ?? 0,
    message: body.result.message ?? '',
    data: body.result.data ?? {},
  };
}

describe('the fleet view and the trends', () => {
  let tokyo: VendorService;
  let pacific: VendorService;
  let server: TestService;
  let ctx: ServiceContext;
  let admin: string;
  let today: string;

  const fleet = async (session = admin): Promise<Map<string, FleetService>> => {
    const answer = await get(server, '/mcapi/fleet', session);
    expect(answer.status).toBe(200);
    return new Map(decodeFleet(answer.data).services.map((s) => [s.id, s]));
  };
  const trends = async (query: string): Promise<Trends> => {
    const answer = await get(server, `/mcapi/trends?${query}`, admin);
    expect(answer.status, answer.message).toBe(200);
    return decodeTrends(answer.data);
  };

  beforeAll(async () => {
    tokyo = await startVendorService({ variant: VENDOR_VARIANTS.kanto });
    pacific = await startVendorService({ variant: VENDOR_VARIANTS.pacific });
    server = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'fleet-'))),
      services: [
        {
          id: 'tokyo',
          name: 'Tokyo prod',
          url: tokyo.url,
          apiKey: tokyo.apiKey,
          label: 'production',
          color: 'red',
          zone: 'Asia/Tokyo',
          statuses: {
            failed: ['Abort'],
            waiting: ['Wait'],
            running: ['Running'],
            final: ['Finish', 'Cancel'],
          },
        },
        { id: 'pacific', name: 'Pacific', url: pacific.url, apiKey: pacific.apiKey },
        { id: 'local', name: 'Embedded', embedded: true },
      ],
      pollScheduled: false,
      adminPassword: PASSWORD,
    });
    ctx = server.app.context;
    await addUser(ctx.shared, 'vera', PASSWORD, 'viewer', 'now');
    await grantRole(ctx.shared, 'vera', 'tokyo', 'operator');
    admin = await signIn(server, 'admin');
    today = ctx.time.day(ctx.clock.now());

    // Tokyo: 5 done, 3 failed (Abort), 2 running, 4 waiting (its Archive is suspended).
    tokyo.addRequests('pl_1', 5);
    tokyo.addRequests('pl_2', 3, 'broken.csv', 'failed');
    tokyo.addRequests('pl_1', 2, 'slow.csv', 'waiting');
    tokyo.advance();
    tokyo.addRequests('pl_7', 4, 'held.csv', 'waiting');
    // Pacific, on interfaces.md's words: 6 done, 1 Error, 2 in its own Queued (no class).
    pacific.addRequests('pl_1', 6);
    pacific.addRequests('pl_2', 1, 'broken.csv', 'failed');
    pacific.addRequests('pl_7', 2, 'held.csv', 'waiting');
    for (const poller of ctx.services.pollers()) await poller.pollNow();

    const index = ctx.services.route('tokyo')?.upstream?.poller?.index;
    if (!index) throw new Error('no index');
    const tokyoToday = (await index.state('tokyo')).today as string;
    const yesterday = shiftDay(tokyoToday, -1);
    // Yesterday as a poller would have filed it: four requests, three of whose ends it learnt.
    const listed = [1, 2, 3, 4].map((n) => ({
      requestId: `pl_9-${yesterday}_08-00000${n}`,
      pipelineId: 'pl_9',
      name: 'Ledger',
      status: n === 4 ? 'Abort' : 'Finish',
      stage: 'Joint',
      beginDate: `${iso(yesterday)} 08:00:0${n}`,
    }));
    await index.ingest('tokyo', yesterday, listed, false, Date.now());
    await index.markDay('tokyo', yesterday, true);
    // The vendor's EndTime in any of its forms: dashes, slashes, a T and a zone.
    for (const [n, end] of [
      [1, `${iso(yesterday)} 08:00:11`],
      [2, `${iso(yesterday).replaceAll('-', '/')} 08:00:42`],
      [3, `${iso(yesterday)}T08:01:03 JST`],
    ] as const)
      await index.settle(
        'tokyo',
        `pl_9-${yesterday}_08-00000${n}`,
        { status: 'Finish', stage: 'Joint', endTime: end },
        Date.now(),
      );

    // The embedded service's today: pl_1 4 Finish, 2 Error, 1 Wait, 1 Process, 1 Stop.
    seedLocal(ctx, today, 'pl_1', 'Finish', [1000, 2000, 3000, 4000]);
    seedLocal(ctx, today, 'pl_1', 'Error', [500, 600]);
    seedLocal(ctx, today, 'pl_1', 'Wait', [null]);
    seedLocal(ctx, today, 'pl_1', 'Process', [null]);
    seedLocal(ctx, today, 'pl_1', 'Stop', [700]);
    // pl_2 fails one in ten for five days, each in about a second; today half, in five.
    for (let back = 1; back <= 5; back++) {
      const day = shiftDay(today, -back);
      seedLocal(ctx, day, 'pl_2', 'Finish', [900, 950, 1000, 1000, 1000, 1050, 1100, 1000, 1000]);
      seedLocal(ctx, day, 'pl_2', 'Error', [1000]);
    }
    seedLocal(ctx, today, 'pl_2', 'Finish', [5000, 5000, 5000]);
    seedLocal(ctx, today, 'pl_2', 'Error', [5000, 5000, 5000]);
  });

  afterAll(async () => {
    await server?.close();
    await tokyo?.close();
    await pacific?.close();
  });

  it("counts each service's today exactly per class, in its own words and day", async () => {
    const services = await fleet();
    expect([...services.keys()]).toEqual(['tokyo', 'pacific', 'local']);
    const t = services.get('tokyo') as FleetService;
    expect(t.counts).toEqual({ failed: 3, running: 2, waiting: 4, done: 5, other: 0, total: 14 });
    expect(t.words).toEqual([
      { status: 'Abort', class: 'failed', count: 3 },
      { status: 'Running', class: 'running', count: 2 },
      { status: 'Wait', class: 'waiting', count: 4 },
      { status: 'Finish', class: 'done', count: 5 },
    ]);
    expect(t).toMatchObject({ name: 'Tokyo prod', label: 'production', color: 'red' });
    expect(t.timeZone).toBe('Asia/Tokyo');
    // Tokyo's own day, whatever this machine's.
    expect(t.day).toBe(
      new Date(Date.now() + 9 * 3600_000).toISOString().slice(0, 10).replaceAll('-', ''),
    );
    expect(t.dayState).toBe('complete');

    const p = services.get('pacific') as FleetService;
    expect(p.counts).toEqual({ failed: 1, running: 0, waiting: 0, done: 6, other: 2, total: 9 });
    expect(p.words.find((w) => w.status === 'Queued')).toEqual({
      status: 'Queued',
      class: 'other',
      count: 2,
    });

    const local = services.get('local') as FleetService;
    expect(local.counts).toEqual({
      failed: 2 + 3,
      running: 1,
      waiting: 1,
      done: 5 + 3,
      other: 0,
      total: 15,
    });
    expect(local).toMatchObject({ embedded: true, day: today, dayState: 'live', indexedAt: '' });
  });

  it('states reachability and the index freshness, and keeps the counts of a stopped service', async () => {
    const before = await fleet();
    const indexedAt = (before.get('pacific') as FleetService).indexedAt;
    expect(Date.parse(indexedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(before.get('pacific')?.reachable).toBe(true);
    expect(before.get('tokyo')?.indexedAt).toBe(
      ctx.services.list().find((s) => s.id === 'tokyo')?.indexedAt,
    );
    await pacific.close();
    await ctx.services.checkAll();
    const after = (await fleet()).get('pacific') as FleetService;
    expect(after.reachable).toBe(false);
    expect(after.message).not.toBe('');
    expect(Date.parse(after.since)).toBeGreaterThanOrEqual(Date.parse(indexedAt));
    // What the index knew, as of its last good round: nothing was asked of the upstream.
    expect(after.counts.total).toBe(9);
    expect(after.indexedAt).toBe(indexedAt);
  });

  it('gives each person their own role per service, and answers no one signed out', async () => {
    const vera = await signIn(server, 'vera');
    const services = await fleet(vera);
    expect([...services.values()].map((s) => [s.id, s.role])).toEqual([
      ['tokyo', 'operator'],
      ['pacific', 'viewer'],
      ['local', 'viewer'],
    ]);
    const anonymous = await server.fetch('/mcapi/fleet');
    expect(anonymous.status).toBe(401);
    const ended = await get(server, '/mcapi/fleet', 'no-such-session');
    expect(ended.status).toBe(401);
  });

  it('draws a pipeline of the embedded service exactly: counts by outcome, p50 and p95 per day', async () => {
    const t = await trends('service=local&pipelineid=pl_1');
    expect(t.days).toBe(30);
    expect(t.points).toHaveLength(30);
    expect(t.points.at(-1)?.day).toBe(today);
    expect(t.points[0]?.day).toBe(shiftDay(today, -29));
    const last = t.points.at(-1);
    expect(last?.counts).toEqual({
      failed: 2,
      running: 1,
      waiting: 1,
      done: 5,
      other: 0,
      total: 9,
    });
    expect(last?.failureRate).toBeCloseTo(2 / 7);
    const durations = [1000, 2000, 3000, 4000, 500, 600, 700];
    expect(last?.durations).toBe(7);
    expect(last?.p50Ms).toBe(nearestRank(durations, 50));
    expect(last?.p95Ms).toBe(nearestRank(durations, 95));
    expect(t.name).toBe('Orders');
    expect(t.points[0]?.counts.total).toBe(0);
    expect(t.points[0]?.p95Ms).toBeNull();
    expect(t.jumps).toEqual({ failureRate: false, p95: false });
  });

  it('marks a pipeline whose failure rate and p95 jump today, on its trend and on the fleet', async () => {
    const t = await trends('service=local&pipelineid=pl_2&days=6');
    expect(t.points.map((p) => p.counts.failed)).toEqual([1, 1, 1, 1, 1, 3]);
    expect(t.points.map((p) => p.p95Ms)).toEqual([1100, 1100, 1100, 1100, 1100, 5000]);
    expect(t.points[0]?.p50Ms).toBe(
      nearestRank([900, 950, 1000, 1000, 1000, 1050, 1100, 1000, 1000, 1000], 50),
    );
    expect(t.baseline).toEqual({ failureRate: 0.1, p95Ms: 1100 });
    expect(t.jumps).toEqual({ failureRate: true, p95: true });
    const local = (await fleet()).get('local') as FleetService;
    expect(local.jumps).toEqual([
      {
        pipelineId: 'pl_2',
        name: expect.any(String),
        kind: 'failureRate',
        today: 0.5,
        median: 0.1,
      },
      { pipelineId: 'pl_2', name: expect.any(String), kind: 'p95', today: 5000, median: 1100 },
    ]);
    expect(local.jumps.map((j) => j.pipelineId)).not.toContain('pl_1');
  });

  it("draws an upstream's pipeline from the index: days it watched, and durations it learnt", async () => {
    const index = ctx.services.route('tokyo')?.upstream?.poller?.index;
    const tokyoToday = (await index?.state('tokyo'))?.today as string;
    const yesterday = shiftDay(tokyoToday, -1);
    const t = await trends('service=tokyo&pipelineid=pl_9&days=3');
    expect(t.today).toBe(tokyoToday);
    expect(t.name).toBe('Ledger');
    const [before, day, now] = t.points;
    expect(before?.watched).toBe(false);
    expect(day).toMatchObject({ day: yesterday, watched: true, durations: 3 });
    expect(day?.counts).toEqual({ failed: 1, running: 0, waiting: 0, done: 3, other: 0, total: 4 });
    // 10 s, 40 s and 60 s: nearest rank.
    expect(day?.p50Ms).toBe(40_000);
    expect(day?.p95Ms).toBe(60_000);
    expect(now?.counts.total).toBe(0);
    const pl2 = await trends('service=tokyo&pipelineid=pl_2&days=1');
    expect(pl2.points[0]?.counts.failed).toBe(3);
  });

  it('refuses bad days, services and pipelines with a message, never a 500', async () => {
    const cases: [string, number, RegExp][] = [
      ['service=local&pipelineid=pl_1&days=0', 400, /days must be a whole number from 1 to 31/],
      ['service=local&pipelineid=pl_1&days=32', 400, /days must be a whole number from 1 to 31/],
      ['service=local&pipelineid=pl_1&days=abc', 400, /days/],
      ['service=local&pipelineid=pl_1&days=1.5', 400, /days/],
      ['service=local&pipelineid=pl_1&days=1&days=2', 400, /days is given more than once/],
      ['service=nowhere&pipelineid=pl_1', 400, /service names no service here: "nowhere"/],
      ["service=local'--&pipelineid=pl_1", 400, /service names no service here/],
      ['service=local', 400, /pipelineid is required/],
      ['service=local&pipelineid=pl_x', 400, /pipelineid must be a pipeline id/],
      ['service=local&pipelineid=pl_99', 404, /no pipeline pl_99/],
      // An upstream's ids are its own (spaces and all), but one line of text.
      ['service=tokyo&pipelineid=a%0Ab', 400, /pipelineid holds the control character U\+000A/],
    ];
    for (const [query, status, message] of cases) {
      const answer = await get(server, `/mcapi/trends?${query}`, admin);
      expect(answer.status, query).toBe(status);
      expect(answer.message, query).toMatch(message);
    }
  });
});
