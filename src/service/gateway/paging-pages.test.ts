import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayBefore } from '../testing/gateway-before.ts';
import type { VendorBehaviour } from '../testing/vendor/behaviour.ts';

// A vendor whose `index` is a page number, not a row offset (interfaces.md shows no index
// parameter at all, and Info's Index 0 reads as well as the first page). Asked for index
// 1000 after a first page of 1000, it answers page 1000: nothing. The gateway took that for
// the end of the day and called 1,000 requests of 2,500 exact.

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function gatewayBefore(behaviour: Partial<VendorBehaviour>) {
  const started = await startGatewayBefore({ vendor: { behaviour } });
  open.push(started.close);
  return started;
}

async function json(response: Response): Promise<{ status: number; text: string; body: unknown }> {
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as unknown };
}

describe.each([
  { next: 'stated', total: false },
  { next: 'always-1', total: false },
  { next: 'absent', total: false },
  { next: 'stated', total: true },
  // Cut at 250 rows whatever pagesize says, and telling nothing: a page of 250 is past the
  // day only from 62,500 rows on, so a read by rows would skip rows instead of ending.
  { next: 'absent', total: false, pagesize: { cap: 250 } },
] as const)('a vendor whose index is a page number, next $next, total $total', (paging) => {
  it('has its whole day counted, or says it could not', async () => {
    const { vendor, gateway, poller } = await gatewayBefore({ index: 'pages', ...paging });
    // Fewer than the probe needs to tell pages from rows at start: learnt while reading.
    vendor.addRequests('pl_1', 1);
    await poller.pollNow();
    vendor.addRequests('pl_1', 1500);
    vendor.addRequests('pl_2', 999);
    await poller.pollNow();
    const day = (await poller.index.state('v')).today as string;

    const stats = await json(await gateway.keyed(`/pipelineapi/requeststats/json?date=${day}`));
    expect(stats.status).toBe(200);
    expect((stats.body as { RequestStats: { Total: number } }).RequestStats.Total).toBe(2500);
    expect(await poller.dayState(day)).toBe('complete');
    expect(gateway.app.context.services.list()[0]?.capabilities?.index).toBe('pages');

    // A table of more rows than one answer: every row read, none twice.
    const table = await json(
      await gateway.keyed(`/pipelineapi/statusdb/json?tablename=STATUS${day}&pagesize=1`),
    );
    expect(table.status).toBe(200);
    expect((table.body as { Result: { Info: { Total: number } } }).Result.Info.Total).toBe(2500);
  });
});

it('learns pages from the probe when the day already tells them apart', async () => {
  const { vendor, gateway, poller } = await gatewayBefore({ index: 'pages', next: 'absent' });
  vendor.addRequests('pl_1', 5);
  await poller.pollNow();
  expect(gateway.app.context.services.list()[0]?.capabilities?.index).toBe('pages');
  // A vendor taking index as rows is still told so.
  const rows = await gatewayBefore({ index: true, next: 'absent' });
  rows.vendor.addRequests('pl_1', 5);
  await rows.poller.pollNow();
  expect(rows.gateway.app.context.services.list()[0]?.capabilities?.index).toBe('honoured');
});
