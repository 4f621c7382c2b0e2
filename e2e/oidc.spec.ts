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

interface SsoService {
  readonly url: string;
  readonly app: App;
  readonly provider: TestProvider;
}

/** The real service signing in through a real OpenID provider (oidc-provider), both on loopback. */
const test = base.extend<object, { sso: SsoService }>({
  sso: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const provider = await startOidcProvider({
        redirectUris: [`${url}/mcapi/auth/oidc/callback`],
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
    },
    { scope: 'worker' },
  ],
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
  const audit = queryAudit(sso.app.context.dbs.system, {
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
