import { axeViolations } from './axe.ts';
import { seedDay } from './day-seed.ts';
import { expect, OPERATOR, signIn, test } from './fixtures.ts';

// A past day of its own (a worker's service is shared by the spec files it runs).
const DAY = '20261018';

test.beforeAll(({ service }) => {
  seedDay(service, DAY, [
    { pipelineId: 'pl_2', status: 'Error', count: 30, hour: 4, message: 'disk full' },
    { pipelineId: 'pl_2', status: 'Finish', count: 120, hour: 10 },
    { pipelineId: 'pl_3', status: 'Wait', count: 8, hour: 11 },
    { pipelineId: 'pl_3', status: 'Finish', count: 5, hour: 11 },
  ]);
});

test('retries all of a day’s errors of a pipeline: dry run, reason, progress, each request', async ({
  page,
  service,
}) => {
  const preview = await service.client.bulk.preview({
    action: 'retry',
    date: DAY,
    id: 'pl_2',
    statuses: ['Error'],
  });
  expect(preview.total).toBe(30);
  await signIn(page, service, OPERATOR, `/requests?date=${DAY}&pipeline=pl_2&status=Error`);
  await page
    .getByRole('button', { name: 'Retry all 30 requests in Error of pl_2 on 2026-10-18…' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('bulk-count')).toHaveText(
    'The service would retry exactly 30 requests; the first of them:',
  );
  const first = dialog.getByTestId('bulk-first').locator('li');
  await expect(first).toHaveCount(preview.requestIds.length + 1);
  await expect(first.first()).toHaveText(preview.requestIds[0] as string);
  await expect(first.last()).toHaveText(`and ${30 - preview.requestIds.length} more`);
  // Nothing happened yet, and nothing happens without a reason.
  expect((await service.client.requestList({ date: DAY, status: ['Error'] })).info.total).toBe(30);
  const go = dialog.getByRole('button', { name: 'Retry 30 requests' });
  await expect(go).toBeDisabled();
  await dialog.getByLabel(/^Reason/).fill('disk replaced on reader 7');
  await go.click();
  await expect(dialog.getByTestId('bulk-progress')).toHaveText('30 of 30 done', {
    timeout: 30_000,
  });
  await expect(dialog.getByTestId('bulk-outcomes')).toHaveText(
    '30 accepted, 0 refused, 0 failed — finished.',
  );
  await expect(dialog.getByTestId('bulk-items').locator('li')).toHaveCount(30);
  await expect(dialog.locator(`[data-request="${preview.requestIds[0]}"]`)).toContainText(
    '✓ accepted',
  );
  // Then what became of them: their input is still missing, so each failed again.
  await expect(dialog.getByTestId('bulk-now')).toHaveText('Of the 30 accepted, now: 30 in Error.', {
    timeout: 30_000,
  });
  // The finished job's dialog, in both themes (the theme follows the system's here).
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await axeViolations(page, colorScheme)).toEqual([]);
  }
  const [job] = await service.client.bulk.jobs();
  expect([job?.user, job?.reason, job?.total, job?.succeeded]).toEqual([
    OPERATOR.user,
    'disk replaced on reader 7',
    30,
    30,
  ]);
  await dialog.getByRole('button', { name: 'Close' }).click();
});

test('cancels all waiting requests of a pipeline, reporting each', async ({ page, service }) => {
  await signIn(page, service, OPERATOR, `/requests?date=${DAY}&pipeline=pl_3`);
  await page
    .getByRole('button', { name: 'Cancel all requests in Wait of pl_3 on 2026-10-18…' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('bulk-count')).toHaveText(
    'The service would cancel exactly 8 requests; the first of them:',
  );
  await dialog.getByLabel(/^Reason/).fill('input withdrawn');
  await dialog.getByRole('button', { name: 'Cancel 8 requests' }).click();
  await expect(dialog.getByTestId('bulk-outcomes')).toHaveText(
    '8 accepted, 0 refused, 0 failed — finished.',
    { timeout: 30_000 },
  );
  await expect(dialog.getByTestId('bulk-now')).toHaveText('Of the 8 accepted, now: 8 in Stop.');
  await expect(dialog.getByTestId('bulk-items').locator('li')).toHaveCount(8);
  const stopped = await service.client.requestList({ date: DAY, id: 'pl_3', status: ['Stop'] });
  expect(stopped.info.total).toBe(8);
  await dialog.getByRole('button', { name: 'Close' }).click();
  // The page follows: no waiting request is left.
  await expect(page.getByTestId('range')).toHaveText('1–13 of 13');
  // Exact: a row's refused Cancel carries its reason ("only Wait, Start and Process can").
  await expect(page.locator('tr[data-request]').getByText('Wait', { exact: true })).toHaveCount(0);
});

test('a status the action does not take offers no bulk action for it', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, `/requests?date=${DAY}&status=Finish`);
  await expect(page.getByTestId('range')).toBeVisible();
  await expect(page.getByTestId('bulk-bar')).toHaveCount(0);
  await page.goto(`${service.url}/requests?date=${DAY}&status=Error`);
  await expect(page.getByTestId('bulk-bar').getByRole('button')).toHaveCount(1);
});
