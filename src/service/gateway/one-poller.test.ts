import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseHolder } from '../db/leases.ts';
import { startPostgres, type PostgresCluster } from '../testing/postgres.ts';
import { eventually, startService, type TestService } from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';
import { LEASE_TTL_MS } from './poller-lease.ts';
import type { IndexPoller } from './poller.ts';

// One poller per upstream across the gateways of one PostgreSQL (contract section 11): two
// gateways in front of one vendor poll it once between them, both answer the day from the
// shared index, and when the one polling dies the other takes over within 15 s and goes on
// from where the index was.

let cluster: PostgresCluster;
let vendor: VendorService;
let one: TestService;
let two: TestService;

const pollerOf = (gateway: TestService): IndexPoller => {
  const poller = gateway.app.context.services.route('prod')?.upstream?.poller;
  if (!poller) throw new Error('the gateway keeps no index of its upstream');
  return poller;
};

interface Listed {
  RequestList: { Info: { Total: number; Date: string } };
}

interface Stats {
  RequestStats: { Total: number; Date: string };
}

async function answers(gateway: TestService, day: string): Promise<[number, number]> {
  const list = await gateway.keyed(`/services/prod/pipelineapi/requestlist/json?date=${day}`);
  expect(list.status).toBe(200);
  const stats = await gateway.keyed(`/services/prod/pipelineapi/requeststats/json?date=${day}`);
  // An upstream's exact counts come from the index only: a 200 is the index's answer.
  expect(stats.status).toBe(200);
  return [
    ((await list.json()) as Listed).RequestList.Info.Total,
    ((await stats.json()) as Stats).RequestStats.Total,
  ];
}

beforeAll(async () => {
  cluster = await startPostgres();
  vendor = await startVendorService({});
  vendor.addRequests('pl_1', 40);
  vendor.addRequests('pl_2', 25, 'broken.csv', 'failed');
  const databaseUrl = await cluster.freshDatabase();
  const services = [
    { id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey, pollSeconds: 1 },
  ];
  one = await startService({ services, databaseUrl });
  two = await startService({ services, databaseUrl });
}, 60_000);

afterAll(async () => {
  await one.close();
  await two.close();
  await vendor.close();
  await cluster.remove();
});

describe('two gateways on one PostgreSQL in front of one vendor', () => {
  let holder: IndexPoller;
  let other: IndexPoller;
  let otherGateway: TestService;
  let day: string;

  it('poll it with one poller, under the lease that names it', async () => {
    const pollers = [pollerOf(one), pollerOf(two)];
    await eventually(
      () => (pollers.some((p) => p.state().lastRoundMs !== null) ? true : undefined),
      'a round of one of the pollers',
    );
    // A few rounds more at 1 s: the other never runs one.
    const requestlists = vendor.calls().requestlist ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect((vendor.calls().requestlist ?? 0) - requestlists).toBeGreaterThanOrEqual(2);
    const polling = pollers.filter((p) => p.polling);
    expect(polling).toHaveLength(1);
    holder = polling[0] as IndexPoller;
    other = pollers.find((p) => p !== holder) as IndexPoller;
    otherGateway = holder === pollers[0] ? two : one;
    expect(holder.state().lastRoundMs).not.toBeNull();
    expect(other.state().lastRoundMs).toBeNull();
    const sql = one.app.store.sql;
    expect(await leaseHolder(sql, 'poller:prod', Date.now())).toBe(holder.index.holder);
    expect(holder.index.holder).not.toBe(other.index.holder);
  }, 30_000);

  it('both answer the day from the shared index, and both say when it was indexed', async () => {
    day = (await holder.index.state('prod')).today as string;
    expect(day).toMatch(/^\d{8}$/);
    expect(await answers(one, day)).toEqual([65, 65]);
    expect(await answers(two, day)).toEqual([65, 65]);
    // The gateway that does not poll reads the index's state from the store (each renewal).
    const indexedAt = await eventually(
      () => otherGateway.app.context.services.list()[0]?.indexedAt ?? undefined,
      'the state of the index on the gateway that does not poll',
    );
    expect(Date.parse(indexedAt)).toBeGreaterThan(0);
  }, 30_000);

  it('take over within 15 s of the holder dying, going on from where the index was', async () => {
    const oldest = async () => (await other.index.list('prod', day, {}, 0, 1_000)).rows.at(-1);
    const before = await oldest();
    expect(before).toBeDefined();
    // Dead as a killed process would be: no more rounds or renewals, the lease left to run out.
    holder.stop();
    await holder.settled();
    const died = Date.now();
    vendor.addRequests('pl_1', 10);
    await eventually(
      async () => {
        const [listed] = await answers(otherGateway, day);
        return listed === 75 ? true : undefined;
      },
      'the other gateway polling the vendor',
      20_000,
    );
    const tookMs = Date.now() - died;
    expect(tookMs).toBeLessThan(15_000);
    // Not before the dead holder's lease ran out.
    expect(tookMs).toBeGreaterThan(LEASE_TTL_MS - 4_000);
    expect(other.polling).toBe(true);
    expect(await leaseHolder(one.app.store.sql, 'poller:prod', Date.now())).toBe(
      other.index.holder,
    );
    // From where the index was: the day's first 65 were not taken in again as new.
    expect(await answers(one, day)).toEqual([75, 75]);
    expect(await oldest()).toEqual(before);
  }, 40_000);
});
