import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import { addUser } from '../src/service/auth/users.ts';
import type { ServiceEntry } from '../src/service/gateway/services.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../src/service/testing/vendor/vendor-service.ts';
import { ADMIN, expect, OPERATOR, signIn, test as base } from './fixtures.ts';
import { axeViolations } from './axe.ts';
import { perFile } from './per-file.ts';

// Issue 25, items 2 and 7: a service that is down says so on every page (what failed, since
// when, what is shown is as of when, actions off with the reason) and comes back by itself;
// nothing on screen leaves doubt which service a page or a dialog is about.

/** Seconds the gateway gives an upstream: the banner must not wait for more than this. */
const UPSTREAM_TIMEOUT_S = 3;
/** The dashboard reads the services' states every 10 s; a call that fails reads them at once. */
const LIST_REFRESH_MS = 10_000;

/** A TCP relay in front of a vendor double: stopping it is the upstream's host going away. */
interface Relay {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function startRelay(target: string): Promise<Relay> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let listening = 0;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = connect(Number(port), hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
        }
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      next.once('error', reject);
      // The same port again once started: the gateway's services file names it.
      next.listen(listening, '127.0.0.1', () => {
        listening = (next.address() as AddressInfo).port;
        server = next;
        resolve();
      });
    });
  await start();
  return {
    url: `http://127.0.0.1:${listening}`,
    start,
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server = undefined;
        for (const socket of sockets) socket.destroy();
      }),
  };
}

interface DownGateway {
  readonly url: string;
  readonly app: App;
  readonly relay: Relay;
  readonly tokyo: VendorService;
  readonly failedId: string;
}

const gatewayServer = perFile<DownGateway>(async (use) => {
  const tokyo = await startVendorService({
    variant: VENDOR_VARIANTS.pacific,
    apiKey: 'tokyo-upstream-key-0123456789abcdef',
  });
  tokyo.addRequests('pl_1', 1, 'broken.csv', 'failed');
  const osaka = await startVendorService({
    variant: VENDOR_VARIANTS.kanto,
    apiKey: 'osaka-upstream-key-0123456789abcdef',
  });
  const relay = await startRelay(tokyo.url);
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-down-'));
  const entries: ServiceEntry[] = [
    {
      id: 'tokyo',
      name: 'Tokyo prod',
      url: relay.url,
      apiKey: tokyo.apiKey,
      label: 'production',
      color: 'red',
      pollSeconds: 1,
    },
    {
      id: 'osaka',
      name: 'Osaka',
      url: osaka.url,
      apiKey: osaka.apiKey,
      label: 'staging',
      color: 'amber',
      pollSeconds: 1,
    },
  ];
  const app = await buildApp({
    dataDir,
    demo: false,
    adminPassword: ADMIN.password,
    staticDir: DIST_DIR,
    services: entries,
    loginLimit: { max: 10_000, timeWindow: 60_000 },
    accountLoginLimit: { max: 10_000, timeWindow: 3_600_000 },
    limits: { upstreamTimeoutMs: UPSTREAM_TIMEOUT_S * 1000 },
  });
  await addUser(
    app.context.shared,
    OPERATOR.user,
    OPERATOR.password,
    'operator',
    new Date().toISOString(),
  );
  const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  const failedId = tokyo.requests()[0]?.requestId as string;
  await use({ url, app, relay, tokyo, failedId });
  await app.close();
  await relay.stop();
  await Promise.all([tokyo.close(), osaka.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});
const test = base.extend<{ gateway: DownGateway }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  gateway: async ({}, use) => use(gatewayServer()),
});

const reachable = (gateway: DownGateway, id: string) =>
  gateway.app.context.services.list().find((s) => s.id === id)?.reachable;

/** Until the gateway's index of tokyo holds its failed request. */
async function indexed(gateway: DownGateway): Promise<void> {
  await expect
    .poll(() => gateway.app.context.services.list().find((s) => s.id === 'tokyo')?.indexedAt, {
      timeout: 15_000,
    })
    .toBeTruthy();
}

// An instant with its zone, as the dashboard writes one (English: 12-hour clock).
const INSTANT = /\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}( [AP]M)? \S+/;

/** Why an action is off while tokyo is down, as every button says it. */
const DOWN_REASON =
  /^Tokyo prod \(production\) has not answered since .+: actions are off until it answers again\.$/;

/**
 * What failed, worded by the dashboard: "Cause:" and the connection's code as written
 * (ECONNREFUSED; a connection cut as the relay stopped says so in its own code), never the
 * gateway's English sentence quoted.
 */
async function expectCauseWorded(why: Locator): Promise<void> {
  await expect(why.locator('[data-kind="unreachable"]')).toBeVisible();
  await expect(why).toContainText(/^Cause: \S/);
  await expect(why.getByTestId('failure-cause')).toHaveText(/^[A-Z][A-Z_]+$/);
  await expect(why).not.toContainText('Service Tokyo prod');
  await expect(why).not.toContainText('cannot be reached (');
}

test.describe.configure({ mode: 'serial' });

test('a stopped upstream: a banner on every page with what failed and since when, actions off with the reason, and back when it answers', async ({
  page,
  gateway,
}) => {
  test.setTimeout(90_000);
  await indexed(gateway);
  await signIn(page, gateway, ADMIN, '/pipelines');
  const execute = page.locator('tr[data-pipeline="pl_1"]').getByRole('button', { name: 'Execute' });
  await expect(execute).not.toHaveAttribute('aria-disabled', 'true');
  await expect(page.getByTestId('service-down')).toHaveCount(0);

  await gateway.relay.stop();
  // The server learns it from the first call that meets it (its poller asks every second),
  // within the upstream timeout: not at its next 30 s check.
  await expect
    .poll(() => reachable(gateway, 'tokyo'), { timeout: UPSTREAM_TIMEOUT_S * 1000 })
    .toBe(false);

  // The page an operator sits on says so at the list's next refresh, without a reload.
  const banner = page.getByTestId('service-down');
  await expect(banner).toBeVisible({ timeout: LIST_REFRESH_MS + 2_000 });
  await expect(banner).toContainText('Tokyo prod (production) cannot be reached.');
  // The gateway's own sentence ("Service Tokyo prod cannot be reached (ECONNREFUSED).") is
  // worded by the dashboard from its shape, in the user's language; its cause stays as written.
  await expectCauseWorded(page.getByTestId('service-down-message'));
  await expect(page.getByTestId('service-down-since')).toContainText(INSTANT);
  await expect(page.getByTestId('service-down-since').locator('time')).toHaveAttribute(
    'datetime',
    /^\d{4}-\d{2}-\d{2}T/,
  );
  await expect(page.getByTestId('service-down-as-of')).toContainText(INSTANT);

  // Actions are off, each saying why (focusable, described, and told when pressed).
  await expect(execute).toHaveAttribute('aria-disabled', 'true');
  await expect(execute).toHaveAccessibleDescription(
    /^Tokyo prod \(production\) has not answered since .+: actions are off until it answers again\.$/,
  );
  await expect(page.locator('tr[data-pipeline="pl_1"]').getByRole('switch')).toHaveAttribute(
    'aria-disabled',
    'true',
  );
  await execute.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(
    page.getByRole('status').filter({ hasText: 'has not answered since' }),
  ).toBeVisible();
  // The pipelines still shown are marked with the time they were read.
  await expect(page.getByTestId('as-of')).toContainText(INSTANT);

  // Every page of that service has the banner; another service's pages do not.
  for (const path of ['/', '/requests', '/settings', '/audit', '/service-list']) {
    await page.goto(`${gateway.url}${path}`);
    await expect(page.getByTestId('service-down'), path).toBeVisible({ timeout: 5_000 });
  }
  await page.goto(`${gateway.url}/pipelines?service=osaka`);
  await expect(page.locator('tr[data-pipeline="pl_1"]')).toBeVisible();
  await expect(page.getByTestId('service-down')).toHaveCount(0);

  await gateway.relay.start();
  await page.goto(`${gateway.url}/pipelines`);
  await expect(page.locator('tr[data-pipeline="pl_1"]')).toBeVisible();
  // The first answer it gives the page tells the server, and the page reads the list again.
  await expect(page.getByTestId('service-down')).toHaveCount(0, {
    timeout: LIST_REFRESH_MS + 5_000,
  });
  await expect(execute).not.toHaveAttribute('aria-disabled', 'true');
  await expect(page.getByTestId('as-of')).toHaveCount(0);
});

test('the requests page of a stopped upstream keeps its rows as of their time, with Retry all and each row’s Retry off and why', async ({
  page,
  gateway,
}) => {
  test.setTimeout(90_000);
  await indexed(gateway);
  await signIn(page, gateway, ADMIN, '/requests');
  const row = page.locator(`tr[data-request="${gateway.failedId}"]`);
  const retry = row.getByRole('button', { name: `Retry ${gateway.failedId}` });
  const retryAll = page.getByTestId('bulk-bar').getByRole('button', { name: /^Retry all/ });
  await expect(retry).not.toHaveAttribute('aria-disabled', 'true');
  await expect(retryAll).not.toHaveAttribute('aria-disabled', 'true');

  await gateway.relay.stop();
  try {
    // At worst the gateway learns it at its poller's next call, which fails within the
    // upstream timeout, and the page at its next refresh of the services list.
    await expect(page.getByTestId('service-down')).toBeVisible({
      timeout: LIST_REFRESH_MS + UPSTREAM_TIMEOUT_S * 1000 + 5_000,
    });
    for (const button of [retry, retryAll]) {
      await expect(button).toHaveAttribute('aria-disabled', 'true');
      await expect(button).toHaveAccessibleDescription(DOWN_REASON);
    }
    // Pressed anyway, it says why instead of asking to confirm.
    await retryAll.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(
      page.getByRole('status').filter({ hasText: 'has not answered since' }).first(),
    ).toBeVisible();
    // The rows still shown say when they were read.
    await expect(row).toBeVisible();
    await expect(page.getByTestId('as-of')).toContainText(INSTANT);
  } finally {
    await gateway.relay.start();
  }
  // Back: the page's first answered call tells the server, and the actions are on again.
  await page.goto(`${gateway.url}/requests`);
  await expect(row).toBeVisible();
  await expect(page.getByTestId('service-down')).toHaveCount(0, {
    timeout: LIST_REFRESH_MS + 5_000,
  });
  await expect(retry).not.toHaveAttribute('aria-disabled', 'true');
});

test('the overview of a stopped upstream: unreachable in words within the upstream timeout, what it showed as of its time, Retry off and why', async ({
  page,
  gateway,
}) => {
  test.setTimeout(90_000);
  await indexed(gateway);
  await signIn(page, gateway, ADMIN, '/?service=tokyo');
  const unreachable = page.getByTestId('overview-unreachable');
  const latest = page.getByTestId('latest-errors-section');
  const retry = latest.getByTestId('latest-error-retry');
  await expect(latest.getByRole('link', { name: gateway.failedId })).toBeVisible({
    timeout: 15_000,
  });
  await expect(retry).not.toHaveAttribute('aria-disabled', 'true');
  await expect(unreachable).toHaveCount(0);
  await expect(page.getByTestId('as-of')).toHaveCount(0);

  await gateway.relay.stop();
  try {
    await expect(page.getByTestId('service-down')).toBeVisible({
      timeout: LIST_REFRESH_MS + 2_000,
    });
    // What it read before stays, said to be as last read: the counts and the latest errors
    // each with the time they were read, with its zone.
    await expect(unreachable).toContainText(
      /^Tokyo prod \(production\) cannot be reached \(no answer since .+\): the counts and errors below are as they were last read\./,
    );
    await expectCauseWorded(page.getByTestId('overview-unreachable-why'));
    await expect(page.getByTestId('overview-day')).toBeVisible();
    const asOf = page.getByTestId('as-of');
    await expect(asOf).toHaveCount(2);
    await expect(asOf.first()).toContainText(INSTANT);
    await expect(asOf.first().locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
    await expect(latest.getByTestId('as-of')).toContainText(INSTANT);
    // Its Retry is off with the reason, as on the requests page; pressed, it says why.
    await expect(retry).toHaveAttribute('aria-disabled', 'true');
    await expect(retry).toHaveAccessibleDescription(DOWN_REASON);
    await retry.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(
      page.getByRole('status').filter({ hasText: 'has not answered since' }).first(),
    ).toBeVisible();

    // Opened afresh, with nothing read before: words within the upstream timeout, no spinner.
    const started = Date.now();
    await page.goto(`${gateway.url}/?service=tokyo`);
    await expect(unreachable).toBeVisible({ timeout: UPSTREAM_TIMEOUT_S * 1000 });
    expect(Date.now() - started, 'ms until the overview says so').toBeLessThan(
      UPSTREAM_TIMEOUT_S * 1000,
    );
    await expect(unreachable).toContainText(
      /^Tokyo prod \(production\) cannot be reached \(no answer since .+\), so this day’s counts cannot be read now\./,
    );
    await expect(unreachable.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
    await expectCauseWorded(page.getByTestId('overview-unreachable-why'));
    await expect(
      page.getByRole('status').filter({ hasText: /^Loading…$|Waiting for/ }),
    ).toHaveCount(0);
    await expect(page.getByTestId('overview-day')).toHaveCount(0);
  } finally {
    await gateway.relay.start();
  }
  // Back: the counts are read again, and nothing is marked as of a time any more.
  await expect(unreachable).toHaveCount(0, { timeout: LIST_REFRESH_MS + 5_000 });
  await expect(retry).not.toHaveAttribute('aria-disabled', 'true');
  await expect(page.getByTestId('as-of')).toHaveCount(0);
});

test('a slow upstream: the overview says whom it waits for, and for how long, once past 2 s; at the timeout, that it did not answer', async ({
  page,
  gateway,
}) => {
  test.setTimeout(90_000);
  await indexed(gateway);
  await signIn(page, gateway, ADMIN, '/pipelines?service=osaka');
  // The vendor's latency switch: every answer later than the gateway waits for it.
  gateway.tokyo.setDelay((UPSTREAM_TIMEOUT_S + 3) * 1000);
  try {
    const started = Date.now();
    await page.goto(`${gateway.url}/?service=tokyo`);
    const waiting = page
      .getByRole('status')
      .filter({ hasText: /^Waiting for Tokyo prod \(production\) to answer \(\d s so far\)…$/ });
    // Polled often: the words show from 2 s until the gateway gives up at its timeout.
    await expect
      .poll(() => waiting.isVisible(), { intervals: [100], timeout: UPSTREAM_TIMEOUT_S * 1000 })
      .toBe(true);
    expect(Date.now() - started, 'ms before the waiting words').toBeGreaterThanOrEqual(2_000);
    const unreachable = page.getByTestId('overview-unreachable');
    await expect(unreachable).toBeVisible({ timeout: UPSTREAM_TIMEOUT_S * 1000 });
    await expect(unreachable).toContainText(
      /^Tokyo prod \(production\) cannot be reached.*, so this day’s counts cannot be read now\./,
    );
    // The gateway's "Service Tokyo prod did not answer within 3 s.", in the user's words.
    await expect(page.getByTestId('overview-unreachable-why')).toHaveText(
      `No answer within ${UPSTREAM_TIMEOUT_S} s.`,
    );
    await expect(waiting).toHaveCount(0);
  } finally {
    gateway.tokyo.setDelay(0);
  }
  await expect(page.getByTestId('overview-unreachable')).toHaveCount(0, {
    timeout: LIST_REFRESH_MS + 5_000,
  });
  await expect(page.getByTestId('overview-day')).toBeVisible();
});

test('the tab, the header and every dialog name the service; production stands out', async ({
  page,
  gateway,
}) => {
  await indexed(gateway);
  await signIn(page, gateway, ADMIN, '/pipelines');
  await expect(page).toHaveTitle('Pipelines · Tokyo prod (production) · Pipeline dashboard');
  const band = page.getByTestId('environment-band');
  await expect(band).toHaveAttribute('data-production', 'true');
  await expect(band).toContainText('production');
  await expect(band).toContainText('Tokyo prod');
  await expect(band).toContainText('Changes here act on production.');
  // The picker lists each service whole (nothing cut), the current one included, with its
  // failed requests of today where it has any (from the fleet's exact counts).
  const picker = page.getByTestId('service-switcher').getByRole('combobox');
  await expect(picker.locator('option')).toHaveText([
    'Tokyo prod (production) · 1 failed',
    'Osaka (staging)',
  ]);

  await page.locator('tr[data-pipeline="pl_1"]').getByRole('button', { name: 'Execute' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toHaveAccessibleDescription('On Tokyo prod (production)');
  await page.keyboard.press('Escape');

  await page.goto(`${gateway.url}/requests?pipeline=pl_1`);
  await page.getByRole('button', { name: `Retry ${gateway.failedId}` }).click();
  await expect(dialog).toHaveAccessibleName('Retry this request on Tokyo prod (production)?');
  await page.keyboard.press('Escape');

  await page.goto(`${gateway.url}/requests/${gateway.failedId}`);
  await expect(page).toHaveTitle(
    `Request ${gateway.failedId} · Tokyo prod (production) · Pipeline dashboard`,
  );

  await picker.selectOption('osaka');
  await expect(page).toHaveURL(/service=osaka/);
  await expect(page).toHaveTitle('Requests · Osaka (staging) · Pipeline dashboard');
  await expect(band).toHaveAttribute('data-production', 'false');
  await expect(band).not.toContainText('Changes here act on production.');

  // Settings under a vendor's service keep the server's own key and switches apart, said so.
  await page.goto(`${gateway.url}/settings?service=osaka`);
  await expect(page.getByTestId('settings-service')).toContainText('Service: Osaka (staging)');
  await expect(page.getByTestId('settings-service')).toContainText(
    'its own key, which stays on the server and is never shown',
  );
  await expect(page.getByTestId('settings-service').getByTestId('api-key')).toHaveCount(0);
  const server = page.getByTestId('settings-server');
  await expect(server).toContainText('not Osaka (staging)’s own');
  await expect(server.getByTestId('api-key')).toBeVisible();
  await server.getByRole('button', { name: 'Update' }).click();
  await expect(dialog).toHaveAccessibleDescription('On this server: every service');
  await page.keyboard.press('Escape');
});

test('the audit’s service filter narrows the list only: the service every page shows stays', async ({
  page,
  gateway,
}) => {
  await signIn(page, gateway, ADMIN, '/audit?service=osaka');
  const switcher = page.getByTestId('service-switcher');
  await expect(switcher).toHaveAttribute('data-service', 'osaka');
  const filter = page.getByTestId('audit-service-filter');
  await filter.selectOption('tokyo');
  await expect(page).toHaveURL(/auditService=tokyo/);
  await expect(page).toHaveURL(/service=osaka/);
  await expect(switcher).toHaveAttribute('data-service', 'osaka');
  await filter.selectOption('');
  await expect(page).not.toHaveURL(/auditService=/);
  await expect(switcher).toHaveAttribute('data-service', 'osaka');
  await expect(page.getByTestId('environment-band')).toHaveAttribute('data-service', 'osaka');
  // How people called reads in words, not as the server's field values.
  await expect(page.getByTestId('audit').locator('[data-via="session"]').first()).toHaveText(
    '(signed in)',
  );
});

test('on a 390 px phone every page of the menu is in sight, with no sideways scrolling', async ({
  page,
  gateway,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, gateway, OPERATOR, '/pipelines?service=osaka');
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const name of [
    'All services',
    'Overview',
    'Pipelines',
    'Requests',
    'Databases',
    'Settings',
    'Services',
  ])
    await expect(nav.getByRole('link', { name, exact: true }), name).toBeInViewport({ ratio: 1 });
  const widths = await nav.evaluate((element) => ({
    nav: element.scrollWidth - element.clientWidth,
    page: document.documentElement.scrollWidth,
  }));
  expect(widths.nav, 'the menu scrolls sideways').toBe(0);
  expect(widths.page, 'the page is wider than the phone').toBeLessThanOrEqual(390);
  await nav.getByRole('link', { name: 'Settings' }).click();
  await expect(page).toHaveURL(/\/settings\?service=osaka$/);

  // The header's menu opens and closes from the keyboard, the focus back on its button.
  const menu = page.getByRole('button', { name: 'Menu' });
  await menu.focus();
  await page.keyboard.press('Enter');
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await page.getByRole('button', { name: 'Sign out' }).focus();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeFocused();
});

test('the banner, the overview of a down service, the bands and the dialogs: no WCAG 2.2 AA violations in either theme', async ({
  page,
  gateway,
}) => {
  test.setTimeout(90_000);
  await gateway.relay.stop();
  try {
    await expect
      .poll(() => reachable(gateway, 'tokyo'), { timeout: UPSTREAM_TIMEOUT_S * 1000 })
      .toBe(false);
    await signIn(page, gateway, ADMIN, '/pipelines');
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${gateway.url}/pipelines`);
      await expect(page.getByTestId('service-down')).toBeVisible();
      found.push(...(await axeViolations(page, `${scheme} down`)));
      await page.goto(`${gateway.url}/?service=tokyo`);
      await expect(page.getByTestId('overview-unreachable')).toBeVisible();
      found.push(...(await axeViolations(page, `${scheme} down overview`)));
      await page.goto(`${gateway.url}/pipelines?service=osaka`);
      await page
        .locator('tr[data-pipeline="pl_1"]')
        .getByRole('button', { name: 'Execute' })
        .click();
      await expect(page.getByRole('dialog')).toBeVisible();
      found.push(...(await axeViolations(page, `${scheme} staging dialog`)));
      await page.keyboard.press('Escape');
      await page.goto(`${gateway.url}/settings?service=osaka`);
      await expect(page.getByTestId('settings-server')).toBeVisible();
      found.push(...(await axeViolations(page, `${scheme} settings`)));
      await page.goto(`${gateway.url}/audit`);
      await expect(page.getByTestId('audit')).toBeVisible();
      found.push(...(await axeViolations(page, `${scheme} audit`)));
    }
    expect(found).toEqual([]);
  } finally {
    await gateway.relay.start();
  }
});
