import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, settle, signIn, test } from './fixtures.ts';

test('pages by Index/Next with the view in the URL, and a reload shows the same rows', async ({
  page,
  service,
}) => {
  writeFileSync(join(service.inbox, 'tiny.jsonl'), '{"probe":"T-1","celsius":20,"status":"ok"}\n');
  for (let i = 0; i < 60; i++) await service.client.exec('pl_2', 'tiny.jsonl');
  await settle(service);
  const total = (await service.client.requestList({ id: 'pl_2' })).info.total as number;
  await signIn(page, service, undefined, '/requests?pipeline=pl_2&size=50');
  await expect(page.getByTestId('range')).toHaveText(`1–50 of ${total}`);
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page).toHaveURL(/index=50/);
  await expect(page.getByTestId('range')).toHaveText(`51–${total} of ${total}`);
  const firstOnPage = await page
    .locator('tbody tr[data-request]')
    .first()
    .getAttribute('data-request');
  const expected = (await service.client.requestList({ id: 'pl_2', index: 50, pageSize: 50 }))
    .requests[0]?.requestId;
  expect(firstOnPage).toBe(expected);
  await page.reload();
  await expect(page.getByTestId('range')).toHaveText(`51–${total} of ${total}`);
  await expect(page.locator('tbody tr[data-request]').first()).toHaveAttribute(
    'data-request',
    firstOnPage as string,
  );
  await expect(page.getByLabel(/Pipeline/)).toHaveValue('pl_2');
  // The status filter is the service's, in the URL too, and starts again at the first page.
  await page.getByTestId('status-filter').locator('summary').click();
  await page.getByRole('checkbox', { name: 'Finish', exact: true }).check();
  await expect(page).toHaveURL(/status=Finish/);
  await expect(page).not.toHaveURL(/index=/);
  const finished = await service.client.requestList({ id: 'pl_2', status: ['Finish'] });
  await expect(page.getByTestId('range')).toHaveText(
    `1–${Math.min(50, finished.info.total as number)} of ${finished.info.total}`,
  );
});

test('keeps the rows in place when new requests arrive, behind an "N new" notice', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/requests?pipeline=pl_3');
  // The page first asks the service for its day: count the rows once they are there.
  await expect(page.locator('tbody tr[data-request]').first()).toBeVisible();
  const before = await page.locator('tbody tr[data-request]').count();
  writeFileSync(
    join(service.inbox, 'customers2.csv'),
    'id,name,mail,country\n99,Zed,z@example.com,DE\n',
  );
  await service.client.exec('pl_3', 'customers2.csv');
  await service.client.exec('pl_3', 'customers2.csv');
  await page.getByRole('button', { name: 'Refresh' }).click();
  const notice = page.getByRole('button', { name: '2 new requests — show' });
  await expect(notice).toBeVisible();
  await expect(page.locator('tbody tr[data-request]')).toHaveCount(before);
  await notice.click();
  await expect(page.locator('tbody tr[data-request]')).toHaveCount(before + 2);
});

test('retries a failed request after its file is put in the inbox', async ({ page, service }) => {
  const { requestId } = await service.client.exec('pl_3', 'late-customers.csv');
  await settle(service);
  await signIn(page, service, undefined, `/requests?pipeline=pl_3`);
  const row = page.locator(`tr[data-request="${requestId}"]`);
  await expect(row).toContainText('Error');
  await expect(row.getByRole('button', { name: `Cancel ${requestId}` })).toBeDisabled();
  writeFileSync(
    join(service.inbox, 'late-customers.csv'),
    'id,name,mail,country\n7,Ada,ada@example.com,UK\n',
  );
  await row.getByRole('button', { name: `Retry ${requestId}` }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('action-targets')).toHaveText(requestId as string);
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog).toContainText('✓ accepted');
  // Not only accepted: the dialog follows it to its end.
  await expect(dialog.getByTestId('action-outcome')).toHaveText('Finish', { timeout: 15_000 });
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(row).toContainText('Finish', { timeout: 15_000 });
});

test('cancels waiting requests in bulk, naming exactly the selected ones and reporting each', async ({
  page,
  service,
}) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push((await service.client.exec('pl_4', 'orders.csv')).requestId as string);
  await signIn(page, service, undefined, '/requests?pipeline=pl_4');
  for (const id of ids.slice(0, 2))
    await page.getByRole('checkbox', { name: `Select ${id}` }).check();
  await page.getByRole('button', { name: 'Cancel selected (2)' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('action-targets').locator('li')).toHaveCount(2);
  for (const id of ids.slice(0, 2)) await expect(dialog).toContainText(id);
  await expect(dialog).not.toContainText(ids[2] as string);
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog.getByText('✓ accepted')).toHaveCount(2);
  await expect(dialog.getByTestId('action-outcome')).toHaveText(['Stop', 'Stop']);
  await dialog.getByRole('button', { name: 'Close' }).click();
  for (const id of ids.slice(0, 2))
    expect((await service.client.requestDetail(id)).status).toBe('Stop');
  expect((await service.client.requestDetail(ids[2] as string)).status).toBe('Wait');
  await expect(page.locator(`tr[data-request="${ids[0]}"]`)).toContainText('Stop');
});

test('cancels a long request while it runs', async ({ page, service }) => {
  let csv = 'order_id,customer,region,amount,quantity,ordered_at\n';
  for (let i = 0; i < 2_000_000; i++)
    csv += `${i},c${i % 100},EU,${(i % 500) + 10},1,2026-11-20 10:00:00\n`;
  writeFileSync(join(service.inbox, 'huge.csv'), csv);
  await signIn(page, service, undefined, '/pipelines');
  const { requestId } = await service.client.exec('pl_1', 'huge.csv');
  await page.goto(`${service.url}/requests/${requestId}`);
  await expect(page.getByText(/Process|Start|Wait/).first()).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(page.getByRole('dialog')).toContainText('✓ accepted');
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await expect(page.getByTestId('timeline')).toBeVisible();
  await expect
    .poll(async () => (await service.client.requestDetail(requestId as string)).status, {
      timeout: 15_000,
    })
    .toBe('Stop');
  await expect(
    page
      .getByText('■Stop')
      .or(page.getByText('Stop', { exact: true }))
      .first(),
  ).toBeVisible({ timeout: 15_000 });
});
