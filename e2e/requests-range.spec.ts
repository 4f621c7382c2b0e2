import { seedDay } from './day-seed.ts';
import { expect, signIn, test } from './fixtures.ts';

// Issue 25, item 5: the requests page over several days (at most 31) with exact totals and
// each request's day; search by file name and by error text; "Go to request" opens any id
// on its own day. Item 7: on a phone the first row is on the first screen.

// Past days of their own (a worker's service is shared by the spec files it runs).
const DAYS = ['20260903', '20260904', '20260905'] as const;
const FILE = 'range-ledger-0903.csv';
const ERROR = 'ledger locked by the nightly close';
const PHONE = { width: 390, height: 844 };

let ids: string[][] = [];

test.beforeAll(({ service }) => {
  ids = [
    ...seedDay(service, DAYS[0], [
      { pipelineId: 'pl_2', status: 'Error', count: 3, hour: 4, filename: FILE, message: ERROR },
      { pipelineId: 'pl_2', status: 'Finish', count: 5, hour: 10 },
    ]),
    ...seedDay(service, DAYS[1], [{ pipelineId: 'pl_1', status: 'Finish', count: 7, hour: 9 }]),
    ...seedDay(service, DAYS[2], [{ pipelineId: 'pl_3', status: 'Stop', count: 2, hour: 8 }]),
  ];
});

test('several days: exact totals and counts per status, each request with its day, and a range too long refused', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, `/requests?date=${DAYS[1]}`);
  await page.getByRole('button', { name: 'Several days' }).click();
  // It opens on the week up to the day shown.
  await expect(page).toHaveURL(/from=20260829&to=20260904/);
  await page.getByLabel('From', { exact: true }).fill('2026-09-03');
  await page.getByLabel('To', { exact: true }).fill('2026-09-05');
  await expect(page).toHaveURL(/from=20260903&to=20260905/);

  const summary = page.getByTestId('range-summary');
  await expect(page.getByTestId('range-total')).toHaveText(
    '17 requests from 2026-09-03 to 2026-09-05',
  );
  await expect(summary).toHaveAttribute('data-exact', 'true');
  await expect(page.getByTestId('range-partial')).toHaveCount(0);
  for (const [status, count] of [
    ['Error', '3'],
    ['Finish', '12'],
    ['Stop', '2'],
  ] as const)
    await expect(summary.locator(`[data-status="${status}"]`)).toContainText(count);
  const table = page.getByTestId('range-table');
  await expect(table.locator('tbody tr[data-request]')).toHaveCount(17);
  // Newest day first, each row with its day.
  await expect(table.locator('tbody tr[data-request]').first()).toHaveAttribute(
    'data-day',
    DAYS[2],
  );
  await expect(table.locator(`tr[data-request="${ids[0]?.[0]}"]`)).toContainText('2026-09-03');
  await expect(page.getByTestId('range')).toHaveText('1–17 of 17');

  // More than 31 days is refused where it is picked, saying why; the list stays as it was.
  await page.getByLabel('From', { exact: true }).fill('2026-07-01');
  await expect(page.getByTestId('range-refused')).toHaveText(
    '2026-07-01 to 2026-09-05 is 67 days; a range is at most 31 days.',
  );
  await expect(page).toHaveURL(/from=20260903&to=20260905/);
  await expect(page.getByTestId('range-total')).toContainText('17 requests');

  // Back to one day: that day's list, from the service's own request list.
  await page.getByRole('button', { name: 'One day' }).click();
  await expect(page).toHaveURL(/date=20260905/);
  await expect(page.getByTestId('requests-table').locator('tbody tr[data-request]')).toHaveCount(2);
});

test('on a slow phone, From then To picked before the page catches up both stay', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, `/requests?from=20260829&to=20260904`);
  await expect(page.getByTestId('range-summary')).toBeVisible();
  // A phone's CPU: the page renders a new URL later than the next pick arrives, and each
  // pick must build on the one before it, not on the URL last rendered.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
  const from = page.getByLabel('From', { exact: true });
  const to = page.getByLabel('To', { exact: true });
  await from.fill('2026-09-03');
  await to.fill('2026-09-05');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await expect(page).toHaveURL(/from=20260903&to=20260905/);
  await expect(from).toHaveValue('2026-09-03');
  await expect(to).toHaveValue('2026-09-05');
  await expect(page.getByTestId('range-total')).toHaveText(
    '17 requests from 2026-09-03 to 2026-09-05',
  );

  // A refused day stays in its field beside the reason; the list and the URL keep the last
  // good range, and the next pick is judged with what the fields show.
  await from.fill('2026-07-01');
  await expect(page.getByTestId('range-refused')).toContainText('67 days');
  await expect(from).toHaveValue('2026-07-01');
  await expect(page).toHaveURL(/from=20260903&to=20260905/);
  await to.fill('2026-07-20');
  await expect(page.getByTestId('range-refused')).toHaveCount(0);
  await expect(page).toHaveURL(/from=20260701&to=20260720/);
});

test('on a slow phone, a pipeline then a search picked before the page catches up both stay', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, `/requests?date=${DAYS[0]}`);
  const rows = page.getByTestId('requests-table').locator('tbody tr[data-request]');
  await expect(rows).toHaveCount(8);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
  await page.getByRole('combobox', { name: /^Pipeline/ }).selectOption('pl_2');
  const search = page.getByRole('searchbox', { name: 'Search', exact: true });
  await search.fill('ledger-0903');
  await search.press('Enter');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await expect(page).toHaveURL(/pipeline=pl_2/);
  await expect(page).toHaveURL(/q=ledger-0903/);
  await expect(rows).toHaveCount(3);
});

test('over several days a request is found by its file name and by its error text', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, `/requests?from=${DAYS[0]}&to=${DAYS[2]}`);
  const rows = page.getByTestId('range-table').locator('tbody tr[data-request]');
  await expect(rows).toHaveCount(17);
  const search = page.getByRole('searchbox', { name: 'Search', exact: true });
  await expect(search).toHaveAttribute('placeholder', 'Request id, file or error');

  await search.fill('ledger-0903');
  await search.press('Enter');
  await expect(page.getByTestId('range-total')).toHaveText(
    '3 requests from 2026-09-03 to 2026-09-05',
  );
  await expect(rows).toHaveCount(3);
  for (const id of ids[0] ?? [])
    await expect(page.locator(`tr[data-request="${id}"]`)).toBeVisible();

  await search.fill('LOCKED by the nightly');
  await search.press('Enter');
  await expect(page).toHaveURL(/q=LOCKED/);
  await expect(page.getByTestId('range-total')).toHaveText(
    '3 requests from 2026-09-03 to 2026-09-05',
  );
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toHaveAttribute('data-day', DAYS[0]);

  await search.fill('nothing-like-this');
  await search.press('Enter');
  await expect(page.getByTestId('range-total')).toHaveText(
    '0 requests from 2026-09-03 to 2026-09-05',
  );
  await expect(page.getByTestId('range-table')).toContainText(
    'No request of these days matches these filters.',
  );
});

test('“Go to request” opens an id of any day at once, whatever day the page shows', async ({
  page,
  service,
}) => {
  const other = ids[3]?.[0] as string;
  // The page shows another day than the request's.
  await signIn(page, service, undefined, `/requests?date=${DAYS[0]}`);
  await page.getByLabel('Go to request').fill(other);
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/requests/${other}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(other);
  // Text that names no day is still looked for in the day shown, and said missing.
  await page.goto(`${service.url}/requests?date=${DAYS[0]}`);
  await page.getByLabel('Go to request').fill('no-such-request');
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await expect(page.getByTestId('jump-answer')).toHaveText(
    'There is no request no-such-request on 2026-09-03.',
  );
});

test('on a 390 px phone the first request row is on the first screen, the filters behind a button', async ({
  page,
  service,
}) => {
  await page.setViewportSize(PHONE);
  await signIn(page, service, undefined, `/requests?date=${DAYS[1]}`);
  const first = page.getByTestId('requests-table').locator('tbody tr[data-request]').first();
  await expect(first).toBeVisible();
  const box = await first.boundingBox();
  expect(box, 'the first row').not.toBeNull();
  expect((box?.y ?? PHONE.height) + (box?.height ?? 0)).toBeLessThanOrEqual(PHONE.height);

  // The filters' button says what they are set to, opens them, and Escape closes them.
  const toggle = page.getByTestId('filters-toggle');
  await expect(toggle).toContainText('2026-09-04');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByRole('combobox', { name: /^Pipeline/ })).toBeHidden();
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByRole('combobox', { name: /^Pipeline/ })).toBeVisible();
  await page.getByRole('combobox', { name: /^Pipeline/ }).focus();
  await page.keyboard.press('Escape');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(toggle).toBeFocused();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    PHONE.width,
  );
});
