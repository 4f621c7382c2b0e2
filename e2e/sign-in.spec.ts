import { ADMIN, API_KEY, expect, signIn, test } from './fixtures.ts';

test('signs in with user and password: user, role, server and version stay visible; sign-out ends the session', async ({
  page,
  service,
}) => {
  await signIn(page, service);
  await expect(page.getByTestId('identity')).toHaveText('admin · administrator');
  await expect(page.getByTestId('service-version')).toHaveText(`v${service.app.context.version}`);
  await expect(page.getByText(service.app.context.serverName, { exact: true })).toBeVisible();
  const sessionId = await page.evaluate(
    () => JSON.parse(sessionStorage.getItem('pipeline-dashboard.auth') ?? '{}').sessionId as string,
  );
  expect(sessionId).toMatch(/^[\w-]{43}$/);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  const response = await page.request.get(`${service.url}/pipelineapi/version/json`, {
    headers: { 'X-As-SessionId': sessionId },
  });
  expect(response.status()).toBe(401);
});

test('signs in with the API key, and refuses a wrong one with its code', async ({
  page,
  service,
}) => {
  await page.goto(`${service.url}/sign-in`);
  await page.getByRole('tab', { name: 'API key' }).click();
  await page.getByLabel('API key').fill('not-the-key');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Code 1103');
  await page.getByLabel('API key').fill(API_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('identity')).toHaveText('API key');
  // Kept in sessionStorage only, unless asked to be remembered.
  expect(await page.evaluate(() => localStorage.getItem('pipeline-dashboard.auth'))).toBeNull();
  expect(await page.evaluate(() => sessionStorage.getItem('pipeline-dashboard.auth'))).toContain(
    API_KEY,
  );
});

test('shows the login failure code without saying whether the user exists', async ({
  page,
  service,
}) => {
  await page.goto(`${service.url}/sign-in`);
  await page.getByLabel('User name').fill('nobody');
  await page.getByLabel('Password', { exact: true }).fill('whatever');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Code 3002');
  await expect(page.getByRole('alert')).toContainText('unknown user or wrong password');
});

test('an expired session goes back to sign-in and then to the page the user was on', async ({
  page,
  service,
}) => {
  await signIn(page, service, ADMIN, '/pipelines');
  await page.goto(`${service.url}/requests?pipeline=pl_1`);
  await expect(page.getByTestId('requests-table')).toBeVisible();
  const sessionId = await page.evaluate(
    () => JSON.parse(sessionStorage.getItem('pipeline-dashboard.auth') ?? '{}').sessionId as string,
  );
  // The session ends behind the dashboard's back, as a timeout would end it.
  await service.app.context.sessions.close('mc', sessionId);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await expect(page.getByText('Your session has ended')).toBeVisible();
  await page.getByLabel('User name').fill(ADMIN.user);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${service.url}/requests?pipeline=pl_1`);
});

test('the theme follows the system and can be switched', async ({ page, service }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await signIn(page, service);
  await expect(page.locator('html')).toHaveClass(/dark/);
  await page.getByLabel('Theme').selectOption('light');
  await expect(page.locator('html')).not.toHaveClass(/dark/);
  await page.reload();
  await expect(page.locator('html')).not.toHaveClass(/dark/);
});

test('a banner tells when the service cannot be reached, and clears itself', async ({
  page,
  service,
}) => {
  await signIn(page, service, ADMIN, '/requests');
  await page.route('**/pipelineapi/**', (route) => route.abort('connectionrefused'));
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByText('The pipeline service cannot be reached')).toBeVisible({
    timeout: 15_000,
  });
  await page.unroute('**/pipelineapi/**');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByText('The pipeline service cannot be reached')).toBeHidden({
    timeout: 15_000,
  });
});

test('a next parameter that is not a path of the dashboard is ignored: sign-in goes to the overview', async ({
  page,
  service,
}) => {
  // `/\host` is read by browsers as `//host`: another origin, which the router used to throw on.
  await page.goto(`${service.url}/sign-in?next=/%5Chost`);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText('Unexpected Application Error')).toHaveCount(0);
  await page.getByLabel('User name').fill(ADMIN.user);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('identity')).toContainText(ADMIN.user);
  await expect(page).toHaveURL(`${service.url}/`);
  // Signed in already, the page forwards at once, and just as safely.
  for (const next of ['//evil.example/x', '/%5C%5Cevil.example', 'https://evil.example/']) {
    await page.goto(`${service.url}/sign-in?next=${encodeURIComponent(next)}`);
    await expect(page).toHaveURL(`${service.url}/`);
  }
  await page.goto(`${service.url}/sign-in?next=${encodeURIComponent('/pipelines?q=pl_1')}`);
  await expect(page).toHaveURL(`${service.url}/pipelines?q=pl_1`);
});

test('the sign-in page offers the language before anyone signs in, and keeps the choice', async ({
  page,
  service,
}) => {
  await page.goto(`${service.url}/sign-in`);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByTestId('language-picker').selectOption('ja');
  await expect(page.getByRole('heading', { name: 'サインイン' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  await page.reload();
  await expect(page.getByRole('heading', { name: 'サインイン' })).toBeVisible();
  await expect(page.getByTestId('language-picker')).toHaveValue('ja');
});
