import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, settle, signIn, test, type RunningService } from './fixtures.ts';

// Issue 15: retry and cancel report what the request ended as, not that the service took
// the call; the detail says why a request failed, how far its rows got, and which stages
// never ran.

const CUSTOMERS = 'id,name,mail,country\n7,Ada,ada@example.com,UK\n';
const PHONE = { width: 390, height: 844 };

/** A request of pl_3 that fails in its Sensor: its input file is not in the inbox. */
async function failing(service: RunningService, file: string): Promise<string> {
  const { requestId } = await service.client.exec('pl_3', file);
  await settle(service);
  return requestId as string;
}

test('a retry follows the request and reports it failing again, in the service’s words, then Finish', async ({
  page,
  service,
}) => {
  const first = await failing(service, 'outcome-a.csv');
  const second = await failing(service, 'outcome-b.csv');
  const third = await failing(service, 'outcome-c.csv');
  // Only this test's requests, so that the rows around each one are known.
  await signIn(page, service, undefined, '/requests?pipeline=pl_3&status=Error&q=outcome-');
  const opener = page
    .locator(`tr[data-request="${first}"]`)
    .getByRole('button', { name: `Retry ${first}` });
  await opener.click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  // Accepted first, then what it ended as: Error again, with the reason from its log.
  const outcome = dialog.locator(`[data-request="${first}"]`).getByTestId('action-outcome');
  await expect(outcome).toHaveText(
    'Error again — Input file outcome-a.csv was not found in the inbox or cannot be read.',
    { timeout: 15_000 },
  );
  await expect(outcome).toHaveAttribute('data-tone', 'bad');
  await expect(dialog.getByRole('status')).toHaveText('Every request has ended.');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();

  // A retry that finishes takes its row out of this Error view while the dialog is open, its
  // button along with it: the focus goes to the row that took its place, never to the body.
  writeFileSync(join(service.inbox, 'outcome-c.csv'), CUSTOMERS);
  await page
    .locator(`tr[data-request="${third}"]`)
    .getByRole('button', { name: `Retry ${third}` })
    .click();
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog.getByTestId('action-outcome')).toHaveText('Finish', { timeout: 15_000 });
  await expect(page.locator(`tr[data-request="${third}"]`)).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  // Its neighbour whichever way the list is sorted: the three rows were listed in order.
  await expect(
    page.locator(`tr[data-request="${second}"]`).getByRole('link', { name: second }),
  ).toBeFocused();

  // With the files in place, the selected rows retried together both end in Finish.
  writeFileSync(join(service.inbox, 'outcome-a.csv'), CUSTOMERS);
  writeFileSync(join(service.inbox, 'outcome-b.csv'), CUSTOMERS);
  for (const id of [first, second])
    await page.getByRole('checkbox', { name: `Select ${id}` }).check();
  const bulk = page.getByRole('button', { name: 'Retry selected (2)' });
  await bulk.click();
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  for (const id of [first, second]) {
    const line = dialog.locator(`[data-request="${id}"]`);
    await expect(line).toContainText('✓ accepted');
    await expect(line.getByTestId('action-outcome')).toHaveText('Finish', { timeout: 15_000 });
    await expect(line.getByTestId('action-outcome')).toHaveAttribute('data-tone', 'good');
  }
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  expect((await service.client.requestDetail(first)).status).toBe('Finish');
});

test('a refused cancel shows the service’s own Code and Message, and no outcome', async ({
  page,
  service,
}) => {
  // pl_4 is suspended: its requests wait.
  const { requestId } = await service.client.exec('pl_4', 'orders.csv');
  const id = requestId as string;
  await signIn(page, service, undefined, `/requests/${id}`);
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  // Someone else cancels it first: ours is refused by the service.
  await service.client.cancel(id);
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  const line = dialog.locator(`[data-request="${id}"]`);
  await expect(line).toContainText(/✕ \[\d+\] \S/);
  await expect(line).not.toContainText('✓ accepted');
  await expect(line.getByTestId('action-outcome')).toHaveCount(0);
});

test('a running request shows its rows per stage live, and a cancel reports that it stopped', async ({
  page,
  service,
}) => {
  test.setTimeout(90_000);
  let csv = 'order_id,customer,region,amount,quantity,ordered_at\n';
  for (let i = 0; i < 1_500_000; i++)
    csv += `${i},c${i % 100},EU,${(i % 500) + 10},1,2026-11-20 10:00:00\n`;
  writeFileSync(join(service.inbox, 'live-rows.csv'), csv);
  await signIn(page, service, undefined, '/pipelines');
  const { requestId } = await service.client.exec('pl_1', 'live-rows.csv');
  await page.goto(`${service.url}/requests/${requestId}`);
  // While the page still polls a running request, the Sensor's rows read are on screen.
  await expect
    .poll(
      () =>
        page.evaluate(() => ({
          live: document.body.textContent?.includes('while the request runs') ?? false,
          rows:
            document.querySelector('[data-stage="Sensor"] [data-testid="stage-rows"]')
              ?.textContent ?? '',
        })),
      { timeout: 30_000 },
    )
    .toMatchObject({ live: true, rows: expect.stringMatching(/^[\d,]+ rows? read$/) });
  const cancel = page.getByRole('button', { name: 'Cancel', exact: true });
  await cancel.click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
  await expect(dialog.getByTestId('action-outcome')).toHaveText('Stop', { timeout: 30_000 });
  await expect(dialog.getByTestId('action-outcome')).toHaveAttribute('data-tone', 'good');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(cancel).toBeFocused();
  // The counts the page shows are the service's, grouped.
  const detail = await service.client.requestDetail(requestId as string);
  expect(detail.sensorRows).toBeGreaterThan(0);
  await expect(page.locator('[data-stage="Sensor"] [data-testid="stage-rows"]')).toHaveText(
    `${(detail.sensorRows as number).toLocaleString('en-US')} rows read`,
  );
});

test('a failed request says why in its summary and which stages never ran; an unknown id says so', async ({
  page,
  service,
}) => {
  const id = await failing(service, 'why-missing.csv');
  await signIn(page, service, undefined, `/requests/${id}`);
  await expect(page.getByTestId('failure')).toHaveText(
    'Why it failedInput file why-missing.csv was not found in the inbox or cannot be read.',
  );
  const timeline = page.getByTestId('timeline');
  // It ended in its Sensor; the stages after it never ran.
  await expect(timeline.locator('[data-stage="Sensor"] [data-testid="stage-time"]')).toHaveText(
    'ended here',
  );
  for (const stage of ['Filter', 'Joint'])
    await expect(timeline.locator(`[data-stage="${stage}"] [data-testid="stage-time"]`)).toHaveText(
      'did not run',
    );
  await expect(timeline).not.toContainText('not yet');

  const unknown = 'pl_3-20261122_01-999999';
  await page.goto(`${service.url}/requests/${unknown}`);
  await expect(page.getByRole('heading', { name: 'No such request' })).toBeVisible();
  await expect(page.getByTestId('unknown-request')).toContainText(
    `The service has no request ${unknown}.`,
  );
  await expect(page.getByRole('link', { name: 'Requests of 2026-11-22' })).toBeVisible();
});

test('on a 390 px phone the log’s messages are in view without sideways scrolling, and the log and raw views take focus', async ({
  page,
  service,
}) => {
  const id = await failing(service, 'phone-missing.csv');
  await page.setViewportSize(PHONE);
  await signIn(page, service, undefined, `/requests/${id}`);
  const log = page.getByRole('table', { name: 'Log lines' });
  const message = log
    .getByRole('row')
    .filter({ hasText: 'phone-missing.csv was not found' })
    .getByRole('cell')
    .last();
  await expect(message).toBeVisible();
  const box = await message.boundingBox();
  expect(box, 'the message cell').not.toBeNull();
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    PHONE.width,
  );
  await log.focus();
  await expect(log).toBeFocused();
  await page.goto(`${service.url}/requests/${id}?tab=raw`);
  const raw = page.getByRole('region', { name: 'Raw response text' });
  await expect(raw).toContainText(id);
  await raw.focus();
  await expect(raw).toBeFocused();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    PHONE.width,
  );
});
