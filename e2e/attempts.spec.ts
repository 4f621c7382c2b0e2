import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../src/service/testing/vendor/vendor-service.ts';
import { axeViolations } from './axe.ts';
import { ADMIN, expect, settle, signIn, test } from './fixtures.ts';
import { perFile } from './per-file.ts';

// Issue 25, item 4: a request's attempts on its page, like Airflow's tries. After a retry
// that succeeds, the first failure's words are still readable, with who retried it and
// when (with the zone): on the embedded service, and behind the gateway for a vendor that
// rewrites its log on retry.

const CUSTOMERS = 'id,name,mail,country\n7,Ada,ada@example.com,UK\n';
// An instant with its zone, as the dashboard writes one (English: 12-hour clock).
const INSTANT = /\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}( [AP]M)? \S+/;

/** Axe's findings on the page as shown, in both themes, one line per failing node. */
async function axeBothThemes(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    found.push(...(await axeViolations(page, colorScheme)));
  }
  return found;
}

/** Retries the request shown from its page and waits until the dialog says it ended so. */
async function retryFromItsPage(page: Page, ended: string, whileFollowing?: () => Promise<void>) {
  const retry = page.getByRole('button', { name: 'Retry', exact: true });
  await retry.click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog).toContainText('✓ accepted', { timeout: 15_000 });
  await whileFollowing?.();
  await expect(dialog.getByTestId('action-outcome')).toHaveText(ended, { timeout: 30_000 });
  // Done, the dialog says what happened rather than still asking.
  await expect(dialog.getByRole('heading', { level: 2 })).toHaveText(/^Retried/);
  await expect(dialog).not.toContainText('Retry this request');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
}

test('a retried request of the embedded service still shows why attempt 1 failed, and who retried it when', async ({
  page,
  service,
}) => {
  test.setTimeout(90_000);
  // pl_3 fails in its Sensor: its input file is not in the inbox.
  const { requestId } = await service.client.exec('pl_3', 'attempts-a.csv');
  const id = requestId as string;
  await settle(service);
  await signIn(page, service, ADMIN, `/requests/${id}`);
  const attempts = page.getByTestId('attempts');
  await expect(attempts.getByTestId('attempt')).toHaveCount(1);

  writeFileSync(join(service.inbox, 'attempts-a.csv'), CUSTOMERS);
  await retryFromItsPage(page, 'Finish');

  // The summary has moved on; attempt 1 keeps its failure, attempt 2 says who retried it.
  await expect(page.getByTestId('failure')).toHaveCount(0);
  await expect(attempts.getByTestId('attempt')).toHaveCount(2, { timeout: 10_000 });
  const second = attempts.locator('[data-attempt="2"]');
  const first = attempts.locator('[data-attempt="1"]');
  await expect(second).toContainText('Attempt 2 (latest)');
  await expect(second).toContainText('Finish', { timeout: 10_000 });
  const actor = second.getByTestId('attempt-actor');
  await expect(actor).toContainText(/^Retried by admin at /);
  await expect(actor).toContainText(INSTANT);
  await expect(actor.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
  await expect(first).toContainText('Error');
  await expect(first.getByTestId('attempt-message')).toHaveText(
    'Input file attempts-a.csv was not found in the inbox or cannot be read.',
  );
  // Its last log lines at the failure, each time with the service's zone.
  await first.getByText(/^Last application-log lines at the failure/).click();
  await expect(first.getByTestId('attempt-log')).toContainText('attempts-a.csv was not found');
  await expect(first.getByTestId('attempt-log').locator('time').first()).toHaveText(
    /^\d{1,2}:\d{2}:\d{2}( [AP]M)? \S+/,
  );

  expect(await axeBothThemes(page)).toEqual([]);
});

interface VendorGateway {
  readonly url: string;
  readonly app: App;
  readonly vendor: VendorService;
  /** A vendor that answers a retry OK and takes it up only at its next step (a job queue). */
  readonly queued: VendorService;
  /** A vendor whose retry is a new request, named only in the retry's answer. */
  readonly renewed: VendorService;
}

const variant = VENDOR_VARIANTS.kanto;

const vendorGatewayServer = perFile<VendorGateway>(async (use) => {
  // A vendor that starts its log again on retry: the first failure's words are gone
  // from it once the request is retried.
  const vendor = await startVendorService({
    variant,
    apiKey: 'rewrite-upstream-key-0123456789abcdef',
    behaviour: { retryLog: 'rewritten' },
  });
  const queued = await startVendorService({
    variant,
    apiKey: 'queued-upstream-key-0123456789abcdef',
    // Its failures' reasons are in its status table alone, not in its logs.
    behaviour: { retryStart: 'queued', failureLog: 'none' },
  });
  const renewed = await startVendorService({
    variant,
    apiKey: 'renewed-upstream-key-0123456789abcdef',
    behaviour: { retryStart: 'new-request' },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-attempts-'));
  const app = await buildApp({
    dataDir,
    demo: false,
    adminPassword: ADMIN.password,
    staticDir: DIST_DIR,
    services: [
      {
        id: 'vendor',
        name: 'Vendor',
        url: vendor.url,
        apiKey: vendor.apiKey,
        failedStatuses: [variant.status.failed],
        pollSeconds: 1,
      },
      {
        id: 'queued',
        name: 'Queued',
        url: queued.url,
        apiKey: queued.apiKey,
        failedStatuses: [variant.status.failed],
        pollSeconds: 1,
      },
      {
        id: 'renewed',
        name: 'Renewed',
        url: renewed.url,
        apiKey: renewed.apiKey,
        failedStatuses: [variant.status.failed],
        pollSeconds: 1,
      },
    ],
    loginLimit: { max: 10_000, timeWindow: 60_000 },
    accountLoginLimit: { max: 10_000, timeWindow: 3_600_000 },
  });
  const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  await use({ url, app, vendor, queued, renewed });
  await app.close();
  await vendor.close();
  await queued.close();
  await renewed.close();
  rmSync(dataDir, { recursive: true, force: true });
});
const gatewayTest = test.extend<{ vendorGateway: VendorGateway }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  vendorGateway: async ({}, use) => use(vendorGatewayServer()),
});

gatewayTest(
  'behind the gateway, a vendor that rewrites its log on retry: the first failure stays readable after the retry',
  async ({ page, vendorGateway }) => {
    test.setTimeout(90_000);
    const { app, vendor } = vendorGateway;
    const index = app.context.services.route('vendor')?.upstream?.poller?.index;
    if (!index) throw new Error('the gateway keeps no index of its upstream');
    vendor.addRequests('pl_1', 1, 'fail-0601.csv', 'waiting');
    const id = vendor.requests().find((r) => r.filename === 'fail-0601.csv')?.requestId as string;
    // Seen waiting by the index first, then failing as the product fails it.
    await expect
      .poll(async () => (await index.attempts.list('vendor', id)).length, { timeout: 10_000 })
      .toBe(1);
    for (let step = 0; step < 4; step++) vendor.advance();
    // The index reads the failure's words when it first sees it (its budget allowing).
    await expect
      .poll(async () => (await index.attempts.failureOf('vendor', id)) !== undefined, {
        timeout: 15_000,
      })
      .toBe(true);

    await signIn(page, vendorGateway, ADMIN, `/requests/${id}`);
    // The summary finds the same words, though the vendor's log says Finish where it tells them.
    await expect(page.getByTestId('failure')).toContainText(
      'Input fail-0601.csv could not be parsed',
    );
    const attempts = page.getByTestId('attempts');
    await expect(attempts.locator('[data-attempt="1"]').getByTestId('attempt-message')).toHaveText(
      'Input fail-0601.csv could not be parsed',
    );
    await retryFromItsPage(page, variant.status.done, async () => {
      for (let step = 0; step < 4; step++) {
        vendor.advance();
        await page.waitForTimeout(300);
      }
    });

    // The vendor's own log now tells only of the retried run…
    const now = await fetch(
      `${vendor.url}/pipelineapi/requestdetail/json?requestid=${id}&requestlog=true&applog=true`,
      { headers: { 'X-Pipelinewebapi': vendor.apiKey } },
    );
    expect(await now.text()).not.toContain('could not be parsed');
    // …while the page still reads why attempt 1 failed, and who retried it and when.
    await expect(attempts.getByTestId('attempt')).toHaveCount(2, { timeout: 15_000 });
    const second = attempts.locator('[data-attempt="2"]');
    await expect(second).toContainText(variant.status.done, { timeout: 15_000 });
    await expect(second.getByTestId('attempt-actor')).toContainText(/^Retried by admin at /);
    await expect(second.getByTestId('attempt-actor')).toContainText(INSTANT);
    await expect(attempts.locator('[data-attempt="1"]').getByTestId('attempt-message')).toHaveText(
      'Input fail-0601.csv could not be parsed',
    );
    // And after a reload, from the gateway's keeping alone.
    await page.reload();
    await expect(attempts.locator('[data-attempt="1"]').getByTestId('attempt-message')).toHaveText(
      'Input fail-0601.csv could not be parsed',
    );

    expect(await axeBothThemes(page)).toEqual([]);
  },
);

gatewayTest(
  'behind the gateway, a vendor that queues a retry: the failed request left as it was is not reported as the outcome',
  async ({ page, vendorGateway }) => {
    test.setTimeout(90_000);
    const { queued } = vendorGateway;
    queued.addRequests('pl_1', 1, 'fail-0602.csv', 'failed');
    const id = queued.requests().find((r) => r.filename === 'fail-0602.csv')?.requestId as string;
    await signIn(page, vendorGateway, ADMIN, `/requests/${id}?service=queued`);
    await expect(page.getByTestId('attempts').getByTestId('attempt')).toHaveCount(1, {
      timeout: 15_000,
    });
    // It wrote no reason: the summary and the attempt say so alike, once its log is read
    // (its progress line "Request Start" is no reason).
    await expect(page.getByTestId('failure')).toContainText('The service wrote no reason');
    await expect(page.getByTestId('attempt-message')).toHaveText('The service wrote no reason.', {
      timeout: 15_000,
    });
    await page.getByRole('button', { name: 'Retry', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
    await expect(dialog).toContainText('✓ accepted', { timeout: 15_000 });
    // Answered OK, the request is still failed as before: said so, and followed on.
    const outcome = dialog.getByTestId('action-outcome');
    await expect(outcome).toHaveText(
      `waiting for the service to take it up: still ${variant.status.failed}`,
    );
    // Several reads later it is still not taken for the retry's outcome.
    await page.waitForTimeout(5000);
    await expect(outcome).toHaveText(
      `waiting for the service to take it up: still ${variant.status.failed}`,
    );
    await expect(dialog.getByRole('status')).toContainText('Following 1 request until it ends');
    // The service takes the retry up, runs it, and it ends well.
    for (let step = 0; step < 6; step++) {
      queued.advance();
      await page.waitForTimeout(300);
    }
    await expect(outcome).toHaveText(variant.status.done, { timeout: 30_000 });
    await expect(dialog.getByRole('status')).toHaveText('Every request has ended.');
  },
);

gatewayTest(
  'behind the gateway, a vendor whose retry is a new request: the dialog says which, in its words, and follows that one',
  async ({ page, vendorGateway }) => {
    test.setTimeout(90_000);
    const { renewed } = vendorGateway;
    renewed.addRequests('pl_1', 1, 'fail-0603.csv', 'failed');
    const id = renewed.requests()[0]?.requestId as string;
    await signIn(page, vendorGateway, ADMIN, `/requests/${id}?service=renewed`);
    await page.getByRole('button', { name: 'Retry', exact: true }).click();
    const dialog = page.getByRole('dialog');
    // How a vendor runs a retry again is its own: the dialog does not promise our engine's way.
    await expect(dialog).toContainText('where it starts again is up to it');
    await expect(dialog).not.toContainText('from the stage where it stopped');
    await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
    // The click reaches the vendor a moment later: wait for the request it starts.
    await expect.poll(() => renewed.requests().length, { timeout: 15_000 }).toBe(2);
    const again = renewed.requests().find((r) => r.requestId !== id)?.requestId as string;
    // The service's own words, then the request they name, which the dialog follows.
    await expect(dialog).toContainText(`✓ accepted: Request ${id} is retried as request ${again}`, {
      timeout: 15_000,
    });
    expect(again).not.toBe(id);
    const named = dialog.getByTestId('action-new-request');
    await expect(named).toHaveText(`runs as a new request: ${again}`);
    const outcome = dialog.getByTestId('action-outcome');
    await expect(outcome).toHaveText(`following… now ${variant.status.waiting}`);
    for (let step = 0; step < 4; step++) {
      renewed.advance();
      await page.waitForTimeout(300);
    }
    await expect(outcome).toHaveText(variant.status.done, { timeout: 30_000 });
    await expect(dialog.getByRole('status')).toHaveText('Every request has ended.');
    expect(await axeBothThemes(page)).toEqual([]);
    // The new request's page is one step away, on the same service.
    await named.getByRole('link', { name: again }).click();
    await expect(page).toHaveURL(new RegExp(`/requests/${again}\\?service=renewed$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(again);
  },
);
