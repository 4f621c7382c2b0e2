import { seedDay } from './day-seed.ts';
import { expect, signIn, test } from './fixtures.ts';

// A past day of its own (each spec file seeds a different one: a worker's service is shared).
const DAY = '20261016';
const grouped = (n: number) => n.toLocaleString('en-US');

test.beforeAll(({ service }) => {
  seedDay(service, DAY, [
    { pipelineId: 'pl_2', status: 'Error', count: 37, hour: 2, message: 'disk full' },
    { pipelineId: 'pl_2', status: 'Finish', count: 2400, hour: 9 },
    { pipelineId: 'pl_3', status: 'Finish', count: 150, hour: 13 },
    { pipelineId: 'pl_3', status: 'Wait', count: 6, hour: 13 },
    // A status the contract does not name: statuses are an open set.
    { pipelineId: 'pl_1', status: 'Held', count: 4, hour: 20 },
  ]);
});

test('shows the day’s exact counts per pipeline and status, as requeststats and requestlist tell them', async ({
  page,
  service,
}) => {
  const stats = await service.client.requestStats({ date: DAY });
  expect(stats.total).toBe(2597);
  await signIn(page, service, undefined, `/?date=${DAY}`);
  const table = page.getByTestId('by-pipeline');
  await expect(page.getByTestId('day-total')).toContainText(grouped(2597));
  for (const pipeline of stats.pipelines.filter((p) => p.counts.length > 0)) {
    const row = table.locator(`tr[data-pipeline="${pipeline.id}"]`);
    for (const { status, value } of pipeline.counts) {
      await expect(row.locator(`td[data-status="${status}"]`)).toHaveText(grouped(value));
      // The same count as a filtered request list's Total: two answers of the service agree.
      const list = await service.client.requestList({
        date: DAY,
        id: pipeline.id,
        status: [status],
        pageSize: 1,
      });
      expect(list.info.total).toBe(value);
    }
    const total = pipeline.counts.reduce((n, c) => n + c.value, 0);
    await expect(row.locator('td[data-status="total"]')).toHaveText(grouped(total));
  }
  // The unknown status has a column of its own, and the banner names it.
  await expect(table.getByRole('columnheader', { name: 'Held' })).toBeVisible();
  await expect(table.locator('tr[data-pipeline="pl_1"] td[data-status="Held"]')).toHaveText('4');
  await expect(page.getByTestId('other-states')).toContainText('4 Held');
  // The chart's table for screen readers has the hours as the service counted them.
  const hours = page.locator('figure table');
  await expect(hours.locator('tr', { hasText: '09:00' }).locator('td')).toHaveText(grouped(2400));
  await expect(hours.locator('tr', { hasText: '13:00' }).locator('td')).toHaveText('156');
});

test('the error count links to that day’s errors on the requests page', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, `/?date=${DAY}`);
  const link = page.getByTestId('error-count');
  await expect(link).toHaveText('37 requests in Error');
  await expect(page.getByTestId('latest-errors').locator('li')).toHaveCount(5);
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/requests\\?date=${DAY}&status=Error`));
  const errors = await service.client.requestList({ date: DAY, status: ['Error'] });
  await expect(page.getByTestId('range')).toHaveText(`1–37 of ${errors.info.total}`);
  await expect(page.locator('tbody tr[data-request]').first()).toHaveAttribute(
    'data-request',
    errors.requests[0]?.requestId as string,
  );
});

test('a refresh of the overview downloads the counts alone, a few KB', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, `/?date=${DAY}`);
  await expect(page.getByTestId('day-total')).toBeVisible();
  await page.waitForLoadState('networkidle');
  const calls: { url: string; bytes: number }[] = [];
  page.on('requestfinished', (request) => {
    if (!request.url().includes('/pipelineapi/')) return;
    void request.sizes().then((sizes) => {
      calls.push({ url: request.url(), bytes: sizes.responseBodySize + sizes.responseHeadersSize });
    });
  });
  // The default auto-refresh is 5 s: wait for two refreshes.
  await expect
    .poll(() => calls.filter((c) => c.url.includes('/requeststats/')).length, { timeout: 20_000 })
    .toBeGreaterThanOrEqual(2);
  // Nothing but the counts (and the pipelines' own 30 s check, if it falls in between).
  expect(calls.filter((c) => !/\/(requeststats|list)\//.test(c.url))).toEqual([]);
  for (const call of calls.filter((c) => c.url.includes('/requeststats/')))
    expect(call.bytes).toBeLessThan(20 * 1024);
});
