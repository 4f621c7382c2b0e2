import type { Page, Route } from '@playwright/test';
import { seedDay } from './day-seed.ts';
import { expect, settle, signIn, test, unlessAbandoned } from './fixtures.ts';

/**
 * A vendor's service words statuses its own way and has its own today. The embedded
 * service does not, so these specs rewrite its answers in the browser's network layer.
 */
type Json = Record<string, unknown>;

async function rewrite(page: Page, pattern: string, change: (body: Json, url: URL) => void) {
  await page.route(pattern, (route: Route) =>
    unlessAbandoned(async () => {
      const response = await route.fetch();
      const body = (await response.json()) as Json;
      change(body, new URL(route.request().url()));
      // The service's own media type kept: only the body is rewritten.
      await route.fulfill({ response, body: JSON.stringify(body) });
    }),
  );
}

function requestListOf(body: Json): { Info: Json; Request: Json[] } {
  const root = (body.RequestList ?? body) as { Info: Json; Request?: Json[] | Json };
  const requests = Array.isArray(root.Request) ? root.Request : root.Request ? [root.Request] : [];
  return { Info: root.Info, Request: requests };
}

test('the default day is the service’s today, from a requestlist without date', async ({
  page,
  service,
}) => {
  await rewrite(page, '**/pipelineapi/requestlist/**', (body, url) => {
    if (!url.searchParams.has('date')) requestListOf(body).Info.Date = '20200102';
  });
  await signIn(page, service, undefined, '/requests');
  await expect(page.getByLabel('Date', { exact: true })).toHaveValue('2020-01-02');
  await page.goto(`${service.url}/`);
  await expect(page.getByLabel('Day', { exact: true })).toHaveValue('2020-01-02');
});

test('unknown statuses are shown as they are, filterable, counted, and both actions offered', async ({
  page,
  service,
}) => {
  // Written into the service itself, since the filter and the counts are the service's now.
  const day = '20261017';
  seedDay(service, day, [
    { pipelineId: 'pl_2', status: 'Finish', count: 2, hour: 8 },
    { pipelineId: 'pl_2', status: 'Abort', count: 3, hour: 9 },
  ]);
  await signIn(page, service, undefined, `/requests?date=${day}`);
  const aborted = page.locator('tr[data-request]', { hasText: 'Abort' }).first();
  await expect(aborted).toBeVisible();
  const requestId = (await aborted.getAttribute('data-request')) as string;
  await expect(aborted.getByRole('button', { name: `Retry ${requestId}` })).toBeEnabled();
  await expect(aborted.getByRole('button', { name: `Cancel ${requestId}` })).toBeEnabled();
  await page.getByTestId('status-filter').locator('summary').click();
  await page.getByRole('checkbox', { name: 'Abort', exact: true }).check();
  await expect(page).toHaveURL(/status=Abort/);
  await expect(page.getByTestId('range')).toHaveText('1–3 of 3');
  await expect(page.locator('tr[data-request]', { hasText: 'Finish' })).toHaveCount(0);

  // The service refuses to cancel a request in a state it does not run; its words are shown.
  await page
    .locator(`tr[data-request="${requestId}"]`)
    .getByRole('button', { name: `Cancel ${requestId}` })
    .click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog).toContainText('✕');
  await dialog.getByRole('button', { name: 'Close' }).click();

  await page.goto(`${service.url}/?date=${day}`);
  await expect(
    page.getByTestId('by-pipeline').getByRole('columnheader', { name: 'Abort' }),
  ).toBeVisible();
  await expect(page.getByTestId('other-states')).toContainText('3 Abort');
});

test('a request with an EndTime is not polled, whatever its status word', async ({
  page,
  service,
}) => {
  await settle(service);
  const list = await service.client.requestList({ pageSize: 1000 });
  const done = list.requests.find((r) => r.status === 'Finish');
  expect(done).toBeDefined();
  const requestId = done?.requestId as string;
  let calls = 0;
  await rewrite(page, '**/pipelineapi/requestdetail/**', (body) => {
    calls += 1;
    const detail = (body.RequestDetail ?? body) as Json;
    detail.Status = 'Running';
  });
  await signIn(page, service, undefined, `/requests/${requestId}`);
  await expect(page.getByRole('heading', { name: requestId })).toBeVisible();
  await expect(page.getByText('Running').first()).toBeVisible();
  const seen = calls;
  await page.waitForTimeout(5000);
  expect(calls).toBe(seen);
});
