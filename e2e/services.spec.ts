import { expect, signIn, test, unlessAbandoned } from './fixtures.ts';

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

test('switching service changes the URL, the header and where every Part C call goes', async ({
  page,
  service,
}) => {
  // A second service, as a server started with --services would list it; its Part C is
  // the embedded one's, reached through the browser's network layer.
  await page.route('**/mcapi/services', (route) =>
    unlessAbandoned(async () => {
      const response = await route.fetch();
      const body = (await response.json()) as {
        result: { data: { services: Record<string, unknown>[] } };
      };
      body.result.data.services.push({
        id: 'staging',
        name: 'Staging',
        label: 'staging',
        color: 'amber',
        embedded: false,
        reachable: true,
        version: '9.9',
        checkedAt: '',
        since: '',
        message: '',
        timeZone: 'Asia/Tokyo',
        utcOffsetMinutes: 540,
        utcOffsetEstimated: false,
        zoneName: 'JST',
      });
      // The service's own media type kept: only the body is rewritten.
      await route.fulfill({ response, body: JSON.stringify(body) });
    }),
  );
  const staging: string[] = [];
  await page.route('**/services/staging/pipelineapi/**', (route) =>
    unlessAbandoned(async () => {
      staging.push(new URL(route.request().url()).pathname);
      const url = route.request().url().replace('/services/staging/', '/services/local/');
      await route.fulfill({ response: await route.fetch({ url }) });
    }),
  );
  await signIn(page, service, undefined, '/requests');
  const switcher = page.getByTestId('service-switcher');
  await switcher.getByRole('combobox').selectOption('staging');
  await expect(page).toHaveURL(/\/requests\?service=staging$/);
  await expect(switcher).toHaveAttribute('data-service', 'staging');
  await expect(switcher).toContainText('Staging');
  await expect(switcher).toContainText('staging');
  await expect(page.locator('tr[data-request]').first()).toBeVisible();
  expect(staging.length).toBeGreaterThan(0);
  const link = page.locator('tr[data-request] a').first();
  await expect(link).toHaveAttribute('href', /service=staging/);
  await page.reload();
  await expect(switcher).toHaveAttribute('data-service', 'staging');
});
