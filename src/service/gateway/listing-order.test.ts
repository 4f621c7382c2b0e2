import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.ts';
import { startGatewayBefore } from '../testing/gateway-before.ts';
import type { VendorBehaviour } from '../testing/vendor/behaviour.ts';

// A vendor that cuts its answers at 250 rows without saying so and cannot be paged, whose
// day grows past 250 after the hourly probe. Newest first, its oldest fall off the end;
// oldest first (interfaces.md's example is newest first, and says no more), its newest never
// come. Either way the count read stops at 250: the gateway took it for the whole day, until
// the next hourly probe, and counted it exact (350 or 450 of 600).

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

describe.each([
  { order: 'oldest', next: 'always-1' },
  { order: 'oldest', next: 'absent' },
  { order: 'oldest', next: 'stated' },
  { order: 'newest', next: 'always-1' },
  { order: 'newest', next: 'absent' },
] as const)('a vendor listing $order first, cut at 250, next $next', ({ order, ...paging }) => {
  it('never has its day called complete short of its requests, once it grows past the cut', async () => {
    const behaviour: Partial<VendorBehaviour> = {
      order,
      pagesize: { cap: 250 },
      index: false,
      ...paging,
    };
    // Noon in Tokyo; each request begins a second after the one before, as a day's do.
    const clock = new ManualClock(Date.UTC(2026, 6, 1, 3, 0));
    let tick = 0;
    const { vendor, gateway, poller, close } = await startGatewayBefore({
      vendor: { behaviour, now: () => new Date(clock.now().getTime() - 3_600_000 + 1000 * tick++) },
      gateway: { clock },
    });
    open.push(close);
    // A small day at the first round (when the probe checks the pipelines' lists, hourly).
    vendor.addRequests('pl_1', 100);
    await poller.pollNow();
    vendor.addRequests('pl_1', 300);
    vendor.addRequests('pl_2', 200);
    // Past the cut: the count read stops at 250, then stays there.
    await poller.pollNow();
    await poller.pollNow();
    const day = (await poller.index.state('v')).today as string;
    const stats = await gateway.keyed(`/pipelineapi/requeststats/json?date=${day}`);
    const text = await stats.text();
    if (stats.status === 200) expect(text).toContain('"Total":600');
    else {
      expect(stats.status).toBe(404);
      expect(text).toContain('missed some');
    }
  });
});
