import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, OPERATOR, signIn, test } from './fixtures.ts';

test('lists every field of the list response, with Args as name = default', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/pipelines');
  const row = page.locator('tr[data-pipeline="pl_1"]');
  await expect(row).toContainText('Orders ingest');
  await expect(row).toContainText('minAmount = 10');
  await expect(row).toContainText('region = EU');
  // Createdate and Updatedate on the chosen clock, each naming its zone.
  await expect(row.locator('time')).toHaveCount(2);
  await expect(row.locator('time').first()).toHaveText(
    /^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}\S* \S+/,
  );
  await page.getByRole('searchbox').fill('archive');
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await expect(page).toHaveURL(/q=archive/);
});

test('suspends and resumes with the badge following', async ({ page, service }) => {
  await signIn(page, service, undefined, '/pipelines');
  const row = page.locator('tr[data-pipeline="pl_3"]');
  await expect(row.getByText('Running')).toBeVisible();
  await row.getByRole('switch').click();
  await expect(row.getByText('Suspended')).toBeVisible();
  // What the service answered, not only that the switch moved.
  await expect(page.getByText('pl_3 suspended. The service answered: OK — Success')).toBeVisible();
  await expect
    .poll(async () => (await service.client.listPipelines()).find((p) => p.id === 'pl_3')?.runmode)
    .toBe('stop');
  await row.getByRole('switch').click();
  await expect(row.getByText('Running')).toBeVisible();
  await expect
    .poll(async () => (await service.client.listPipelines()).find((p) => p.id === 'pl_3')?.runmode)
    .toBe('run');
});

test('executes a pipeline with its Args and follows the request to Finish', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/pipelines');
  await page.locator('tr[data-pipeline="pl_1"]').getByRole('button', { name: 'Execute' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByLabel('minAmount')).toHaveValue('10');
  await dialog.getByLabel('File in the inbox').selectOption('orders.csv');
  await dialog.getByLabel('minAmount').fill('100');
  await dialog.getByRole('button', { name: 'Execute' }).click();
  const link = dialog.getByRole('link', { name: /^pl_1-/ });
  await expect(link).toBeVisible();
  const requestId = (await link.textContent()) as string;
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/requests/${requestId}`));
  await expect(
    page
      .getByText('✓Finish')
      .or(page.getByText('Finish', { exact: true }))
      .first(),
  ).toBeVisible({ timeout: 15_000 });
  await page.getByRole('tab', { name: /Application log/ }).click();
  await expect(page.getByRole('table')).toContainText('Filter kept');
  const detail = await service.client.requestDetail(requestId, { appLog: true });
  expect(detail.status).toBe('Finish');
});

test('clears a pipeline cache with the chosen stages', async ({ page, service }) => {
  await signIn(page, service, undefined, '/pipelines');
  await page
    .locator('tr[data-pipeline="pl_2"]')
    .getByRole('button', { name: 'Clear cache' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('button', { name: 'Clear' })).toBeDisabled();
  await dialog.getByLabel(/Sensor/).check();
  await dialog.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByText('Cache of Sensor readings cleared.', { exact: true })).toBeVisible();
  // The dialog stays with what the service answered, and gives focus back when closed.
  await expect(dialog.getByTestId('cache-outcome')).toHaveText(
    'Cache of Sensor readings cleared. The service answered: OK — Success',
  );
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await expect(
    page.locator('tr[data-pipeline="pl_2"]').getByRole('button', { name: 'Clear cache' }),
  ).toBeFocused();
});

test('renders a hostile pipeline name and description as text', async ({ page, service }) => {
  await signIn(page, service, undefined, '/pipelines');
  const row = page.locator('tr[data-pipeline="pl_7"]');
  await expect(row).toContainText('<img src=x onerror=alert(1)> Hostile & co');
  await expect(row).toContainText('<script>window.hacked = true</script><b>not bold</b>');
  await expect(row.locator('img, script, b')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { hacked?: boolean }).hacked),
  ).toBeUndefined();
});

test('shows an operator the controls it may not use as disabled, with the reason', async ({
  page,
  service,
}) => {
  writeFileSync(join(service.inbox, 'never.csv'), 'x\n1\n');
  await signIn(page, service, OPERATOR, '/pipelines');
  const row = page.locator('tr[data-pipeline="pl_1"]');
  const execute = row.getByRole('button', { name: 'Execute' });
  await expect(execute).toBeDisabled();
  await expect(execute).toHaveAttribute('title', 'The operator role may not execute pipelines.');
  await expect(row.getByRole('button', { name: 'Clear cache' })).toBeDisabled();
  // Resume and suspend are the operator's to use.
  await expect(row.getByRole('switch')).toBeEnabled();
  await page.goto(`${service.url}/databases/action?table=ORDERS`);
  await expect(page.getByRole('button', { name: 'Drop table' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete all rows' })).toHaveAttribute(
    'title',
    'The operator role may not delete the rows of action tables.',
  );
});
