import { expect, test } from './fixtures.ts';

test('the service serves the built dashboard and answers the pipeline API', async ({
  page,
  service,
}) => {
  await page.goto(service.url);
  await expect(page).toHaveTitle(/Pipeline dashboard/);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();

  const response = await page.request.get(`${service.url}/pipelineapi/version/json`, {
    headers: { 'X-Pipelinewebapi': service.apiKey },
  });
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ Response: { Version: service.app.context.version } });
});
