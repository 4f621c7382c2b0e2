import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, settle, signIn, test } from './fixtures.ts';

// A field whose text lives in the URL, typed at a person's pace on a phone's CPU. React
// Router shows each new URL in a transition, later than the next key: a field that showed
// the URL's value put the old text back after each key and kept only some of them.

const TEXT = 'orders-nightly';

/** Runs `act` with the page's CPU slowed four times, as on a phone. */
async function onSlowCpu(page: Page, act: () => Promise<void>) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await act();
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
}

const typeSlowly = (page: Page, field: ReturnType<Page['getByLabel']>, text: string) =>
  onSlowCpu(page, () => field.pressSequentially(text, { delay: 60 }));

test('the pipelines filter keeps every key typed, and the URL follows', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/pipelines');
  await expect(page.getByRole('table')).toBeVisible();
  const filter = page.getByLabel('Filter');
  await typeSlowly(page, filter, TEXT);
  await expect(filter).toHaveValue(TEXT);
  await expect(page).toHaveURL(new RegExp(`q=${TEXT}`));
  // A change from elsewhere still shows: going back to the page without a filter empties it.
  await page.goto(`${service.url}/pipelines`);
  await expect(page.getByLabel('Filter')).toHaveValue('');
});

test('the filters of tables and of loaded rows keep every key typed', async ({ page, service }) => {
  await signIn(page, service, undefined, '/databases/action?table=READINGS');
  // READINGS: a table no other spec drops (the worker's service is shared).
  const rows = page.getByLabel('Filter loaded rows');
  await expect(rows).toBeVisible();
  const tables = page.getByLabel('Filter tables on this page');
  await typeSlowly(page, tables, 'readings');
  await expect(tables).toHaveValue('readings');
  await expect(page).toHaveURL(/filter=readings/);
  await typeSlowly(page, rows, TEXT);
  await expect(rows).toHaveValue(TEXT);
  await expect(page).toHaveURL(new RegExp(`rows=${TEXT}`));
});

test('the search of a request log keeps every key typed', async ({ page, service }) => {
  writeFileSync(join(service.inbox, 'slow-phone.csv'), 'n\n1\n');
  const { requestId } = await service.client.exec('pl_8', 'slow-phone.csv');
  await settle(service);
  await signIn(page, service, undefined, `/requests/${requestId}`);
  const search = page.getByRole('searchbox');
  await expect(page.getByTestId('match-count')).toBeVisible();
  await typeSlowly(page, search, 'derive step1499');
  await expect(search).toHaveValue('derive step1499');
  await expect(page.getByTestId('match-count')).toHaveText('1 of 1');
  await expect(page).toHaveURL(/find=derive/);
});

test('arrow keys move through a select of the URL one option a key', async ({ page, service }) => {
  await signIn(page, service, undefined, '/requests');
  const select = page.getByRole('combobox', { name: /^Pipeline/ });
  // Its options come with the pipelines' list: read them once it is there (CI once read the
  // select while it still held "All pipelines" alone).
  await expect.poll(() => select.locator('option').count()).toBeGreaterThan(4);
  const values = await select
    .locator('option')
    .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
  expect(values.length).toBeGreaterThan(4);
  await select.focus();
  await onSlowCpu(page, async () => {
    for (let key = 0; key < 4; key++) {
      await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(60);
    }
  });
  await expect(select).toHaveValue(values[4] as string);
  await expect(page).toHaveURL(new RegExp(`pipeline=${values[4]}`));
});

test('two statuses ticked before the page catches up both stay ticked and in the URL', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/requests');
  await page.getByTestId('status-filter').locator('summary').click();
  const error = page.getByRole('checkbox', { name: 'Error', exact: true });
  const wait = page.getByRole('checkbox', { name: 'Wait', exact: true });
  await expect(error).toBeVisible();
  // Both clicks before any render: the second must build on the first, not on the URL shown.
  await page.evaluate(() => {
    const box = (name: string) =>
      Array.from(document.querySelectorAll('[data-testid="status-filter"] label'))
        .find((label) => label.textContent?.trim() === name)
        ?.querySelector('input');
    box('Error')?.click();
    box('Wait')?.click();
  });
  await expect(page).toHaveURL(/status=Wait%2CError|status=Wait,Error/);
  await expect(error).toBeChecked();
  await expect(wait).toBeChecked();
});
