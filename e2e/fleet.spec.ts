import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../src/service/testing/vendor/vendor-service.ts';
import { seedDay } from './day-seed.ts';
import { ADMIN, expect, signIn, test, type RunningService } from './fixtures.ts';
import { axeViolations } from './axe.ts';

// The fleet view and the trends (issue 25, items 3 and 6): a gateway in front of two
// vendor-like services (Tokyo fails some requests in its own word, Abort; Pacific fails
// none) and its own embedded service lands on the fleet page, one click goes into a
// service's overview, a pipeline's trends draw, and both pages are axe-clean in both
// themes, at a desk and on a phone, in English and Japanese. Screenshots of each go to
// /tmp/shots-fleet/ for a person to look at.

const SHOTS = '/tmp/shots-fleet';
const VIEWPORTS = [
  ['1280', { width: 1280, height: 900 }],
  ['390', { width: 390, height: 844 }],
] as const;

let tokyo: VendorService;
let pacific: VendorService;
let app: App;
let url: string;
let dataDir: string;

test.beforeAll(async () => {
  tokyo = await startVendorService({
    variant: VENDOR_VARIANTS.kanto,
    apiKey: 'tokyo-upstream-key-0123456789abcdef',
  });
  pacific = await startVendorService({
    variant: VENDOR_VARIANTS.pacific,
    apiKey: 'pacific-upstream-key-0123456789abcdef',
  });
  tokyo.addRequests('pl_1', 5);
  tokyo.addRequests('pl_2', 3, 'broken.csv', 'failed');
  tokyo.addRequests('pl_7', 2, 'held.csv', 'waiting');
  pacific.addRequests('pl_1', 4);
  dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-fleet-'));
  app = await buildApp({
    dataDir,
    demo: true,
    adminPassword: ADMIN.password,
    staticDir: DIST_DIR,
    loginLimit: { max: 10_000, timeWindow: 60_000 },
    accountLoginLimit: { max: 10_000, timeWindow: 3_600_000 },
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
        statuses: { failed: ['Abort'], waiting: ['Wait'], running: ['Running'] },
      },
      { id: 'pacific', name: 'Pacific', url: pacific.url, apiKey: pacific.apiKey, pollSeconds: 1 },
      { id: 'local', name: 'Embedded', embedded: true, color: 'teal' },
    ],
  });
  url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  await app.engine.whenIdle();
  // Earlier days of the embedded service's pl_2, so that its trend has days to draw.
  const today = app.context.time.day(new Date());
  const service = { app } as RunningService;
  for (let back = 1; back <= 6; back++) {
    const date = new Date(
      Date.UTC(
        Number(today.slice(0, 4)),
        Number(today.slice(4, 6)) - 1,
        Number(today.slice(6, 8)) - back,
      ),
    );
    const day = date.toISOString().slice(0, 10).replaceAll('-', '');
    seedDay(service, day, [
      { pipelineId: 'pl_2', status: 'Finish', count: 10 + back, hour: 9 },
      { pipelineId: 'pl_2', status: 'Error', count: back % 3, hour: 10, message: 'disk full' },
    ]);
  }
});

test.afterAll(async () => {
  await app?.close();
  await tokyo?.close();
  await pacific?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The card of a service on the fleet page. */
const card = (page: Page, id: string) =>
  page.locator(`[data-testid="fleet-service"][data-service="${id}"]`);

/** A class's count on a card, once the index has it. */
const count = (page: Page, id: string, cls: string) =>
  card(page, id).locator(`[data-class="${cls}"] dd`);

test('a gateway of several services lands on the fleet page, one click from each overview', async ({
  page,
}) => {
  await signIn(page, { url }, ADMIN, '/');
  await expect(page).toHaveURL(/\/fleet$/);
  await expect(page.getByRole('heading', { name: 'All services', level: 1 })).toBeVisible();
  await expect(page.getByTestId('fleet-service')).toHaveCount(3);
  // Each service's counts in its own words: Tokyo's Abort counts as failed.
  await expect(count(page, 'tokyo', 'failed')).toHaveText('3', { timeout: 15_000 });
  await expect(count(page, 'tokyo', 'done')).toHaveText('5');
  await expect(count(page, 'tokyo', 'waiting')).toHaveText('2');
  await expect(count(page, 'pacific', 'failed')).toHaveText('0');
  await expect(count(page, 'pacific', 'done')).toHaveText('4');
  await expect(card(page, 'local').getByTestId('fleet-fresh')).toHaveText(
    'Live from its own status database',
  );
  await expect(card(page, 'tokyo').getByTestId('fleet-fresh')).toContainText('JST');
  await expect(card(page, 'tokyo').getByTestId('fleet-day')).toContainText('(JST)');
  await expect(card(page, 'tokyo').getByTestId('fleet-reachable')).toHaveText(/Reachable/);
  await expect(card(page, 'tokyo').getByTestId('fleet-failed-link')).toHaveAttribute(
    'href',
    /status=Abort.*service=tokyo|service=tokyo.*status=Abort/,
  );
  await expect(page.getByTestId('jump-rule')).toContainText('2× the median');

  await card(page, 'tokyo').getByTestId('fleet-open').click();
  await expect(page).toHaveURL(/\/\?service=tokyo$/);
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await expect(page.getByTestId('service-switcher')).toHaveAttribute('data-service', 'tokyo');
});

test("a pipeline's trends draw its days by outcome and duration", async ({ page }) => {
  await signIn(page, { url }, ADMIN, '/pipelines/pl_2/trends?service=local&days=7');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('pl_2');
  await expect(page.getByTestId('trends-outcomes').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('trends-durations').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('trends-table').locator('tbody tr')).toHaveCount(7);
  // Six days back: 16 finished and none failed, as seeded.
  const today = app.context.time.day(new Date());
  const sixBack = new Date(
    Date.UTC(
      Number(today.slice(0, 4)),
      Number(today.slice(4, 6)) - 1,
      Number(today.slice(6, 8)) - 6,
    ),
  )
    .toISOString()
    .slice(0, 10)
    .replaceAll('-', '');
  await expect(page.locator(`[data-day="${sixBack}"] td`).first()).toHaveText('16');
  await expect(page.getByTestId('trends-jump')).toContainText('2× the median');
  await page.getByTestId('trends-days').selectOption('14');
  await expect(page).toHaveURL(/days=14/);
  await expect(page.getByTestId('trends-table').locator('tbody tr')).toHaveCount(14);
});

// One test per theme and language, so that each test's timeout holds on a slow machine.
for (const colorScheme of ['light', 'dark'] as const) {
  for (const language of ['en', 'ja'] as const) {
    test(`the fleet and trends pages are axe-clean, ${colorScheme}, at 1280 and 390 px, in ${language === 'en' ? 'English' : 'Japanese'}`, async ({
      page,
    }) => {
      test.setTimeout(120_000);
      mkdirSync(SHOTS, { recursive: true });
      await page.emulateMedia({ colorScheme });
      await signIn(page, { url }, ADMIN, '/fleet');
      const found: string[] = [];
      if (language === 'ja') {
        // The header's pickers are in the menu on a phone: chosen at a desk's width.
        await page.setViewportSize(VIEWPORTS[0][1]);
        await page.getByTestId('language-picker').selectOption('ja');
      }
      for (const [width, viewport] of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await page.goto(`${url}/fleet`);
        await expect(count(page, 'tokyo', 'failed')).toHaveText('3', { timeout: 15_000 });
        found.push(...(await axeViolations(page, `fleet ${language} ${width}`)));
        // Never sideways on a phone.
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth),
          `fleet ${language} ${width}: page width`,
        ).toBeLessThanOrEqual(viewport.width);
        await page.screenshot({
          path: `${SHOTS}/fleet-${width}-${colorScheme}-${language}.png`,
          fullPage: true,
        });
        await page.goto(`${url}/pipelines/pl_2/trends?service=local`);
        await expect(page.getByTestId('trends-outcomes').locator('canvas')).toBeVisible();
        found.push(...(await axeViolations(page, `trends ${language} ${width}`)));
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth),
          `trends ${language} ${width}: page width`,
        ).toBeLessThanOrEqual(viewport.width);
        await page.screenshot({
          path: `${SHOTS}/trends-${width}-${colorScheme}-${language}.png`,
          fullPage: true,
        });
      }
      expect(found).toEqual([]);
    });
  }
}
