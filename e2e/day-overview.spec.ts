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
  // The first paint's own calls end before the listening starts: the latest errors and
  // their messages (the sign-in page's network idle, reached long before, does not wait).
  const latest = page.getByTestId('latest-errors').locator('li');
  await expect(latest).toHaveCount(5);
  await expect(latest.filter({ hasText: '…' })).toHaveCount(0);
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

// Another past day, for the layout of the chart and the latest errors.
const BUSY_DAY = '20261019';
// A day nothing ran on.
const EMPTY_DAY = '20200101';
const PHONE = { width: 390, height: 844 };

test.describe('layout', () => {
  test.beforeAll(({ service }) => {
    seedDay(service, BUSY_DAY, [
      { pipelineId: 'pl_2', status: 'Error', count: 2, hour: 1, message: 'disk full' },
      {
        pipelineId: 'pl_3',
        status: 'Error',
        count: 2,
        hour: 3,
        message:
          'the reading file could not be opened because the volume that holds the inbox was unmounted during the run',
      },
      { pipelineId: 'pl_2', status: 'Finish', count: 12_345, hour: 10 },
    ]);
  });

  test('the count axis has whole-number ticks, 0 and 1 on an empty day', async ({
    page,
    service,
  }) => {
    await signIn(page, service, undefined, `/?date=${EMPTY_DAY}`);
    const chart = page.getByTestId('hourly-chart');
    await expect(chart.locator('canvas')).toHaveCount(1);
    await expect(chart).toHaveAttribute('data-count-ticks', '0 1');
    await page.goto(`${service.url}/?date=${BUSY_DAY}`);
    await expect(chart).toHaveAttribute('data-count-ticks', '0 5000 10000 15000');
  });

  for (const [width, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', PHONE],
  ] as const) {
    test(`the latest errors' Retry buttons line up on the right: ${width}`, async ({
      page,
      service,
    }) => {
      await page.setViewportSize(viewport);
      await signIn(page, service, undefined, `/?date=${BUSY_DAY}`);
      const buttons = page.getByTestId('latest-error-retry');
      await expect(buttons).toHaveCount(4);
      const rights = new Set<number>();
      for (const button of await buttons.all()) {
        const box = await button.boundingBox();
        if (box) rights.add(Math.round(box.x + box.width));
      }
      expect([...rights], 'right edges of the Retry buttons').toHaveLength(1);
    });
  }

  test('at 390 px the overview keeps the Total in view, with no sideways scrolling', async ({
    page,
    service,
  }) => {
    await page.setViewportSize(PHONE);
    await signIn(page, service, undefined, `/?date=${BUSY_DAY}`);
    const table = page.getByTestId('by-pipeline');
    await expect(table.locator('tr[data-pipeline="pl_2"] td[data-status="total"]')).toHaveText(
      '12,347',
    );
    const total = table.getByRole('columnheader', { name: 'Total' });
    await expect(total).toBeInViewport({ ratio: 1 });
    const box = await total.boundingBox();
    expect(box && box.x + box.width, 'right edge of Total').toBeLessThanOrEqual(PHONE.width);
    // Nor is the table's own box scrolled to show it.
    const scroll = await table.evaluate((element) => {
      const box = element.parentElement as HTMLElement;
      return { scrollWidth: box.scrollWidth, clientWidth: box.clientWidth };
    });
    expect(scroll.scrollWidth).toBeLessThanOrEqual(scroll.clientWidth);
    const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(pageWidth, 'page width').toBeLessThanOrEqual(PHONE.width);
  });
});
