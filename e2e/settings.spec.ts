import { expect, OPERATOR, signIn, test } from './fixtures.ts';

test('reissues the key after a confirmation; the old key is refused at once', async ({
  page,
  service,
}) => {
  const oldKey = service.app.context.access.key as string;
  await signIn(page, service, undefined, '/settings');
  await expect(page.getByTestId('api-key')).not.toContainText(oldKey);
  await page.getByRole('button', { name: 'Reveal' }).click();
  await expect(page.getByTestId('api-key')).toHaveText(oldKey);
  await page.getByRole('button', { name: 'Update' }).click();
  await expect(page.getByRole('dialog')).toContainText('stops working at once');
  await page.getByRole('dialog').getByRole('button', { name: 'Issue a new key' }).click();
  await expect(page.getByText('A new API key was issued.')).toBeVisible();
  await expect(page.getByTestId('api-key')).not.toHaveText(oldKey);
  const newKey = (await page.getByTestId('api-key').textContent()) as string;
  expect(
    (
      await page.request.get(`${service.url}/pipelineapi/version/json`, {
        headers: { 'X-Pipelinewebapi': oldKey },
      })
    ).status(),
  ).toBe(401);
  expect(
    (
      await page.request.get(`${service.url}/pipelineapi/version/json`, {
        headers: { 'X-Pipelinewebapi': newKey },
      })
    ).status(),
  ).toBe(200);
  // Put the fixture's key back for the other tests of this worker.
  await service.app.context.access.reissue(oldKey);
});

test('shows other roles a summary without the key', async ({ page, service }) => {
  await signIn(page, service, OPERATOR, '/settings');
  await expect(
    page.getByText('Only administrators see and change the pipeline API settings.'),
  ).toBeVisible();
  await expect(page.getByText(service.app.context.serverId)).toBeVisible();
  await expect(page.getByTestId('api-key')).toHaveCount(0);
});

test('disabling the API asks in the app’s dialog, and focus goes back to the switch', async ({
  page,
  service,
}) => {
  // window.confirm would be a native dialog: there must be none.
  const native: string[] = [];
  page.on('dialog', (dialog) => {
    native.push(dialog.message());
    void dialog.dismiss();
  });
  const version = () =>
    page.request.get(`${service.url}/pipelineapi/version/json`, {
      headers: { 'X-Pipelinewebapi': service.apiKey },
    });
  await signIn(page, service, undefined, '/settings');
  const toggle = page.getByRole('switch', { name: 'Pipeline API enabled' });
  await expect(toggle).toBeChecked();
  await toggle.click();
  const dialog = page.getByRole('dialog', { name: 'Disable the pipeline API?' });
  await expect(dialog).toContainText('stop working');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(toggle).toBeFocused();
  await expect(toggle).toBeChecked();
  expect((await version()).status()).toBe(200);

  await toggle.click();
  await dialog.getByRole('button', { name: 'Disable the API' }).click();
  await expect(dialog).toBeHidden();
  await expect(toggle).not.toBeChecked();
  await expect(toggle).toBeFocused();
  expect((await version()).status()).toBe(403);
  // Enabling needs no question; it also puts the worker's service back as it was.
  await toggle.click();
  await expect(toggle).toBeChecked();
  expect((await version()).status()).toBe(200);
  expect(native).toEqual([]);
});

test('on a phone the settings wrap whole words, never inside one', async ({ page, service }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, service, undefined, '/settings');
  const hint = page.getByText(/every pipeline API call is refused/);
  await expect(hint).toBeVisible();
  // "too." ends the hint; with break-all it was cut as "to / o.". One box means one line.
  const boxes = await hint.evaluate((element) => {
    const text = element.firstChild as Text;
    const at = (text.textContent ?? '').lastIndexOf('too.');
    const range = document.createRange();
    range.setStart(text, at);
    range.setEnd(text, at + 'too.'.length);
    return range.getClientRects().length;
  });
  expect(boxes).toBe(1);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
});

test('the clock chosen in Settings is the one every timestamp follows', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/settings');
  const clock = page.getByLabel('Clock');
  await expect(clock).toHaveValue('auto');
  await clock.selectOption({ label: '24-hour' });
  await page.goto(`${service.url}/audit`);
  const time = page.getByTestId('audit').locator('time').first();
  await expect(time).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/);
  await expect(time).not.toContainText(/[AP]M/);
  // A preference of this browser: it stays after a reload.
  await page.goto(`${service.url}/settings`);
  await expect(clock).toHaveValue('h23');
  await clock.selectOption({ label: '12-hour' });
  await page.goto(`${service.url}/audit`);
  await expect(time).toHaveText(/ [AP]M \S+$/);
});
