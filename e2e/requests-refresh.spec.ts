import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, settle, signIn, test } from './fixtures.ts';

// Issue 14, "cheap refresh": the requests page reads its page once, and each refresh after
// asks only for what changed since the page's AsOf, merging it where it stays exact.

/** The request-list calls the page makes for its rows: full reads and `since` reads. */
function watchListCalls(page: Page, size: number) {
  const calls: { since: boolean }[] = [];
  page.on('request', (request) => {
    if (!request.url().includes('/pipelineapi/requestlist/')) return;
    const params = new URL(request.url()).searchParams;
    if (params.has('since')) calls.push({ since: true });
    else if (params.get('pagesize') === String(size)) calls.push({ since: false });
  });
  return {
    full: () => calls.filter((c) => !c.since).length,
    since: () => calls.filter((c) => c.since).length,
  };
}

test('a refresh reads only what changed, and updates the row where it is', async ({
  page,
  service,
}) => {
  const file = `refresh-${Date.now()}.jsonl`;
  const failed = (await service.client.exec('pl_2', file)).requestId as string;
  await settle(service);
  expect((await service.client.requestDetail(failed)).status).toBe('Error');
  const calls = watchListCalls(page, 50);
  await signIn(page, service, undefined, `/requests?pipeline=pl_2&q=${file}&size=50`);
  const row = page.locator(`tbody tr[data-request="${failed}"]`);
  await expect(row).toContainText('Error');
  expect(calls.full()).toBe(1);
  // The file arrives and the request is retried elsewhere (another operator, pipelinectl).
  writeFileSync(join(service.inbox, file), '{"probe":"T-1","celsius":20,"status":"ok"}\n');
  expect((await service.client.retry(failed)).status).toBe('OK');
  await settle(service);
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await expect(row).toContainText('Finish');
  expect(calls.since()).toBeGreaterThanOrEqual(1);
  // Updated in place from the `since` answer: the page itself was not read again.
  expect(calls.full()).toBe(1);
  await expect(page.getByTestId('range')).toHaveText('1–1 of 1');
});

test('a request that leaves the status filter makes the page read again, exactly', async ({
  page,
  service,
}) => {
  const file = `leaves-${Date.now()}.jsonl`;
  const first = (await service.client.exec('pl_2', file)).requestId as string;
  const second = (await service.client.exec('pl_2', file)).requestId as string;
  await settle(service);
  const calls = watchListCalls(page, 50);
  await signIn(page, service, undefined, `/requests?pipeline=pl_2&q=${file}&status=Error&size=50`);
  await expect(page.getByTestId('range')).toHaveText('1–2 of 2');
  writeFileSync(join(service.inbox, file), '{"probe":"T-1","celsius":20,"status":"ok"}\n');
  expect((await service.client.retry(first)).status).toBe('OK');
  await settle(service);
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await expect(page.getByTestId('range')).toHaveText('1–1 of 1');
  await expect(page.locator('tbody tr[data-request]')).toHaveCount(1);
  await expect(page.locator(`tbody tr[data-request="${second}"]`)).toBeVisible();
  expect(calls.full()).toBe(2);
});
