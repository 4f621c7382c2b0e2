import { readFileSync } from 'node:fs';
import { expect, settle, signIn, test } from './fixtures.ts';

test('browses each database: tables with row counts, column types and key markers', async ({
  page,
  service,
}) => {
  // Switching databases asks only the new database for its tables: a 404 here is a table
  // of the previous one asked of the new.
  const missing: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 404) missing.push(response.url());
  });
  await signIn(page, service, undefined, '/databases/system');
  const list = page.getByTestId('table-list');
  await expect(list).toContainText('PIPELINE');
  await expect(list).not.toContainText('USERS'); // secrets are not in the catalogue
  await list.getByRole('link', { name: /^PIPELINE\s/ }).click();
  await expect(page.getByRole('button', { name: 'Sort loaded rows by ID' })).toContainText('KEY');
  await expect(page.getByRole('button', { name: 'Sort loaded rows by NAME' })).not.toContainText(
    'KEY',
  );
  await expect(page.getByTestId('table-rows').locator('thead')).toContainText('VARCHAR');
  await page.getByRole('link', { name: 'Status' }).click();
  await expect(list).toContainText(/STATUS\d{8}/);
  await page.getByRole('link', { name: 'Action' }).click();
  const total = (await service.client.table('action', 'ORDERS')).info.total as number;
  await expect(list.getByRole('link', { name: /^ORDERS/ })).toContainText(`${total} rows`);
  const databases = page.getByRole('navigation', { name: 'Databases' });
  await databases.getByRole('link', { name: 'System' }).click();
  await expect(list).toContainText('PIPELINE');
  await databases.getByRole('link', { name: 'Action' }).click();
  await expect(list.getByRole('link', { name: /^ORDERS/ })).toContainText(`${total} rows`);
  await page.waitForLoadState('networkidle');
  expect(missing, 'answers 404 while switching databases').toEqual([]);
});

test('opens a status table, links to its day, and follows a REQUESTID to the request', async ({
  page,
  service,
}) => {
  const tables = (await service.client.tables('status')).tables.filter((t) =>
    t.startsWith('STATUS'),
  );
  const table = tables.at(-1) as string;
  await signIn(page, service, undefined, `/databases/status?table=${table}`);
  await expect(page.getByRole('link', { name: 'Requests of this day' })).toHaveAttribute(
    'href',
    `/requests?date=${table.slice(6)}`,
  );
  const link = page
    .getByTestId('table-rows')
    .getByRole('link', { name: /^pl_\d+-\d{8}_\d{2}-\d{6}$/ })
    .first();
  const requestId = (await link.textContent()) as string;
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/requests/${requestId}$`));
  await expect(page.getByRole('heading', { name: requestId })).toBeVisible();
});

test('shows NULL, empty and blank values differently, and exports the loaded page as CSV and JSON', async ({
  page,
  service,
}) => {
  await settle(service);
  await signIn(page, service, undefined, '/databases/action?table=READINGS&size=50');
  const rows = page.getByTestId('table-rows');
  await expect(rows.locator('td[data-null="true"]').first()).toContainText('NULL');
  await expect(rows.getByLabel('empty').first()).toBeVisible();
  const nullCell = rows.locator('td[data-null="true"]').first();
  const emptyCell = rows.getByLabel('empty').first();
  expect(await nullCell.innerText()).not.toBe(await emptyCell.innerText());
  const expected = await service.client.table('action', 'READINGS', { pageSize: 50 });
  await expect(page.getByTestId('row-range')).toHaveText(`1–50 of ${expected.info.total}`);
  const csvDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const csv = readFileSync(await (await csvDownload).path(), 'utf8')
    .trimEnd()
    .split('\n');
  expect(csv[0]).toBe(expected.columns.map((c) => c.name).join(','));
  expect(csv).toHaveLength(51);
  expect(csv[1]).toBe((expected.rows[0] ?? []).map((v) => v ?? '').join(','));
  const jsonDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export JSON' }).click();
  const json = JSON.parse(readFileSync(await (await jsonDownload).path(), 'utf8')) as Record<
    string,
    string | null
  >[];
  expect(json).toHaveLength(50);
  const firstNull = expected.rows.findIndex((r) => r.includes(null));
  expect(Object.values(json[firstNull] ?? {})).toContain(null);
});

test('deletes and drops an action table behind a typed confirmation showing the row count', async ({
  page,
  service,
}) => {
  const before = (await service.client.table('action', 'CUSTOMERS')).info.total as number;
  expect(before).toBeGreaterThan(0);
  await signIn(page, service, undefined, '/databases/action?table=CUSTOMERS');
  await page.getByRole('button', { name: 'Delete all rows' }).click();
  let dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(`The table holds ${before} rows now.`);
  const go = dialog.getByRole('button', { name: 'Delete all rows' });
  await expect(go).toBeDisabled();
  await dialog.getByLabel('Type CUSTOMERS to confirm').fill('CUSTOMER');
  await expect(go).toBeDisabled();
  await dialog.getByLabel('Type CUSTOMERS to confirm').fill('CUSTOMERS');
  await go.click();
  await expect(dialog.getByTestId('row-count-result')).toHaveText(`Deleted ${before} rows.`);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(page.getByTestId('row-range')).toHaveText('0');
  expect((await service.client.table('action', 'CUSTOMERS')).info.total).toBe(0);

  await page.getByRole('button', { name: 'Drop table' }).click();
  dialog = page.getByRole('dialog');
  await dialog.getByLabel('Type CUSTOMERS to confirm').fill('CUSTOMERS');
  await dialog.getByRole('button', { name: 'Drop table' }).click();
  await expect(dialog.getByTestId('row-count-result')).toHaveText('Dropped; it held 0 rows.');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(page).toHaveURL(/\/databases\/action$/);
  await expect(page.getByTestId('table-list')).not.toContainText('CUSTOMERS');
  expect((await service.client.tables('action')).tables).not.toContain('CUSTOMERS');
});

test('scrolls a page of 10,000 rows with only the visible rows in the DOM', async ({
  page,
  service,
}) => {
  const db = service.app.context.dbs.action;
  db.exec('CREATE TABLE BIG (N INTEGER PRIMARY KEY, LABEL VARCHAR)');
  const insert = db.prepare('INSERT INTO BIG (N, LABEL) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 10_000; i++) insert.run(i, `row ${i}`);
  })();
  await signIn(page, service, undefined, '/databases/action?table=BIG&size=1000');
  await expect(page.getByTestId('row-range')).toHaveText('1–1,000 of 10,000');
  // The page sizes go as far as the service's pagesize does (docs/dashboard.md says 10,000).
  await page.getByLabel('Rows per page').selectOption('10000');
  await expect(page).toHaveURL(/[?&]size=10000(&|$)/);
  await expect(page.getByTestId('row-range')).toHaveText('1–10,000 of 10,000');
  expect(await page.getByTestId('table-rows').locator('tbody tr').count()).toBeLessThan(120);
  await page
    .getByTestId('table-rows')
    .locator('..')
    .evaluate((element) => element.scrollTo(0, element.scrollHeight));
  await expect(page.getByTestId('table-rows')).toContainText('row 10000');
});

test('keeps the list of tables’ page, the row filter and the sort in the URL', async ({
  page,
  service,
}) => {
  const db = service.app.context.dbs.action;
  const names = Array.from({ length: 60 }, (_, i) => `PAGED_${String(i + 1).padStart(2, '0')}`);
  db.transaction(() => {
    for (const name of names) {
      db.exec(`CREATE TABLE ${name} (N INTEGER PRIMARY KEY, LABEL VARCHAR)`);
      db.exec(`INSERT INTO ${name} (N, LABEL) VALUES (1, 'one'), (2, 'two'), (3, 'three')`);
    }
  })();
  try {
    await signIn(page, service, undefined, '/databases/action');
    const pager = page.getByRole('navigation', { name: 'Pages of tables' });
    await pager.getByRole('button', { name: 'Next page' }).click();
    await expect(page).toHaveURL(/[?&]listIndex=50(&|$)/);
    await expect(pager).toContainText(/^51–/);
    const list = page.getByTestId('table-list');
    const secondPage = (await list.locator('a span.truncate').allTextContents()).sort();
    await page.reload();
    await expect(pager).toContainText(/^51–/);
    expect((await list.locator('a span.truncate').allTextContents()).sort()).toEqual(secondPage);

    const opened = secondPage.find((name) => name.startsWith('PAGED_')) as string;
    await list.getByRole('link', { name: new RegExp(`^${opened}\\s`) }).click();
    await expect(page).toHaveURL(new RegExp(`listIndex=50.*table=${opened}`));
    await expect(pager).toContainText(/^51–/);

    await page.getByRole('button', { name: 'Sort loaded rows by N' }).click();
    await page.getByRole('button', { name: 'Sort loaded rows by N' }).click();
    await expect(page).toHaveURL(/[?&]sort=-N(&|$)/);
    await page.getByLabel('Filter loaded rows').fill('t');
    await expect(page).toHaveURL(/[?&]rows=t(&|$)/);
    const rows = page.getByTestId('table-rows').locator('tbody tr');
    await expect(rows).toHaveCount(2);
    await page.reload();
    await expect(page.getByLabel('Filter loaded rows')).toHaveValue('t');
    await expect(rows.first()).toContainText('three');
    await expect(rows.nth(1)).toContainText('two');
  } finally {
    for (const name of names) db.exec(`DROP TABLE ${name}`);
  }
});
