import { expect, signIn, test } from './fixtures.ts';

test('the header names the service, the Services page lists it, and Part C calls go to /services/<id>', async ({
  page,
  service,
}) => {
  const partC: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.includes('/pipelineapi/')) partC.push(path);
  });
  await signIn(page, service, undefined, '/requests');
  const switcher = page.getByTestId('service-switcher');
  await expect(switcher).toHaveAttribute('data-service', 'local');
  await expect(switcher).toContainText('Embedded service');
  await expect(page.locator('tr[data-request]').first()).toBeVisible();

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Services' })
    .click();
  await expect(page).toHaveURL(/\/service-list$/);
  // A bookmark of the page loads it too (the server keeps /services/... for Part C).
  await page.reload();
  const row = page.getByTestId('services').locator('tr[data-service="local"]');
  await expect(row).toContainText('Reachable');
  await expect(row).toContainText('embedded');
  await row.getByRole('link', { name: /^Open/ }).click();
  await expect(page.getByTestId('health')).toBeVisible();

  expect(partC.length).toBeGreaterThan(0);
  expect(partC.filter((p) => !p.startsWith('/services/local/pipelineapi/'))).toEqual([]);
});

test('links keep the service the URL names, and an unknown one is said so', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/pipelines?service=local');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Requests' })).toHaveAttribute(
    'href',
    '/requests?service=local',
  );
  await nav.getByRole('link', { name: 'Overview' }).click();
  await expect(page).toHaveURL(/\/\?service=local$/);
  await page.getByRole('button', { name: 'Today' }).click();
  await expect(page).toHaveURL(/service=local/);

  await page.goto(`${service.url}/requests?service=nowhere`);
  await expect(page.getByRole('alert')).toContainText('This server has no service “nowhere”.');
});
