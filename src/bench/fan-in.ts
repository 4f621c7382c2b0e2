import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { DIST_DIR } from '../service/app.ts';
import { startChild } from '../service/testing/child.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../service/testing/chromium.ts';
import { startVendorService } from '../service/testing/vendor/vendor-service.ts';
import { withApiKey } from './dashboard.ts';
import { BENCH_KEY } from './seed.ts';

// Issue 14's fan-in goal: any number of open dashboards costs an upstream the same as one.
// A gateway (its own process, as `npm start -- --upstream` runs it) stands in front of the
// vendor-like double; Chromium keeps N overview pages open on it for a while, and the double
// counts every call it answers.

export interface FanInResult {
  readonly seconds: number;
  /** Upstream calls per minute with this many open overview pages. */
  readonly perMinute: ReadonlyMap<number, number>;
  /** Calls to the gateway per minute from those pages (the load the gateway absorbs). */
  readonly gatewayPerMinute: ReadonlyMap<number, number>;
}

export async function openOverviews(
  browser: Browser,
  url: string,
  count: number,
  onGatewayCall: () => void,
): Promise<() => Promise<void>> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await withApiKey(context, BENCH_KEY);
  context.on('request', (request) => {
    if (new URL(request.url()).pathname.includes('/pipelineapi/')) onGatewayCall();
  });
  for (let i = 0; i < count; i++) {
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await page.getByTestId('day-total').waitFor();
  }
  return () => context.close();
}

/** Upstream calls per minute with 1 and with 5 open overviews, each kept open `seconds`. */
export async function benchFanIn(seconds: number): Promise<FanInResult> {
  if (!existsSync(join(DIST_DIR, 'index.html')))
    throw new Error('build the dashboard first: npm run build');
  const vendor = await startVendorService();
  vendor.addRequests('pl_1', 300);
  vendor.addRequests('pl_2', 40, 'broken.csv', 'failed');
  vendor.addRequests('pl_2', 10, 'late.csv', 'waiting');
  const folder = mkdtempSync(join(tmpdir(), 'bench-fan-in-'));
  const gateway = await startChild([
    '--data',
    join(folder, 'data'),
    '--api-key',
    BENCH_KEY,
    '--upstream',
    vendor.url,
    '--upstream-key',
    vendor.apiKey,
  ]);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const total = () => Object.values(vendor.calls()).reduce((sum, n) => sum + n, 0);
  const perMinute = new Map<number, number>();
  const gatewayPerMinute = new Map<number, number>();
  try {
    for (const pages of [1, 5]) {
      let gatewayCalls = 0;
      const close = await openOverviews(browser, gateway.url, pages, () => gatewayCalls++);
      // Counted from when every page shows its counts, over the same window for each N.
      const before = total();
      gatewayCalls = 0;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      perMinute.set(pages, ((total() - before) * 60) / seconds);
      gatewayPerMinute.set(pages, (gatewayCalls * 60) / seconds);
      await close();
    }
  } finally {
    await browser.close();
    gateway.process.kill('SIGTERM');
    await gateway.exited;
    await vendor.close();
    rmSync(folder, { recursive: true, force: true });
  }
  return { seconds, perMinute, gatewayPerMinute };
}
