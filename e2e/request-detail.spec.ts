import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, settle, signIn, test } from './fixtures.ts';

// Counts are grouped as everywhere in the dashboard ("3,010 lines").
const grouped = (n: number) => n.toLocaleString('en-US');

test('searches thousands of log lines with next and previous, keeps the DOM small, and downloads every line', async ({
  page,
  service,
}) => {
  writeFileSync(join(service.inbox, 'one.csv'), 'n\n1\n');
  const { requestId } = await service.client.exec('pl_8', 'one.csv');
  await settle(service);
  const detail = await service.client.requestDetail(requestId as string, { requestLog: true });
  const total = detail.requestLog?.length ?? 0;
  expect(total).toBeGreaterThan(3000);
  await signIn(page, service, undefined, `/requests/${requestId}`);
  await expect(page.getByTestId('match-count')).toHaveText(`${grouped(total)} lines`);
  // Virtualized: far fewer rows in the DOM than lines in the log.
  expect(await page.locator('[role="row"][aria-rowindex]').count()).toBeLessThan(100);
  await page.getByRole('searchbox').fill('derive step1499');
  await expect(page.getByTestId('match-count')).toHaveText('1 of 1');
  await expect(page.getByRole('row', { name: /derive step1499/ })).toBeVisible();
  await page.getByRole('searchbox').fill('step149');
  await expect(page.getByTestId('match-count')).toHaveText('1 of 11');
  await page.getByRole('button', { name: 'Next match' }).click();
  await expect(page.getByTestId('match-count')).toHaveText('2 of 11');
  await page.getByRole('button', { name: 'Previous match' }).click();
  await page.getByRole('button', { name: 'Previous match' }).click();
  await expect(page.getByTestId('match-count')).toHaveText('11 of 11');
  await page.getByLabel('Stage').selectOption('Filter');
  await page.getByRole('searchbox').fill('');
  const filterLines = detail.requestLog?.filter((l) => l.stage === 'Filter').length ?? 0;
  await expect(page.getByTestId('match-count')).toHaveText(
    `${grouped(filterLines)} of ${grouped(total)} lines`,
  );
  // The stage filter is in the URL: a reload shows the same lines.
  await expect(page).toHaveURL(/[?&]group=Filter(&|$)/);
  await page.reload();
  await expect(page.getByTestId('match-count')).toHaveText(
    `${grouped(filterLines)} of ${grouped(total)} lines`,
  );
  await page.getByLabel('Stage').selectOption('');
  // Every line again before the download: on a loaded machine a click could come before the
  // stage filter's change was applied, and download the Filter's lines alone.
  await expect(page.getByTestId('match-count')).toHaveText(`${grouped(total)} lines`);
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download' }).click();
  const file = await (await downloading).path();
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  expect(lines[0]).toBe('Date\tStage\tEvent\tStatus\tActionOrder\tMessage');
  expect(lines).toHaveLength(total + 1);
  expect(lines.at(-1)).toContain('Request finished');
  await page.getByLabel('Wrap lines').check();
  await page.reload();
  await expect(page.getByLabel('Wrap lines')).toBeChecked();
});

test('renders a hostile log line as text', async ({ page, service }) => {
  writeFileSync(
    join(service.inbox, 'hostile.csv'),
    'n\n"<img src=x onerror=""window.hacked=1"">"\n',
  );
  const { requestId } = await service.client.exec('pl_7', 'hostile.csv');
  await settle(service);
  await signIn(page, service, undefined, `/requests/${requestId}?tab=app`);
  const line = page.getByRole('row', { name: /is not an integer/ });
  await expect(line).toContainText(
    'cast: n value "<img src=x onerror=\\"window.hacked=1\\">" is not an integer',
  );
  await expect(page.locator('[role="table"] img')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { hacked?: number }).hacked),
  ).toBeUndefined();
});

test('shows the raw response and copies the call as curl with the key masked unless revealed', async ({
  page,
  service,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const requestId = (await service.client.requestList({ id: 'pl_1', index: 0, pageSize: 1 }))
    .requests[0]?.requestId as string;
  // Signed in with the key straight onto the raw tab: a goto right after the click could leave
  // before the key reached sessionStorage, and land on sign-in again (CI saw it once).
  await page.goto(
    `${service.url}/sign-in?next=${encodeURIComponent(`/requests/${requestId}?tab=raw`)}`,
  );
  await page.getByRole('tab', { name: 'API key' }).click();
  await page.getByLabel('API key').fill(service.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('identity')).toHaveText('API key');
  await expect(page.getByTestId('raw')).toContainText(`<RequestId>${requestId}</RequestId>`);
  await expect(page.getByTestId('curl')).toContainText("-H 'X-Pipelinewebapi: ••••••••'");
  await expect(page.getByTestId('curl')).not.toContainText(service.apiKey);
  await page.getByRole('button', { name: 'Copy as curl' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).not.toContain(service.apiKey);
  await page.getByRole('button', { name: 'Reveal credentials' }).click();
  await expect(page.getByTestId('curl')).toContainText(service.apiKey);
  await page.getByLabel('Format').selectOption('json');
  await expect(page.getByTestId('raw')).toContainText('"RequestDetail"');
});

test('stops polling once the request is terminal', async ({ page, service }) => {
  const requestId = (await service.client.requestList({ id: 'pl_1', pageSize: 1 })).requests[0]
    ?.requestId as string;
  await signIn(page, service, undefined, `/requests/${requestId}`);
  await expect(page.getByTestId('timeline')).toBeVisible();
  let calls = 0;
  page.on('request', (r) => {
    if (r.url().includes('/pipelineapi/requestdetail/')) calls++;
  });
  await page.waitForTimeout(4500);
  expect(calls).toBe(0);
});
