import { afterEach, describe, expect, it } from 'vitest';
import { decodeServices } from '../../kit/index.ts';
import { startGatewayBefore } from '../testing/gateway-before.ts';
import { signIn } from '../testing/service.ts';
import { addUser } from '../auth/users.ts';
import type { VendorBehaviour } from '../testing/vendor/behaviour.ts';

// Facts per list (issue 37, item 2): what one list's answers showed of its paging is kept
// with that list and its evidence, never applied to another list, and dropped when an
// answer of the list contradicts it.

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function gatewayBefore(behaviour: Partial<VendorBehaviour>) {
  const started = await startGatewayBefore({ vendor: { behaviour } });
  open.push(started.close);
  return started;
}

interface TablePage {
  Result: { Info: { Total?: number; Bound?: number; Count: number }; Record: unknown[] };
}

describe('facts per list', () => {
  it('a cap learnt on the day’s list does not cut a table', async () => {
    // Its day's list is cut at 40 rows whatever pagesize says and cannot be paged; its tables
    // honour pagesize up to 1,000.
    const { vendor, gateway, poller } = await gatewayBefore({
      pagesize: { cap: 40 },
      capped: 'requests',
      index: false,
      next: 'always-1',
      total: false,
    });
    vendor.addRequests('pl_1', 30);
    vendor.addRequests('pl_2', 30);
    vendor.addTableRows('SALES', 700);
    await poller.pollNow();
    const upstream = gateway.app.context.services.route('v')?.upstream;
    // The day's list was seen cut (its pipelines' lists hold more): its cap, with why.
    expect(upstream?.pagingOf('requestlist').cap).toBe(40);

    const table = await gateway.keyed('/pipelineapi/actiondb/json?tablename=SALES&pagesize=1000');
    expect(table.status).toBe(200);
    const { Info } = ((await table.json()) as TablePage).Result;
    const rows = vendor.tableRows('SALES');
    expect(Info).toMatchObject({ Total: rows, Count: rows });
    expect(Info.Bound).toBeUndefined();
    expect(upstream?.pagingOf('actiondb tablename=SALES').cap).toBeNull();

    // The Services page tells each list's facts and the answer that showed them.
    await addUser(gateway.app.context.shared, 'ann', 'ann-password-0123', 'viewer', 'now');
    const sessionId = await signIn(gateway, 'ann', 'ann-password-0123');
    const services = await gateway.fetch('/mcapi/services', {
      headers: { 'X-As-SessionId': sessionId },
    });
    const [service] = decodeServices(
      ((await services.json()) as { result: { data: unknown } }).result.data,
    );
    expect(service?.capabilities?.cap).toBe(40);
    expect(service?.capabilities?.lists).toContainEqual(
      expect.objectContaining({
        list: 'requestlist',
        cap: 40,
        evidence: expect.stringContaining('pipelines'),
      }),
    );
    expect(
      service?.capabilities?.lists?.find((l) => l.list === 'actiondb tablename=SALES')?.cap ?? null,
    ).toBeNull();
  });

  it('an answer with more rows than a list’s cap drops the cap and reads the list again', async () => {
    const { vendor, gateway, poller } = await gatewayBefore({ index: true, next: 'stated' });
    vendor.addTableRows('SALES', 300);
    await poller.pollNow();
    const upstream = gateway.app.context.services.route('v')?.upstream;
    // A cap thought from an earlier answer (a table of exactly that many rows, say).
    upstream?.learnList('actiondb tablename=SALES', { cap: 50 }, 'a table of 50 rows');
    const table = await gateway.keyed('/pipelineapi/actiondb/json?tablename=SALES&pagesize=1000');
    const { Info } = ((await table.json()) as TablePage).Result;
    expect(Info.Total).toBe(vendor.tableRows('SALES'));
    expect(upstream?.pagingOf('actiondb tablename=SALES').cap).toBeNull();
    expect(
      upstream?.learntLists().find((l) => l.list === 'actiondb tablename=SALES')?.evidence,
    ).toMatch(/more than the cap of 50/);
  });
});
