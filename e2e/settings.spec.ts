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
  service.app.context.access.reissue(oldKey);
});

test('shows other roles a summary without the key', async ({ page, service }) => {
  await signIn(page, service, OPERATOR, '/settings');
  await expect(
    page.getByText('Only administrators see and change the pipeline API settings.'),
  ).toBeVisible();
  await expect(page.getByText(service.app.context.serverId)).toBeVisible();
  await expect(page.getByTestId('api-key')).toHaveCount(0);
});
