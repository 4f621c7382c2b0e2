import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, settle, signIn, test } from './fixtures.ts';

// A field whose text lives in the URL, typed at a person's pace on a phone's CPU. React
// Router shows each new URL in a transition, later than the next key: a field that showed
// the URL's value put the old text back after each key and kept only some of them.

const TEXT = 'orders-nightly';

async function typeSlowly(page: Page, field: ReturnType<Page['getByLabel']>, text: string) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await field.pressSequentially(text, { delay: 60 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
}

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
