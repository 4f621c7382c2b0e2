import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import { addUser } from '../src/service/auth/users.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../src/service/testing/vendor/vendor-service.ts';
import { expect, OPERATOR, signIn, test as base } from './fixtures.ts';
import { perFile } from './per-file.ts';

// A vendor whose failures say Abort (its words: Wait, Running, Finish, Abort, Cancel), its
// status words configured: the overview counts Abort as failed, its badge is the failure
// colour, Retry all takes it, the row actions and the request page's buttons follow the
// words, and the Services page says them in plain words.

interface Kanto {
  readonly url: string;
  readonly app: App;
  readonly vendor: VendorService;
}

const kantoServer = perFile<Kanto>(async (use) => {
  const vendor = await startVendorService({
    variant: VENDOR_VARIANTS.kanto,
    apiKey: 'kanto-semantics-key-0123456789abcdef',
  });
  vendor.addRequests('pl_1', 3);
  vendor.addRequests('pl_2', 2, 'fail.csv', 'failed');
  vendor.addRequests('pl_1', 2, 'daily.csv', 'waiting');
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-semantics-'));
  const app = await buildApp({
    dataDir,
    demo: false,
    staticDir: DIST_DIR,
    loginLimit: { max: 10_000, timeWindow: 60_000 },
    accountLoginLimit: { max: 10_000, timeWindow: 3_600_000 },
    services: [
      {
        id: 'kanto',
        name: 'Kanto',
        url: vendor.url,
        apiKey: vendor.apiKey,
        pollSeconds: 1,
        statuses: {
          failed: ['Error', 'Abort'],
          waiting: ['Wait'],
          running: ['Running'],
          final: ['Finish', 'Cancel'],
          retryable: ['Error', 'Abort', 'Cancel'],
          cancellable: ['Wait', 'Running'],
        },
      },
    ],
  });
  await addUser(
    app.context.shared,
    OPERATOR.user,
    OPERATOR.password,
    'operator',
    new Date().toISOString(),
  );
  const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  await use({ url, app, vendor });
  await app.close();
  await vendor.close();
  rmSync(dataDir, { recursive: true, force: true });
});
const test = base.extend<{ kanto: Kanto }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  kanto: async ({}, use) => use(kantoServer()),
});

const idOf = (kanto: Kanto, status: string): string => {
  const found = kanto.vendor.requests().find((r) => r.status === status);
  expect(found, `a request in ${status}`).toBeDefined();
  return found?.requestId as string;
};

async function indexed(kanto: Kanto): Promise<void> {
  await expect
    .poll(() => kanto.app.context.services.list()[0]?.indexedAt ?? null, { timeout: 15_000 })
    .not.toBeNull();
}

test('the overview counts Abort as failed and lists it among the latest errors', async ({
  page,
  kanto,
}) => {
  await indexed(kanto);
  await signIn(page, kanto, OPERATOR, '/?service=kanto');
  await expect(page.getByTestId('error-count')).toHaveText('2 requests in Error or Abort');
  await expect(page.getByTestId('latest-errors').locator('li')).toHaveCount(2);
  await expect(page.getByTestId('latest-error-retry').first()).not.toHaveAttribute(
    'aria-disabled',
    'true',
  );
  // Counted as a failure, not among the "other states".
  await expect(page.getByTestId('other-states')).toHaveCount(0);
  await page.getByTestId('error-count').click();
  await expect(page).toHaveURL(/status=Error%2CAbort|status=Error,Abort/);
});

test('rows: Abort in the failure colour, Retry only where the words allow, Cancel only on what runs or waits', async ({
  page,
  kanto,
}) => {
  await indexed(kanto);
  const aborted = idOf(kanto, 'Abort');
  const finished = idOf(kanto, 'Finish');
  const waiting = idOf(kanto, 'Wait');
  await signIn(page, kanto, OPERATOR, '/requests?service=kanto&size=50');
  const row = (id: string) => page.locator(`tr[data-request="${id}"]`);
  await expect(row(aborted)).toBeVisible();
  const badge = (id: string, status: string) =>
    row(id).locator('span.rounded-full', { hasText: status });
  await expect(badge(aborted, 'Abort')).toHaveClass(/bg-red-50/);
  await expect(badge(finished, 'Finish')).toHaveClass(/bg-emerald-50/);

  const disabled = (id: string, name: 'Retry' | 'Cancel') =>
    expect(row(id).getByRole('button', { name: `${name} ${id}` })).toHaveAttribute(
      'aria-disabled',
      'true',
    );
  const enabled = (id: string, name: 'Retry' | 'Cancel') =>
    expect(row(id).getByRole('button', { name: `${name} ${id}` })).not.toHaveAttribute(
      'aria-disabled',
      'true',
    );
  await enabled(aborted, 'Retry');
  await disabled(aborted, 'Cancel');
  await disabled(finished, 'Retry');
  await disabled(finished, 'Cancel');
  await enabled(waiting, 'Cancel');
  await disabled(waiting, 'Retry');
  await expect(row(aborted).getByRole('button', { name: `Cancel ${aborted}` })).toHaveAttribute(
    'title',
    'A request in Abort has ended: there is nothing to cancel.',
  );

  // Retry all takes the service's failed words without a filter, and Abort alone with one.
  await expect(page.getByTestId('bulk-bar')).toContainText('Retry all requests in Error or Abort');
  await page.getByTestId('status-filter').locator('summary').click();
  await page.getByTestId('status-class-failed').check();
  await expect(page).toHaveURL(/status=Error%2CAbort/);
  await expect(page.getByTestId('range')).toHaveText('1–2 of 2');
  // The words this page showed before stay offered, unticked, while the filter hides them.
  const filter = page.getByTestId('status-filter');
  await expect(filter.getByRole('checkbox', { name: 'Wait', exact: true })).not.toBeChecked();
  await expect(filter.getByRole('checkbox', { name: 'Finish', exact: true })).toBeVisible();
  await filter.getByRole('checkbox', { name: 'Wait', exact: true }).check();
  await expect(page).toHaveURL(/status=Wait%2CError%2CAbort/);
  await expect(page.getByTestId('range')).toHaveText('1–4 of 4');

  await page.goto(`${kanto.url}/requests?service=kanto&status=Abort`);
  await expect(page.getByTestId('bulk-bar')).toContainText('Retry all 2 requests in Abort');
  await page
    .getByTestId('bulk-bar')
    .getByRole('button', { name: /^Retry all 2/ })
    .click();
  await expect(page.getByRole('dialog')).toContainText(
    'The service would retry exactly 2 requests',
  );
});

test("a finished request's page offers no Cancel as a primary button; a failed one's Retry is", async ({
  page,
  kanto,
}) => {
  await indexed(kanto);
  const finished = idOf(kanto, 'Finish');
  await signIn(page, kanto, OPERATOR, `/requests/${finished}?service=kanto`);
  await expect(page.getByRole('heading', { name: finished })).toBeVisible();
  const cancel = page.getByRole('button', { name: 'Cancel', exact: true });
  await expect(cancel).toHaveAttribute('aria-disabled', 'true');
  await expect(cancel).not.toHaveClass(/bg-red-700/);
  await expect(page.getByRole('button', { name: 'Retry', exact: true })).toHaveAttribute(
    'aria-disabled',
    'true',
  );

  const aborted = idOf(kanto, 'Abort');
  await page.goto(`${kanto.url}/requests/${aborted}?service=kanto`);
  const retry = page.getByRole('button', { name: 'Retry', exact: true });
  await expect(retry).toHaveClass(/bg-teal-700/);
  await expect(page.getByRole('button', { name: 'Cancel', exact: true })).toHaveAttribute(
    'aria-disabled',
    'true',
  );
  // The cancel text promises only what this service guarantees.
  const waiting = idOf(kanto, 'Wait');
  await page.goto(`${kanto.url}/requests/${waiting}?service=kanto`);
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(page.getByRole('dialog')).toContainText('what a cancel leaves behind is up to it');
  await expect(page.getByRole('dialog')).not.toContainText('half-written');
});

test('the Services page says what its words mean', async ({ page, kanto }) => {
  await signIn(page, kanto, OPERATOR, '/service-list?service=kanto');
  const card = page.getByTestId('status-words-kanto');
  await expect(card.locator('[data-class="failed"] dd')).toHaveText('Error and Abort');
  await expect(card.locator('[data-class="cancellable"] dd')).toHaveText('Wait and Running');
  await expect(card).toContainText("As this server's configuration says");
  await expect(card).toContainText('cannot promise that nothing stays half-written');
});
