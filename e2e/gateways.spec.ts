import pg from 'pg';
import { dayOfRequestId } from '../src/kit/wire.ts';
import {
  holdingLease,
  startGatewayChild,
  type ChildService,
} from '../src/service/testing/child.ts';
import {
  leaseHolderIn,
  startPostgres,
  type PostgresCluster,
} from '../src/service/testing/postgres.ts';
import {
  startVendorService,
  type VendorService,
} from '../src/service/testing/vendor/vendor-service.ts';
import { ADMIN, expect, signIn, test } from './fixtures.ts';
import { startNginx, stopNginx, type Proxy } from './nginx.ts';

/*
 * Two gateways on one PostgreSQL in front of one vendor, behind nginx (issue 28, as
 * docs/deploy/README.md sets them up): a person signed in on one acts on the other, and a
 * bulk job started from the dashboard goes on when the gateway running it is killed.
 */

const FAILED = 120;
/** The dashboard keeps the person's session here (src/dashboard/core/auth.ts). */
const AUTH_KEY = 'pipeline-dashboard.auth';

let cluster: PostgresCluster;
let vendor: VendorService;
let databaseUrl: string;
let gateways: ChildService[] = [];
let proxy: Proxy;

const gateway = (): Promise<ChildService> =>
  startGatewayChild({ upstream: vendor, databaseUrl, adminPassword: ADMIN.password });

async function auditCount(operation: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT COUNT(*)::int AS n FROM AUDIT WHERE OPERATION = $1',
      [operation],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  cluster = await startPostgres();
  databaseUrl = await cluster.freshDatabase();
  vendor = await startVendorService();
  vendor.addRequests('pl_2', FAILED, 'broken.csv', 'failed');
  gateways = [await gateway(), await gateway()];
  proxy = await startNginx(gateways.map((g) => g.url));
});

test.afterAll(async () => {
  await stopNginx(proxy);
  for (const g of gateways) if (g.process.exitCode === null) g.process.kill('SIGTERM');
  await vendor.close();
  await cluster.remove();
});

test('a person signed in on one gateway acts on the other', async ({ page, browser }) => {
  const [one, two] = gateways as [ChildService, ChildService];
  await signIn(page, { url: one.url }, ADMIN, '/pipelines');
  const auth = await page.evaluate((key) => sessionStorage.getItem(key), AUTH_KEY);
  expect(auth).toContain('sessionId');

  // The second gateway, another origin: the same session, as the shared store holds it.
  const other = await browser.newPage();
  await other.addInitScript(
    ({ key, value }) => {
      if (!sessionStorage.getItem(key)) sessionStorage.setItem(key, value);
    },
    { key: AUTH_KEY, value: auth as string },
  );
  await other.goto(`${two.url}/pipelines`);
  await expect(other.getByTestId('identity')).toContainText(ADMIN.user);
  const row = other.locator('tr[data-pipeline="pl_1"]');
  await row.getByRole('switch').click();
  await expect(row.getByText('Suspended')).toBeVisible();
  // The switch turns at once (optimistic); the vendor's pipeline once the call is through.
  await expect.poll(() => vendor.pipelines().find((p) => p.id === 'pl_1')?.runmode).toBe('stop');

  // The first gateway shows the change, and its audit holds the entry the second wrote
  // (once written: the audit follows the call's answer).
  await expect.poll(() => auditCount('suspend')).toBe(1);
  // Each gateway shares its upstream's pipeline list among its browsers for one poll interval
  // (a second here; gateway/poller.ts sharedCall), and only a change made through itself
  // drops it: a reload within that second of the first page's own read showed the list it
  // had just read (a CI run failed so). The next interval's read shows the change.
  await expect(async () => {
    await page.reload();
    await expect(page.locator('tr[data-pipeline="pl_1"]').getByText('Suspended')).toBeVisible({
      timeout: 3_000,
    });
  }).toPass({ timeout: 30_000 });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
  await expect(
    page.getByTestId('audit').locator('tr[data-operation="suspend"]').first(),
  ).toContainText(ADMIN.user);
  await other.close();
});

test('a bulk job started in the dashboard outlives the gateway running it', async ({ page }) => {
  test.setTimeout(180_000);
  const day = dayOfRequestId(vendor.requests()[0]?.requestId ?? '') as string;
  const shown = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}`;
  // The vendor's own word for a failed request (this one says Abort).
  const failed = vendor.variant.status.failed;
  await signIn(page, proxy, ADMIN, `/requests?date=${day}&pipeline=pl_2&status=${failed}`);
  const button = page.getByRole('button', {
    name: `Retry all ${FAILED} requests in ${failed} of pl_2 on ${shown}…`,
  });
  await expect(button).toBeVisible({ timeout: 30_000 });
  await button.click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(/^Reason/).fill('reader 7 is back');
  // Slow enough that the job is under way when its gateway dies.
  vendor.setDelay(40);
  await dialog.getByRole('button', { name: `Retry ${FAILED} requests` }).click();
  await expect
    .poll(() => vendor.calls().requestretry ?? 0, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(20);
  const holder = await leaseHolderIn(databaseUrl, 'bulk-job:1');
  const running = holdingLease(gateways, holder);
  expect(running, `the gateway holding ${holder}`).toBeDefined();
  running?.process.kill('SIGKILL');
  vendor.setDelay(0);

  // The dialog goes on polling through nginx, which passes over the dead gateway.
  await expect(dialog.getByTestId('bulk-progress')).toHaveText(`${FAILED} of ${FAILED} done`, {
    timeout: 120_000,
  });
  await expect(dialog.getByTestId('bulk-outcomes')).toHaveText(
    `${FAILED} accepted, 0 refused, 0 failed — finished.`,
  );
  // No request was retried twice at the vendor, whichever gateway called it.
  expect(vendor.carriedOut().requestretry).toBe(FAILED);
});
