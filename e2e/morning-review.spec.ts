import { axeViolations } from './axe.ts';
import type { Page } from '@playwright/test';
import type { App } from '../src/service/app.ts';
import type { RequestIndex } from '../src/service/db/index/request-index.ts';
import { shiftDay } from '../src/service/mcapi/fleet.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../src/service/testing/vendor/vendor-service.ts';
import { seedDay } from './day-seed.ts';
import {
  ADMIN,
  expect,
  signIn,
  startDemoApp,
  test as base,
  type RunningService,
} from './fixtures.ts';
import { perFile } from './per-file.ts';

// Issue 25, tried again as the operator of its "Why": what the audit found coded but never
// asserted, or asserted on the embedded service only. A gateway in front of two vendor-like
// services (Tokyo prod: its own words, Abort for a failure, JST; Pacific: the interface's
// defaults, PST, refusals as HTTP errors) and its own embedded service, whose earlier days
// are seeded so that a pipeline's failures jump today.

// An instant with its zone, as the dashboard writes one (English: 12-hour clock).
const INSTANT = /\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}( [AP]M)? \S+/;
// A time of day with its zone, as a log line's time is shown.
const CLOCK_JST = /^\d{1,2}:\d{2}:\d{2}( [AP]M)? JST$/;
const PHONE = { width: 390, height: 844 };
/** Tokyo's words, configured as its operator would. */
const TOKYO_WORDS = VENDOR_VARIANTS.kanto.status;

/** Pipelines of the embedded service: one that jumps today and one that keeps steady. */
const JUMPING = { id: 'pl_3', name: 'Customer sync' } as const;
const STEADY = { id: 'pl_1', name: 'Orders ingest' } as const;

/** Tokyo's files, each of one test. */
const FILES = {
  /** Finished requests found by their file name alone (it is in no message). */
  ledger: 'quarterly-ledger-close.csv',
  /** Failed requests, found by the words of their failure. */
  broken: 'fail-stock.csv',
  /** Held in Wait (their pipeline is suspended): cancelled, or only asked to be. */
  held: 'held-archive.csv',
  /** Fails through its stages while the index watches. */
  evidence: 'fail-evidence.csv',
} as const;

interface Morning {
  readonly url: string;
  readonly app: App;
  readonly tokyo: VendorService;
  readonly pacific: VendorService;
  /** A Tokyo request of two days ago (its id names that day). */
  readonly oldId: string;
}

const morningServer = perFile<Morning>(async (use) => {
  // Tokyo's clock can be turned back to add a request of another day.
  let shiftMs = 0;
  const tokyo = await startVendorService({
    variant: VENDOR_VARIANTS.kanto,
    apiKey: 'tokyo-morning-key-0123456789abcdef',
    now: () => new Date(Date.now() - shiftMs),
  });
  const pacific = await startVendorService({
    variant: VENDOR_VARIANTS.pacific,
    apiKey: 'pacific-morning-key-0123456789abcdef',
  });
  shiftMs = 2 * 86_400_000;
  tokyo.addRequests('pl_1', 1, 'two-days-ago.csv');
  shiftMs = 0;
  const oldId = tokyo.requests()[0]?.requestId as string;
  tokyo.addRequests('pl_1', 12);
  tokyo.addRequests('pl_1', 2, FILES.ledger);
  // Failing as the product fails them: through its stages, its words in the log.
  tokyo.addRequests('pl_2', 2, FILES.broken, 'waiting');
  for (let step = 0; step < 4; step++) tokyo.advance();
  tokyo.addRequests('pl_7', 3, FILES.held, 'waiting');
  // Pacific: the interface's defaults (no word of its own configured). Queued is in no
  // class, so Retry is offered and the service decides; pl_7 is suspended, so its
  // requests stay Queued.
  pacific.addRequests('pl_1', 4);
  pacific.addRequests('pl_2', 3, 'fail-pacific.csv', 'failed');
  pacific.addRequests('pl_7', 1, 'queued.csv', 'waiting');
  const gateway = await startDemoApp({
    services: [
      {
        id: 'tokyo',
        name: 'Tokyo prod',
        url: tokyo.url,
        apiKey: tokyo.apiKey,
        label: 'production',
        color: 'red',
        zone: 'Asia/Tokyo',
        pollSeconds: 1,
        statuses: {
          failed: [TOKYO_WORDS.failed],
          waiting: [TOKYO_WORDS.waiting],
          running: [TOKYO_WORDS.running],
          final: [TOKYO_WORDS.done, TOKYO_WORDS.cancelled],
          retryable: [TOKYO_WORDS.failed, TOKYO_WORDS.cancelled],
          cancellable: [TOKYO_WORDS.waiting, TOKYO_WORDS.running],
        },
      },
      {
        id: 'pacific',
        name: 'Pacific',
        url: pacific.url,
        apiKey: pacific.apiKey,
        label: 'staging',
        color: 'amber',
        pollSeconds: 1,
      },
      { id: 'local', name: 'Embedded', embedded: true, color: 'teal' },
    ],
  });
  // The embedded service's last six days: the jumping pipeline never failed, the steady
  // one failed one in ten; today the first fails four in ten, the second still one in ten.
  const service = { app: gateway.app } as RunningService;
  const today = gateway.app.context.time.day(new Date());
  for (let back = 1; back <= 6; back++) {
    const day = shiftDay(today, -back);
    seedDay(service, day, [
      { pipelineId: JUMPING.id, status: 'Finish', count: 10, hour: 9 },
      { pipelineId: STEADY.id, status: 'Finish', count: 9, hour: 9 },
      { pipelineId: STEADY.id, status: 'Error', count: 1, hour: 10, message: 'late file' },
    ]);
  }
  seedDay(service, today, [
    { pipelineId: JUMPING.id, status: 'Finish', count: 5, hour: 0 },
    { pipelineId: JUMPING.id, status: 'Error', count: 4, hour: 0, message: 'CRM down' },
    { pipelineId: STEADY.id, status: 'Finish', count: 8, hour: 0 },
    { pipelineId: STEADY.id, status: 'Error', count: 1, hour: 0, message: 'late file' },
  ]);
  await use({ url: gateway.url, app: gateway.app, tokyo, pacific, oldId });
  await gateway.stop();
  await Promise.all([tokyo.close(), pacific.close()]);
});
const test = base.extend<{ morning: Morning }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  morning: async ({}, use) => use(morningServer()),
});

/** The gateway's request index of a vendor service. */
function indexOf(morning: Morning, service: string): RequestIndex {
  const index = morning.app.context.services.route(service)?.upstream?.poller?.index;
  if (!index) throw new Error(`the gateway keeps no index of ${service}`);
  return index;
}

/** Until the index has read a round of both vendor services. */
async function indexed(morning: Morning): Promise<void> {
  for (const id of ['tokyo', 'pacific'])
    await expect
      .poll(() => morning.app.context.services.list().find((s) => s.id === id)?.indexedAt, {
        timeout: 15_000,
      })
      .toBeTruthy();
}

/** The status the index holds of a request, once it has seen it. */
const indexedStatus = async (morning: Morning, service: string, id: string) =>
  (await indexOf(morning, service).statusCounts(service, [id]))[0]?.status;

/** Turns the page's language to Japanese (the picker's own choice, kept in the browser). */
async function inJapanese(page: Page): Promise<void> {
  await page.evaluate(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
}

test.describe.configure({ mode: 'serial' });

test('the fleet marks a pipeline whose failures jump today, naming it and its service, and not a steady one', async ({
  page,
  morning,
}) => {
  await indexed(morning);
  await signIn(page, morning, ADMIN, '/fleet');
  const local = page.locator('[data-testid="fleet-service"][data-service="local"]');
  const jumps = local.getByTestId('fleet-jumps');
  await expect(jumps).toBeVisible({ timeout: 15_000 });
  // The mark says which service it is about as well as which pipeline.
  await expect(jumps).toHaveAccessibleName('Jumps today on Embedded');
  const mark = jumps.locator(`li[data-pipeline="${JUMPING.id}"]`);
  await expect(mark).toHaveCount(1);
  await expect(mark).toContainText(JUMPING.name);
  // 4 failed of 9 ended today (the demo's run of it ended too), against a median of 0 %.
  await expect(mark).toContainText(/failure rate 4\d(\.\d)?% \(median of the days before 0%\)/);
  await expect(mark.getByRole('link', { name: JUMPING.name })).toHaveAttribute(
    'href',
    new RegExp(`/pipelines/${JUMPING.id}/trends\\?service=local$`),
  );
  // A pipeline that fails as often as it always did is not marked, nor is any of the vendors'.
  await expect(jumps.locator(`li[data-pipeline="${STEADY.id}"]`)).toHaveCount(0);
  await expect(jumps.locator('li')).toHaveCount(1);
  for (const id of ['tokyo', 'pacific']) {
    const card = page.locator(`[data-testid="fleet-service"][data-service="${id}"]`);
    await expect(card.getByTestId('fleet-jumps')).toHaveCount(0);
    await expect(card).toContainText('No pipeline jumps today.');
  }
  // The mark leads to the pipeline's trends on that service, where the jump is said again.
  await mark.getByRole('link', { name: JUMPING.name }).click();
  await expect(page.getByTestId('service-switcher')).toHaveAttribute('data-service', 'local');
  await expect(page.getByTestId('trends-jump')).toContainText('The failure rate jumped today');
});

test('a refusal learnt from an upstream shows on the Services page, in words', async ({
  page,
  morning,
}) => {
  await indexed(morning);
  const queued = morning.pacific.requests().find((r) => r.filename === 'queued.csv');
  const id = queued?.requestId as string;
  await signIn(page, morning, ADMIN, '/service-list?service=pacific');
  await expect(page.getByTestId('learned-pacific')).toHaveCount(0);

  // Queued is none of the defaults' words: Retry is offered, and Pacific refuses it (409).
  await page.goto(`${morning.url}/requests?service=pacific&pipeline=pl_7`);
  const retry = page
    .locator(`tr[data-request="${id}"]`)
    .getByRole('button', { name: `Retry ${id}` });
  await expect(retry).not.toHaveAttribute('aria-disabled', 'true');
  await retry.click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog).toContainText(`Request ${id} cannot be retried in status Queued`);
  await dialog.getByRole('button', { name: 'Close' }).click();

  await page.goto(`${morning.url}/service-list?service=pacific`);
  const learned = page.getByTestId('learned-pacific');
  await expect(learned.locator('li')).toHaveCount(1);
  await expect(learned.locator('li')).toContainText(/^Retry of a request in Queued, refused /);
  await expect(learned.locator('li')).toContainText(INSTANT);
  await expect(learned.locator('li q')).toHaveText(
    `Request ${id} cannot be retried in status Queued`,
  );
  await expect(page.getByTestId('status-words-pacific')).toContainText(
    'Refused by the service, so no longer offered',
  );
  // Tokyo refused nothing.
  await expect(page.getByTestId('learned-tokyo')).toHaveCount(0);
  // And the row no longer offers it, saying why.
  await page.goto(`${morning.url}/requests?service=pacific&pipeline=pl_7`);
  await expect(retry).toHaveAttribute('aria-disabled', 'true');
  await expect(retry).toHaveAccessibleDescription(
    /^The service refused before to retry a request in Queued: /,
  );
});

test('on a 390 px phone behind a gateway of two vendor services, the first request row is on the first screen', async ({
  page,
  morning,
}) => {
  await indexed(morning);
  await page.setViewportSize(PHONE);
  await signIn(page, morning, ADMIN, '/requests?service=tokyo');
  // The header of a gateway: the production band, and the services in the menu.
  await expect(page.getByTestId('environment-band')).toHaveAttribute('data-production', 'true');
  await page.getByRole('button', { name: 'Menu' }).click();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'All services', exact: true })).toBeVisible();
  await expect(page.getByTestId('service-switcher')).toBeVisible();
  await page.getByRole('button', { name: 'Menu' }).click();

  await page.goto(`${morning.url}/requests?service=tokyo`);
  const first = page.getByTestId('requests-table').locator('tbody tr[data-request]').first();
  await expect(first).toBeVisible();
  const box = await first.boundingBox();
  expect(box, 'the first row').not.toBeNull();
  expect(
    (box?.y ?? PHONE.height) + (box?.height ?? 0),
    'the first row’s bottom',
  ).toBeLessThanOrEqual(PHONE.height);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    PHONE.width,
  );
});

test('on a vendor service the search finds a request by its file name and by its failure’s words, and “Go to request” opens an id of another day on its day', async ({
  page,
  morning,
}) => {
  await indexed(morning);
  const ledger = morning.tokyo
    .requests()
    .filter((r) => r.filename === FILES.ledger)
    .map((r) => r.requestId);
  const broken = morning.tokyo
    .requests()
    .filter((r) => r.filename === FILES.broken)
    .map((r) => r.requestId);
  expect(ledger).toHaveLength(2);
  expect(broken).toHaveLength(2);
  await signIn(page, morning, ADMIN, '/requests?service=tokyo');
  const rows = page.getByTestId('requests-table').locator('tbody tr[data-request]');
  const search = page.getByRole('searchbox', { name: 'Search', exact: true });

  // A finished request's file is in no list of the vendor's: the index learns it.
  await expect(async () => {
    await search.fill('LEDGER-close');
    await search.press('Enter');
    await expect(page).toHaveURL(/q=LEDGER-close/);
    await expect(rows).toHaveCount(2, { timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
  for (const id of ledger) await expect(page.locator(`tr[data-request="${id}"]`)).toBeVisible();

  // A failure by the words of its message (not its file's name).
  await search.fill('could not be parsed');
  await search.press('Enter');
  await expect(rows).toHaveCount(2, { timeout: 15_000 });
  for (const id of broken) await expect(page.locator(`tr[data-request="${id}"]`)).toBeVisible();

  await search.fill('nothing-like-this');
  await search.press('Enter');
  await expect(rows).toHaveCount(0);

  // An id of two days ago, from today's page: opened at once, on its own day.
  const oldDay = morning.oldId.replace(/^pl_1-(\d{8})_.*$/, '$1');
  expect(oldDay).toMatch(/^\d{8}$/);
  await page.goto(`${morning.url}/requests?service=tokyo`);
  await page.getByLabel('Go to request').fill(morning.oldId);
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/requests/${morning.oldId}\\?service=tokyo$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(morning.oldId);
  await expect(page.getByRole('link', { name: '← Requests of that day' })).toHaveAttribute(
    'href',
    new RegExp(`date=${oldDay}`),
  );
  await expect(page.getByTestId('unknown-request')).toHaveCount(0);
  await page.getByRole('link', { name: '← Requests of that day' }).click();
  await expect(page.locator(`tr[data-request="${morning.oldId}"]`)).toBeVisible();
  expect(new URL(page.url()).searchParams.get('date')).toBe(oldDay);
  expect(oldDay).not.toBe(morning.app.context.time.day(new Date()));
});

test('a vendor request’s attempts: status changes with their times, the last log lines at the failure, and who cancelled when', async ({
  page,
  morning,
}) => {
  test.setTimeout(90_000);
  await indexed(morning);
  const { tokyo } = morning;
  tokyo.addRequests('pl_1', 1, FILES.evidence, 'waiting');
  const failing = tokyo.requests().find((r) => r.filename === FILES.evidence)?.requestId as string;
  // Each stage seen by the index before the next: Wait, Running…, then Abort.
  await expect
    .poll(() => indexedStatus(morning, 'tokyo', failing), { timeout: 10_000 })
    .toBe(TOKYO_WORDS.waiting);
  tokyo.advance();
  await expect
    .poll(() => indexedStatus(morning, 'tokyo', failing), { timeout: 10_000 })
    .toBe(TOKYO_WORDS.running);
  for (let step = 0; step < 3; step++) tokyo.advance();
  await expect
    .poll(() => indexedStatus(morning, 'tokyo', failing), { timeout: 10_000 })
    .toBe(TOKYO_WORDS.failed);
  await expect
    .poll(
      async () =>
        (await indexOf(morning, 'tokyo').attempts.failureOf('tokyo', failing)) !== undefined,
      {
        timeout: 15_000,
      },
    )
    .toBe(true);

  await signIn(page, morning, ADMIN, `/requests/${failing}?service=tokyo`);
  const attempt = page.getByTestId('attempts').locator('[data-attempt="1"]');
  await expect(attempt.getByTestId('attempt-message')).toHaveText(
    `Input ${FILES.evidence} could not be parsed`,
  );
  // The last application-log lines at the failure, each time in Tokyo's zone.
  await attempt.getByText(/^Last application-log lines at the failure/).click();
  const log = attempt.getByTestId('attempt-log');
  await expect(log).toContainText(`Input ${FILES.evidence} could not be parsed`);
  await expect(log.locator('time').first()).toHaveText(CLOCK_JST);
  // Its status changes, each with its time.
  await attempt.getByText('Status changes', { exact: true }).click();
  const changes = attempt.locator('details', { hasText: 'Status changes' }).locator('li');
  await expect(changes.first()).toContainText(TOKYO_WORDS.waiting);
  await expect(changes.last()).toContainText(TOKYO_WORDS.failed);
  await expect(changes.filter({ hasText: TOKYO_WORDS.running })).not.toHaveCount(0);
  for (const change of await changes.all()) {
    await expect(change.locator('time')).toHaveText(INSTANT);
    await expect(change.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
  }

  // A cancel says who cancelled and when, with the zone.
  const held = tokyo.requests().find((r) => r.filename === FILES.held)?.requestId as string;
  await page.goto(`${morning.url}/requests/${held}?service=tokyo`);
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog.getByTestId('action-outcome')).toHaveText(TOKYO_WORDS.cancelled, {
    timeout: 15_000,
  });
  await dialog.getByRole('button', { name: 'Close' }).click();
  const cancelled = page.getByTestId('attempts').locator('[data-attempt="1"]');
  const actor = cancelled.getByTestId('attempt-actor');
  await expect(actor).toContainText(/^Cancelled by admin at /, { timeout: 15_000 });
  await expect(actor).toContainText(INSTANT);
  await expect(actor).toContainText('JST');
  await expect(actor.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
});

test('the Application log tab shows each line’s time with its zone', async ({ page, morning }) => {
  await indexed(morning);
  const id = morning.tokyo.requests().find((r) => r.filename === FILES.ledger)?.requestId as string;
  await signIn(page, morning, ADMIN, `/requests/${id}?service=tokyo`);
  await page.getByRole('tab', { name: /^Application log/ }).click();
  await expect(page).toHaveURL(/tab=app/);
  const table = page.getByRole('table', { name: 'Log lines' });
  const cells = table.getByRole('row').nth(1).getByRole('cell');
  await expect(cells.nth(1)).toHaveText(CLOCK_JST);
  await expect(cells.nth(1).locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
});

test('a bulk job goes on when its dialog closes, the page follows it, its report says “✓ accepted” for each call, and the Japanese cancel dialog confirms with 「キャンセルする」', async ({
  page,
  morning,
}) => {
  test.setTimeout(90_000);
  await indexed(morning);
  const failed = morning.pacific
    .requests()
    .filter((r) => r.filename === 'fail-pacific.csv')
    .map((r) => r.requestId);
  expect(failed).toHaveLength(3);
  await signIn(page, morning, ADMIN, '/requests?service=pacific&status=Error');
  const bar = page.getByTestId('bulk-bar');
  await bar.getByRole('button', { name: /^Retry all 3/ }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('bulk-count')).toContainText('3');
  await dialog.getByLabel('Reason').fill('the input was fixed overnight');
  // A slow vendor: the job is still running when the dialog is closed, and goes on.
  morning.pacific.setDelay(1500);
  await dialog.getByRole('button', { name: /^Retry 3/ }).click();
  await expect(dialog.getByTestId('bulk-goes-on')).toBeVisible();
  await dialog.getByRole('button', { name: 'Close — the job goes on' }).click();
  await expect(dialog).toBeHidden();
  const followed = page.getByTestId('bulk-followed');
  await expect(followed).toContainText(/^Bulk job \d+ goes on: [0-2] of 3 done\./);
  morning.pacific.setDelay(0);
  await expect(followed).toContainText(
    /^Bulk job \d+ finished: 3 accepted, 0 refused, 0 failed\./,
    {
      timeout: 20_000,
    },
  );
  // The page with the job it follows, in both themes.
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // The buttons' colours ease into the new theme (transition-colors): read once they have,
    // their transitions begun at the next frames.
    await page.evaluate(async () => {
      for (let frame = 0; frame < 2; frame++)
        await new Promise((resolve) => requestAnimationFrame(resolve));
      await Promise.all(document.getAnimations().map((animation) => animation.finished));
    });
    expect(await axeViolations(page, `a followed bulk job, ${colorScheme}`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  // Shown again, from the page; closing it puts the focus back on what opened it.
  const show = followed.getByRole('button', { name: /^Show job \d+$/ });
  await show.click();
  const items = dialog.getByTestId('bulk-items').locator('li');
  await expect(items).toHaveCount(3, { timeout: 15_000 });
  for (const id of failed) {
    const item = dialog.locator(`[data-testid="bulk-items"] li[data-request="${id}"]`);
    await expect(item.locator('span').last()).toHaveText('✓ accepted', { timeout: 15_000 });
  }
  await expect(dialog.getByTestId('bulk-items')).not.toContainText('Success');
  await expect(dialog.getByTestId('bulk-items')).not.toContainText('—');
  await page.keyboard.press('Escape');
  await expect(show).toBeFocused();

  // In Japanese, a cancel is confirmed in words that say what it does.
  const held = morning.tokyo
    .requests()
    .find((r) => r.filename === FILES.held && r.status === TOKYO_WORDS.waiting)
    ?.requestId as string;
  await inJapanese(page);
  await page.goto(`${morning.url}/requests/${held}?service=tokyo`);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  await page.getByRole('button', { name: 'キャンセル', exact: true }).click();
  await expect(dialog.getByRole('button', { name: 'キャンセルする', exact: true })).toBeVisible();
  await expect(dialog).not.toContainText('はい、実行します');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('the audit page in Japanese words who called and its columns in Japanese', async ({
  page,
  morning,
}) => {
  // A call refused before anyone was known: the audit keeps it as unauthenticated.
  const refused = await fetch(
    `${morning.url}/services/tokyo/pipelineapi/requestretry/xml?requestid=${morning.oldId}`,
    { method: 'PUT' },
  );
  expect(refused.status).toBe(401);
  await signIn(page, morning, ADMIN, '/audit');
  await expect(page.getByTestId('audit').locator('[data-via="session"]').first()).toHaveText(
    '(signed in)',
  );
  await inJapanese(page);
  await page.goto(`${morning.url}/audit`);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  const table = page.getByTestId('audit');
  await expect(table.getByRole('columnheader', { name: 'リクエストID' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'ユーザー' })).toBeVisible();
  await expect(table.locator('[data-via="session"]').first()).toHaveText('（サインイン）');
  await expect(table.locator('[data-via="none"]').first()).toHaveText('（未認証）');
  await expect(table).not.toContainText('(session)');
  await expect(table).not.toContainText('(none)');
  await expect(table).not.toContainText('RequestId');
});
