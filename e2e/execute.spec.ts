import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, signIn, test, type RunningService } from './fixtures.ts';
import { axeViolations } from './axe.ts';

// Issue 15: Execute offers the inbox, checks typed Args before the run, and reports what
// became of the run (its outcome, not the service's acceptance), in both themes and both
// languages; Execute and Clear cache stay within a phone's width.

async function openExec(page: Page, service: Pick<RunningService, 'url'>, pipelineId = 'pl_1') {
  await signIn(page, service, undefined, '/pipelines');
  const opener = page
    .locator(`tr[data-pipeline="${pipelineId}"]`)
    .getByRole('button', { name: 'Execute' });
  await opener.click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  return { dialog, opener };
}

const requestsOf = async (service: RunningService, pipelineId: string) =>
  (await service.client.requestList({ id: pipelineId, pageSize: 1000 })).requests.length;

test('offers the inbox’s files to pick from, and the pick fills the file name', async ({
  page,
  service,
}) => {
  writeFileSync(join(service.inbox, 'fresh-e2e.csv'), 'order_id,amount\n1,5\n');
  const { dialog } = await openExec(page, service);
  const list = dialog.getByLabel('File in the inbox');
  const offered = await list.locator('option').allTextContents();
  expect(offered.some((o) => o.startsWith('orders.csv ('))).toBe(true);
  expect(offered.some((o) => o.startsWith('fresh-e2e.csv ('))).toBe(true);
  await list.selectOption('fresh-e2e.csv');
  await expect(dialog.getByLabel('File name')).toHaveValue('fresh-e2e.csv');
});

test('refuses a bad typed Arg before the run, naming the Arg', async ({ page, service }) => {
  const before = await requestsOf(service, 'pl_1');
  const { dialog } = await openExec(page, service);
  await expect(dialog.getByLabel('region').locator('option')).toHaveText(['EU', 'US', 'APAC']);
  await dialog.getByLabel('File in the inbox').selectOption('orders.csv');
  await dialog.getByLabel('minAmount').fill('abc');
  await dialog.getByRole('button', { name: 'Execute' }).click();
  await expect(dialog.getByRole('alert')).toContainText(
    'minAmount must be an integer (digits, optional sign), not “abc”.',
  );
  await expect(dialog.getByLabel('minAmount')).toHaveAttribute('aria-invalid', 'true');
  // The form is still there and nothing reached the service.
  await expect(dialog.getByTestId('exec-outcome')).toHaveCount(0);
  expect(await requestsOf(service, 'pl_1')).toBe(before);
  // Fixing the value clears the refusal as the user types.
  await dialog.getByLabel('minAmount').fill('250');
  await expect(dialog.getByRole('alert')).toHaveCount(0);
});

test('reports the outcome of an execute: Finish with its row counts, focus back after Close', async ({
  page,
  service,
}) => {
  const { dialog, opener } = await openExec(page, service);
  await dialog.getByLabel('File in the inbox').selectOption('orders.csv');
  await dialog.getByLabel('minAmount').fill('100');
  await dialog.getByLabel('region').selectOption('US');
  await dialog.getByRole('button', { name: 'Execute' }).click();
  const link = dialog.getByRole('link', { name: /^pl_1-/ });
  await expect(link).toBeVisible();
  const requestId = (await link.textContent()) as string;
  const outcome = dialog.getByTestId('exec-outcome');
  await expect(outcome).toHaveText(/^Finish — /, { timeout: 20_000 });
  const detail = await service.client.requestDetail(requestId);
  expect(detail.status).toBe('Finish');
  const n = (v: number | undefined) => (v as number).toLocaleString('en-US');
  await expect(outcome).toHaveText(
    `Finish — kept ${n(detail.filterKept)} of ${n(detail.sensorRows)} rows, wrote ${n(detail.jointRows)}`,
  );
  expect(await axeViolations(page, 'finished outcome')).toEqual([]);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
});

test('reports an execute of a missing file as failed, in the service’s words (dark)', async ({
  page,
  service,
}) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  const { dialog } = await openExec(page, service, 'pl_3');
  await dialog.getByLabel('File name').fill('missing-exec-e2e.csv');
  await dialog.getByRole('button', { name: 'Execute' }).click();
  const outcome = dialog.getByTestId('exec-outcome');
  await expect(outcome).toHaveText(
    'Error — Input file missing-exec-e2e.csv was not found in the inbox or cannot be read.',
    { timeout: 20_000 },
  );
  await expect(dialog.getByRole('link', { name: /^pl_3-/ })).toHaveAttribute(
    'href',
    /\/requests\/pl_3-/,
  );
  expect(await axeViolations(page, 'failed outcome, dark')).toEqual([]);
});

test('shows a refused execute with the service’s own Code and Message', async ({
  page,
  service,
}) => {
  const { dialog } = await openExec(page, service, 'pl_3');
  await dialog.getByLabel('File name').fill('../etc/passwd');
  await dialog.getByRole('button', { name: 'Execute' }).click();
  const alert = dialog.getByRole('alert');
  await expect(alert).toContainText('Code 1002');
  await expect(alert).toContainText('must be a plain file name inside the inbox folder');
  await expect(dialog.getByTestId('exec-outcome')).toHaveCount(0);
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the execute and cache dialogs have no axe violations and give focus back: ${colorScheme}`, async ({
    page,
    service,
  }) => {
    await page.emulateMedia({ colorScheme });
    const found: string[] = [];
    const { dialog, opener } = await openExec(page, service);
    found.push(...(await axeViolations(page, 'execute dialog')));
    await dialog.getByLabel('minAmount').fill('abc');
    await dialog.getByRole('button', { name: 'Execute' }).click();
    await expect(dialog.getByRole('alert')).toBeVisible();
    found.push(...(await axeViolations(page, 'execute dialog with problems')));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(opener).toBeFocused();

    const cache = page
      .locator('tr[data-pipeline="pl_2"]')
      .getByRole('button', { name: 'Clear cache' });
    await cache.click();
    await expect(dialog).toBeVisible();
    found.push(...(await axeViolations(page, 'cache dialog')));
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(cache).toBeFocused();

    await cache.click();
    await dialog.getByLabel(/Sensor/).check();
    await dialog.getByRole('button', { name: 'Clear' }).click();
    await expect(dialog.getByTestId('cache-outcome')).toBeVisible();
    found.push(...(await axeViolations(page, 'cache dialog with the service’s answer')));
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
    await expect(cache).toBeFocused();
    expect(found).toEqual([]);
  });
}

for (const language of ['en', 'ja'] as const) {
  test(`at 390 px Execute and Clear cache are within reach, without sideways scrolling: ${language}`, async ({
    page,
    service,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, service, undefined, '/pipelines');
    await page.evaluate((l) => localStorage.setItem('pipeline-dashboard.language', l), language);
    await page.reload();
    // Every row, the hostile pl_7 with its long unbroken name among them.
    for (const row of await page.locator('tr[data-pipeline]').all()) {
      // Execute and Clear cache: the row's only buttons (the Runmode control is a switch).
      const buttons = row.getByRole('button');
      await expect(buttons).toHaveCount(2);
      for (const button of await buttons.all()) {
        await expect(button).toBeVisible();
        // Left and right inside the table's box (within the page's padding): nothing to
        // scroll sideways to reach it. Rows below the fold are reached by scrolling down.
        const box = await button.boundingBox();
        expect(box?.x ?? -1).toBeGreaterThanOrEqual(16);
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390 - 16);
      }
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    // An ordinary name wraps between its words, never inside one ("Custom / er sync"), also
    // when no long name widens its column.
    await page.getByRole('searchbox').fill('Customer');
    await expect(page.locator('tr[data-pipeline]')).toHaveCount(1);
    const name = page.locator('tr[data-pipeline="pl_3"] td').filter({ hasText: 'Customer sync' });
    const lines = await name.evaluate((cell) => {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const start = node.textContent?.indexOf('Customer') ?? -1;
        if (start < 0) continue;
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, start + 'Customer'.length);
        return range.getClientRects().length;
      }
      return 0;
    });
    expect(lines, 'the word Customer is broken across lines').toBe(1);
    await page.getByRole('searchbox').fill('');
    const table = page.getByTestId('pipelines-table');
    expect(
      await table.evaluate(
        (t) => (t.parentElement?.scrollWidth ?? 0) - (t.parentElement?.clientWidth ?? 0),
      ),
      'the table scrolls sideways',
    ).toBeLessThanOrEqual(0);
    await page.locator('tr[data-pipeline="pl_1"]').getByRole('button').first().click();
    const dialog = page.getByRole('dialog');
    const box = await dialog.boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    await expect(dialog.locator('button[type="submit"]')).toBeInViewport();
  });
}

test('shows the pipelines page and the execute dialog in Japanese', async ({ page, service }) => {
  await signIn(page, service, undefined, '/pipelines');
  await page.evaluate(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'パイプライン' })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: '実行モード' })).toBeVisible();
  const row = page.locator('tr[data-pipeline="pl_1"]');
  await expect(row.getByRole('button', { name: 'キャッシュクリア' })).toBeVisible();
  await expect(row.getByRole('link', { name: '今日のリクエスト' })).toBeVisible();
  await row.getByRole('button', { name: '実行', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Orders ingest を実行' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('受信フォルダのファイル')).toBeVisible();
  await expect(dialog.getByRole('group', { name: '引数' })).toBeVisible();
  await dialog.getByLabel('minAmount').fill('abc');
  await dialog.getByRole('button', { name: '実行', exact: true }).click();
  await expect(dialog.getByRole('alert')).toContainText(
    'minAmount には整数（数字、符号は任意）を指定してください。',
  );
  await expect(dialog.getByRole('alert')).toContainText('実行するファイルを指定してください。');
  await expect(dialog.getByRole('button', { name: 'キャンセル' })).toBeVisible();
});
