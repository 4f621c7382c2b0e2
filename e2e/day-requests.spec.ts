import { seedDay } from './day-seed.ts';
import { expect, signIn, test } from './fixtures.ts';

// A past day of 2,345 requests, far more than a page: the 37 errors are the day's oldest,
// so that they sit on its last pages, as in the issue (errors at index 99,000 of 100,006).
const DAY = '20261015';
const grouped = (n: number) => n.toLocaleString('en-US');
let errorIds: string[] = [];

test.beforeAll(({ service }) => {
  const [errors] = seedDay(service, DAY, [
    {
      pipelineId: 'pl_2',
      status: 'Error',
      count: 37,
      hour: 3,
      filename: 'readings-07.jsonl',
      message: 'disk full on reader 7',
    },
    { pipelineId: 'pl_2', status: 'Finish', count: 2000, hour: 9 },
    { pipelineId: 'pl_3', status: 'Finish', count: 300, hour: 14 },
    { pipelineId: 'pl_3', status: 'Wait', count: 5, hour: 15 },
    { pipelineId: 'pl_1', status: 'Stop', count: 3, hour: 16 },
  ]);
  errorIds = errors ?? [];
});

test('filters by status and searches on the server, with the view and an exact total in the URL', async ({
  page,
  service,
}) => {
  const day = await service.client.requestList({ date: DAY, pageSize: 1 });
  expect(day.info.total).toBe(2345);
  await signIn(page, service, undefined, `/requests?date=${DAY}&size=50`);
  await expect(page.getByTestId('range')).toHaveText(`1–50 of ${grouped(2345)}`);

  await page.getByTestId('status-filter').locator('summary').click();
  await page.getByRole('checkbox', { name: 'Error', exact: true }).check();
  await expect(page).toHaveURL(/status=Error(&|$)/);
  const errors = await service.client.requestList({ date: DAY, status: ['Error'], pageSize: 50 });
  await expect(page.getByTestId('range')).toHaveText(`1–37 of ${errors.info.total}`);
  // The table draws only the rows in view: each of them is one of the service's, in order.
  await expect(page.locator('tbody tr[data-request]').first()).toHaveAttribute(
    'data-request',
    errors.requests[0]?.requestId as string,
  );
  const shown = await page
    .locator('tbody tr[data-request]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-request')));
  const expected = errors.requests.map((r) => r.requestId);
  expect(shown.length).toBeGreaterThan(5);
  expect(shown).toEqual(expected.slice(0, shown.length));

  // A second status: both, as the service counts them, and the URL names both.
  await page.getByRole('checkbox', { name: 'Wait', exact: true }).check();
  await expect(page).toHaveURL(/status=Wait%2CError|status=Wait,Error/);
  const both = await service.client.requestList({ date: DAY, status: ['Error', 'Wait'] });
  await expect(page.getByTestId('range')).toHaveText(`1–42 of ${both.info.total}`);

  // A reload shows the same view: it is all in the URL.
  await page.reload();
  await expect(page.getByTestId('range')).toHaveText(`1–42 of ${both.info.total}`);
  await expect(page.getByTestId('status-filter').locator('summary')).toHaveText('Wait, Error');

  // The search runs on the service too: here, on the error message.
  await page.getByTestId('status-filter').locator('summary').click();
  await page.getByRole('button', { name: 'All statuses' }).click();
  await page.getByRole('searchbox', { name: 'Search' }).fill('reader 7');
  await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
  await expect(page).toHaveURL(/q=reader\+7/);
  await expect(page).not.toHaveURL(/status=/);
  const found = await service.client.requestList({ date: DAY, q: 'reader 7' });
  expect(found.info.total).toBe(37);
  await expect(page.getByTestId('range')).toHaveText(`1–37 of ${found.info.total}`);
  await page.getByRole('searchbox', { name: 'Search' }).fill('nothing like this');
  await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
  await expect(page.getByText('No request of this day matches these filters.')).toBeVisible();
});

test('goes to the first and the last page, with grouped numbers', async ({ page, service }) => {
  await signIn(page, service, undefined, `/requests?date=${DAY}&size=100`);
  await expect(page.getByTestId('range')).toHaveText(`1–100 of ${grouped(2345)}`);
  await expect(page.getByRole('button', { name: 'First page' })).toBeDisabled();
  await page.getByRole('button', { name: 'Last page' }).click();
  await expect(page).toHaveURL(/index=2300/);
  await expect(page.getByTestId('range')).toHaveText(
    `${grouped(2301)}–${grouped(2345)} of ${grouped(2345)}`,
  );
  await expect(page.getByRole('button', { name: 'Last page' })).toBeDisabled();
  // The last page holds the day's oldest requests: its errors.
  const last = await service.client.requestList({ date: DAY, index: 2300, pageSize: 100 });
  await expect(page.locator('tbody tr[data-request]').first()).toHaveAttribute(
    'data-request',
    last.requests[0]?.requestId as string,
  );
  await page
    .getByTestId('requests-table')
    .locator('..')
    .evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(page.locator(`tr[data-request="${errorIds[0]}"]`)).toContainText('Error');
  await page.getByRole('button', { name: 'First page' }).click();
  await expect(page).not.toHaveURL(/index=/);
  await expect(page.getByTestId('range')).toHaveText(`1–100 of ${grouped(2345)}`);
});

test('jumps to a request, opening an id on its own day, or says plainly that the day has none such', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, `/requests?date=${DAY}`);
  const box = page.getByRole('textbox', { name: 'Go to request' });
  const missing = `pl_2-${DAY}_03-999999`;
  await box.fill(missing);
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  // An id names its day: it opens at once (issue 25), and its page says there is none such.
  await expect(page).toHaveURL(new RegExp(`/requests/${missing}$`));
  await expect(page.getByTestId('unknown-request')).toContainText(
    `The service has no request ${missing}.`,
  );
  await page.goBack();
  // Text that is no id is looked for in the day; a prefix of a real id is not that id.
  await box.fill('pl_2-no-such');
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await expect(page.getByTestId('jump-answer')).toHaveText(
    'There is no request pl_2-no-such on 2026-10-15.',
  );
  await box.fill((errorIds[0] as string).slice(0, -1));
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await expect(page.getByTestId('jump-answer')).toContainText('There is no request');
  await box.fill(errorIds[0] as string);
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/requests/${errorIds[0]}$`));
  await expect(page.getByRole('heading', { name: errorIds[0] as string })).toBeVisible();
});

test('a refresh asks only what changed since the page was read, and nothing more', async ({
  page,
  service,
}) => {
  // The page's own timer off (Settings' refresh: Off), so that the only read after the page's
  // first is the Refresh clicked, however long the machine takes between the two.
  await page.addInitScript(() =>
    localStorage.setItem('pipeline-dashboard.preferences', JSON.stringify({ refreshSeconds: 0 })),
  );
  await signIn(page, service, undefined, `/requests?date=${DAY}&status=Error&size=50`);
  await expect(page.getByTestId('range')).toHaveText('1–37 of 37');
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/pipelineapi/')) asked.push(request.url());
  });
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await expect.poll(() => asked.length).toBeGreaterThan(0);
  await page.waitForLoadState('networkidle');
  expect(asked).toHaveLength(1);
  const url = new URL(asked[0] as string);
  expect(url.pathname).toMatch(/\/requestlist\//);
  // Any status (a request may have left the filter), since the page's AsOf; nothing changed
  // on that past day, so the page itself is not read again.
  expect(Object.fromEntries(url.searchParams)).toMatchObject({ date: DAY, pagesize: '500' });
  expect(url.searchParams.get('since')).toMatch(/^\d{14}$/);
  expect(url.searchParams.has('status')).toBe(false);
});
