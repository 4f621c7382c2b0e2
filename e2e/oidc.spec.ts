import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import { queryAudit } from '../src/service/db/system/audit.ts';
import { parseRoleMapping } from '../src/service/auth/oidc-config.ts';
import { freePort } from '../src/service/testing/child.ts';
import {
  startOidcProvider,
  TEST_CLIENT,
  type TestProvider,
} from '../src/service/testing/oidc-provider.ts';
import { ADMIN, expect, test as base } from './fixtures.ts';
import { perFile } from './per-file.ts';

interface SsoService {
  readonly url: string;
  readonly app: App;
  readonly provider: TestProvider;
}

/** The real service signing in through a real OpenID provider (oidc-provider), both on loopback. */
const ssoServer = perFile<SsoService>(async (use) => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = await startOidcProvider({
    redirectUris: [`${url}/mcapi/auth/oidc/callback`],
    postLogoutRedirectUris: [`${url}/sign-in`],
    accounts: {
      ada: { preferred_username: 'ada', groups: ['staff', 'admins'] },
      otto: { preferred_username: 'otto', groups: ['ops'] },
      nora: { preferred_username: 'nora' },
      // A provider account named like the local administrator must not become it.
      admin: { preferred_username: 'admin', groups: ['admins'] },
    },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-oidc-'));
  const app = await buildApp({
    dataDir,
    demo: true,
    adminPassword: ADMIN.password,
    staticDir: DIST_DIR,
    oidc: {
      issuer: provider.issuer,
      clientId: TEST_CLIENT.id,
      clientSecret: TEST_CLIENT.secret,
      roleClaim: 'groups',
      roles: parseRoleMapping('admins=administrator,ops=operator'),
      name: 'Test provider',
    },
  });
  await app.server.listen({ host: '127.0.0.1', port });
  await use({ url, app, provider });
  await app.close();
  await provider.close();
  rmSync(dataDir, { recursive: true, force: true });
});
const test = base.extend<{ sso: SsoService }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  sso: async ({}, use) => use(ssoServer()),
});

/** Goes through the provider's own sign-in and consent pages as `login`. */
async function signInAtProvider(page: Page, sso: SsoService, login: string): Promise<void> {
  await page.goto(`${sso.url}/sign-in?next=${encodeURIComponent('/settings')}`);
  await page.getByRole('link', { name: 'Sign in with Test provider' }).click();
  await expect(page).toHaveURL(new RegExp(`^${sso.provider.issuer}/`));
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** Every body our server sent to the browser, to look for what must never be there. */
function recordAnswers(page: Page, sso: SsoService): string[] {
  const bodies: string[] = [];
  page.on('response', (response) => {
    if (!response.url().startsWith(sso.url)) return;
    bodies.push(`${response.url()} ${JSON.stringify(response.headers())}`);
    response.text().then(
      (text) => bodies.push(text),
      () => undefined,
    );
  });
  return bodies;
}

test('a provider account in the admins group signs in as an administrator, beside local users', async ({
  page,
  sso,
}) => {
  const answers = recordAnswers(page, sso);
  await signInAtProvider(page, sso, 'ada');
  await expect(page).toHaveURL(`${sso.url}/settings`);
  await expect(page.getByTestId('identity')).toContainText('ada');
  // The Settings page answers administrators only: the session carries the mapped role.
  await expect(page.getByText('Pipeline API enabled')).toBeVisible();
  // Nothing of the handoff stays in the address; the secret never reached the browser.
  expect(new URL(page.url()).hash).toBe('');
  expect(answers.join('\n')).not.toContain(TEST_CLIENT.secret);
  // The audit log recorded the sign-in under the person's name.
  const audit = await queryAudit(sso.app.context.shared, {
    operation: 'mc.oidc-login',
    user: 'ada',
    index: 0,
    pageSize: 10,
  });
  expect(audit.entries[0]).toMatchObject({ httpStatus: 200, via: 'session' });
});

test('an account whose groups map to operator gets operator', async ({ page, sso }) => {
  await signInAtProvider(page, sso, 'otto');
  await expect(page.getByTestId('identity')).toContainText('otto');
  await expect(
    page.getByText('Only administrators see and change the pipeline API settings.'),
  ).toBeVisible();
  const session = await page.evaluate(() => sessionStorage.getItem('pipeline-dashboard.auth'));
  expect(JSON.parse(session ?? '{}')).toMatchObject({ userName: 'otto', role: 'operator' });
});

test('a token without the groups claim signs nobody in and says why', async ({ page, sso }) => {
  await signInAtProvider(page, sso, 'nora');
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fsettings$/);
  await expect(page.getByRole('alert')).toContainText(
    'Test provider sent no groups claim for this account',
  );
  await expect(page.getByTestId('identity')).toHaveCount(0);
  // The local administrator signs in with a password as before.
  await page.getByLabel('User name').fill(ADMIN.user);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('identity')).toContainText(ADMIN.user);
});

test('a provider account named like a local user does not become that user', async ({
  page,
  sso,
}) => {
  await signInAtProvider(page, sso, 'admin');
  await expect(page.getByRole('alert')).toContainText('A local user is called admin');
  await expect(page.getByTestId('identity')).toHaveCount(0);
});

test('signing out of a provider session ends it at the provider too, back to our sign-in page', async ({
  page,
  sso,
}) => {
  await signInAtProvider(page, sso, 'otto');
  await expect(page.getByTestId('identity')).toContainText('otto');
  const stored = await page.evaluate(() => sessionStorage.getItem('pipeline-dashboard.auth'));
  const { sessionId } = JSON.parse(stored ?? '{}') as { sessionId: string };
  // Bounded as a password sign-in's session is: 30 idle minutes, each use extending it.
  const session = await page.request.get(`${sso.url}/mcapi/auth/session`, {
    headers: { 'X-As-SessionId': sessionId },
  });
  const { expires } = ((await session.json()) as { result: { data: { expires: string } } }).result
    .data;
  const left = Date.parse(expires) - Date.now();
  expect(left).toBeGreaterThan(25 * 60_000);
  expect(left).toBeLessThanOrEqual(30 * 60_000);

  // Sign out, as a person does: our session ends, and the browser goes on to the provider's
  // end-session page, which the logout answer named.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL((url) => url.origin === new URL(sso.provider.issuer).origin);
  const endSessionUrl = new URL(page.url());
  expect(endSessionUrl.origin).toBe(sso.provider.issuer);
  expect(endSessionUrl.searchParams.get('post_logout_redirect_uri')).toBe(`${sso.url}/sign-in`);
  expect(endSessionUrl.searchParams.get('client_id')).toBe(TEST_CLIENT.id);
  // No token and no secret in what the browser is given.
  expect(endSessionUrl.searchParams.has('id_token_hint')).toBe(false);
  expect(endSessionUrl.href).not.toContain(TEST_CLIENT.secret);
  // Our session has ended at once.
  const ended = await page.request.get(`${sso.url}/mcapi/auth/session`, {
    headers: { 'X-As-SessionId': sessionId },
  });
  expect(ended.status()).toBe(401);

  // At the provider: confirm, and it sends the browser back to our sign-in page.
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await expect(page).toHaveURL(new RegExp(`^${sso.url}/sign-in`));
  // Its session is over: signing in again asks for the account, not straight through.
  await page.getByRole('link', { name: 'Sign in with Test provider' }).click();
  await expect(page.locator('input[name=login]')).toBeVisible();

  // A local password session gives no provider URL.
  const local = await page.request.post(`${sso.url}/mcapi/auth/login`, {
    form: { userName: ADMIN.user, password: ADMIN.password },
  });
  const localId = ((await local.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
  const localOut = await page.request.post(`${sso.url}/mcapi/auth/logout`, {
    form: { sessionId: localId },
  });
  expect(((await localOut.json()) as { result: { data: object } }).result.data).toEqual({
    sessionId: localId,
  });
});
