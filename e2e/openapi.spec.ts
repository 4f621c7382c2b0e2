import { expect, test } from './fixtures.ts';

test('/docs renders the OpenAPI document with every asset from this server, under the strict CSP', async ({
  page,
  service,
}) => {
  const origins = new Set<string>();
  page.on('request', (request) => origins.add(new URL(request.url()).origin));
  const response = await page.goto(`${service.url}/docs`);
  const csp = response?.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  // Swagger UI fetched and rendered the document: its title and an operation of each Part.
  await expect(page.getByRole('heading', { name: /Pipeline service/ })).toBeVisible();
  await expect(page.getByText('/pipelineapi/requestlist/{format}').first()).toBeVisible();
  await expect(page.getByText('/mcapi/auth/login').first()).toBeVisible();
  await expect(page.getByText('/api/auth/login').first()).toBeVisible();
  // Opening an operation shows its parameters, read from the document's schemas.
  await page.getByText('/pipelineapi/requestlist/{format}').first().click();
  await expect(page.getByText('pagesize').first()).toBeVisible();
  expect([...origins]).toEqual([service.url]);
});
