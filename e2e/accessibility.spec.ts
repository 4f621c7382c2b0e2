import type { Page } from '@playwright/test';
import { axeViolations, dialogState, settledPage, THEMES_AND_WIDTHS } from './axe.ts';
import { seedDay } from './day-seed.ts';
import { expect, OPERATOR, settle, signIn, test, type RunningService } from './fixtures.ts';

// Every page and dialog against WCAG 2.2 A and AA (issue 15), in both themes at a desktop's
// and a phone's width. Each theme and width is split into a few tests of a handful of page
// states each, so that each test's timeout holds on a slow machine (issue 43).

// A past day of its own (a worker's service is shared by the spec files it runs).
const DAY = '20261012';
const PHONE = { width: 390, height: 844 };
const settled = settledPage;

async function visit(page: Page, url: string, state: string, found: string[]): Promise<void> {
  await page.goto(url);
  await settled(page);
  found.push(...(await axeViolations(page, state)));
}

interface Fixture {
  readonly errorId: string;
  readonly waitId: string;
}

async function prepare(service: RunningService): Promise<Fixture> {
  const { requestId: errorId } = await service.client.exec('pl_3', 'missing-a11y.csv');
  await settle(service);
  const { requestId: waitId } = await service.client.exec('pl_4', 'orders.csv');
  return { errorId: errorId as string, waitId: waitId as string };
}

// One failed and one waiting request for the whole file: no test here changes them (each
// dialog is closed by Escape).
let requests: Fixture;
test.beforeAll(async ({ service }) => {
  seedDay(service, DAY, [
    { pipelineId: 'pl_2', status: 'Error', count: 4, hour: 4, message: 'disk full' },
    { pipelineId: 'pl_2', status: 'Finish', count: 6, hour: 10 },
  ]);
  requests = await prepare(service);
});

/** The page states of one test: each group is a few pages and dialogs, checked in order. */
const GROUPS: ReadonlyArray<{
  readonly name: string;
  readonly check: (page: Page, service: RunningService, found: string[]) => Promise<void>;
}> = [
  {
    name: 'sign-in, overview, pipelines and the execute dialog',
    check: async (page, service, found) => {
      await page.goto(`${service.url}/sign-in`);
      await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
      found.push(...(await axeViolations(page, 'sign-in')));
      await signIn(page, service, undefined, '/');
      await settled(page);
      found.push(...(await axeViolations(page, 'overview')));
      await visit(page, `${service.url}/pipelines`, 'pipelines', found);
      await dialogState(
        page,
        page.locator('[data-pipeline="pl_1"]').getByRole('button', { name: 'Execute' }),
        'execute dialog',
        found,
      );
    },
  },
  {
    name: 'requests, a day, the retry and bulk dialogs',
    check: async (page, service, found) => {
      const { errorId } = requests;
      await signIn(page, service, undefined, '/requests?pipeline=pl_3');
      await settled(page);
      found.push(...(await axeViolations(page, 'requests')));
      await dialogState(
        page,
        page
          .locator(`[data-request="${errorId}"]`)
          .getByRole('button', { name: `Retry ${errorId}` }),
        'retry dialog',
        found,
      );
      await visit(
        page,
        `${service.url}/requests?date=${DAY}&pipeline=pl_2&status=Error`,
        'day',
        found,
      );
      await dialogState(
        page,
        page.getByRole('button', { name: /^Retry all 4 requests in Error/ }),
        'bulk dialog',
        found,
      );
    },
  },
  {
    name: 'a request’s detail, logs and raw view, a waiting request and the cancel dialog',
    check: async (page, service, found) => {
      const { errorId, waitId } = requests;
      await signIn(page, service, undefined, `/requests/${errorId}`);
      await settled(page);
      found.push(...(await axeViolations(page, 'request detail')));
      for (const tab of ['app', 'raw'] as const)
        await visit(page, `${service.url}/requests/${errorId}?tab=${tab}`, `request ${tab}`, found);
      await visit(page, `${service.url}/requests/${waitId}`, 'waiting request', found);
      await dialogState(
        page,
        page.getByRole('button', { name: 'Cancel', exact: true }),
        'cancel dialog',
        found,
      );
    },
  },
  {
    name: 'the three databases',
    check: async (page, service, found) => {
      await signIn(page, service, undefined, '/databases/system');
      await settled(page);
      found.push(...(await axeViolations(page, 'system database')));
      await visit(page, `${service.url}/databases/status`, 'status database', found);
      await visit(page, `${service.url}/databases/action?table=CUSTOMERS`, 'action table', found);
    },
  },
  {
    name: 'services, settings and audit',
    check: async (page, service, found) => {
      await signIn(page, service, undefined, '/service-list');
      await settled(page);
      found.push(...(await axeViolations(page, 'services')));
      await visit(page, `${service.url}/settings`, 'settings', found);
      await visit(page, `${service.url}/audit`, 'audit', found);
    },
  },
];

for (const { colorScheme, width, viewport } of THEMES_AND_WIDTHS) {
  for (const group of GROUPS) {
    test(`no WCAG 2.2 AA violations, ${colorScheme}, ${width}: ${group.name}`, async ({
      page,
      service,
    }) => {
      // Axe reads the whole page at each state: the slowest step on a busy machine.
      test.setTimeout(120_000);
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize(viewport);
      const found: string[] = [];
      await group.check(page, service, found);
      expect(found, 'axe violations').toEqual([]);
    });
  }
}

/** Fails when the page is wider than the viewport: a phone would scroll it sideways. */
async function noSidewaysScroll(page: Page, state: string): Promise<void> {
  await settled(page);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, `${state} is ${width} px wide`).toBeLessThanOrEqual(PHONE.width);
}

test('on a 390 px phone an operator finds a failure, reads why, and retries it, with no sideways scrolling', async ({
  page,
  service,
}) => {
  const { errorId } = await prepare(service);
  await page.setViewportSize(PHONE);
  await signIn(page, service, undefined, '/');
  await noSidewaysScroll(page, 'overview');
  await page.goto(`${service.url}/requests?status=Error`);
  await noSidewaysScroll(page, 'requests in Error');
  await expect(page.locator(`[data-request="${errorId}"]`)).toBeVisible();
  // The overview's latest errors lead to the failure.
  await page.goto(`${service.url}/`);
  await page.getByRole('link', { name: errorId }).click();
  await noSidewaysScroll(page, 'request detail');
  await expect(page.getByRole('table', { name: 'Log lines' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Log lines' })).toContainText('missing-a11y.csv');
  const retry = page.getByRole('button', { name: 'Retry', exact: true });
  await retry.click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog).toContainText('✓ accepted');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await expect(retry).toBeFocused();
  for (const [path, state] of [
    ['/pipelines', 'pipelines'],
    ['/databases/action?table=CUSTOMERS', 'action table'],
    ['/settings', 'settings'],
  ] as const) {
    await page.goto(`${service.url}${path}`);
    await noSidewaysScroll(page, state);
  }
  // Execute is in view, not behind a scroll of the pipelines table.
  await page.goto(`${service.url}/pipelines`);
  const execute = page.locator('[data-pipeline="pl_1"]').getByRole('button', { name: 'Execute' });
  const box = await execute.boundingBox();
  expect(box && box.x + box.width, 'right edge of Execute').toBeLessThanOrEqual(PHONE.width);
});

test('a refused action says why to keyboard and touch users, not only on hover', async ({
  page,
  service,
}) => {
  await signIn(page, service, OPERATOR, '/pipelines');
  const execute = page.locator('[data-pipeline="pl_1"]').getByRole('button', { name: 'Execute' });
  await expect(execute).toBeDisabled();
  await expect(execute).toHaveAccessibleDescription('The operator role may not execute pipelines.');
  await execute.focus();
  await expect(execute).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'may not execute' })).toBeVisible();
});

test('the axe check itself finds a violation where there is one, once per document', async ({
  page,
}) => {
  // e2e/axe.ts calls axe-core in the page: this proves it reports what it should, so that a
  // wrong option there cannot turn every check above into a silent pass.
  await page.setContent(
    '<html lang="en"><title>Probe</title><main><h1>Probe</h1><img src="data:,"><button></button></main></html>',
  );
  const found = await axeViolations(page, 'probe');
  expect(found.map((line) => line.split(' ')[1])).toEqual(['button-name', 'image-alt']);
  // A second state of the same document reuses the injected axe-core.
  await page.evaluate(() => document.querySelector('img')?.setAttribute('alt', 'a dot'));
  expect(await axeViolations(page, 'probe, mended')).toEqual([
    expect.stringMatching(/^probe, mended: button-name \(critical\) button/),
  ]);
});
