import { ADMIN, expect, signIn, startDemoApp, test } from './fixtures.ts';
import { startNginx, stopNginx } from './nginx.ts';

/*
 * The dashboard as an operator deploys it (docs/deploy/README.md): Debian's nginx in front, the
 * service under /pipelines, nginx's X-Forwarded-For believed from nginx alone. nginx runs
 * as this test's own child (no daemon, no master process, every file in a temporary folder).
 */

const BASE = '/pipelines';
/** The client's address as nginx tells it: no browser here has it, so only trust shows it. */
const CLIENT = '203.0.113.9';

test('the dashboard works through nginx under a sub-path, and the audit names the client', async ({
  page,
  request,
}) => {
  const service = await startDemoApp({ basePath: BASE, trustProxy: ['127.0.0.1'] });
  const proxy = await startNginx([service.url], { forwardedFor: CLIENT });
  try {
    const site = `${proxy.url}${BASE}`;
    await signIn(page, { url: site }, ADMIN, '/pipelines');
    await expect(page).toHaveURL(`${site}/pipelines`);
    await expect(page.locator('tr[data-pipeline="pl_1"]')).toContainText('Orders ingest');

    // An audited change, through the proxy.
    const row = page.locator('tr[data-pipeline="pl_3"]');
    await row.getByRole('switch').click();
    await expect(row.getByText('Suspended')).toBeVisible();

    // Another page, by the menu, then by a reload of its address (the server's shell).
    const menu = page.getByRole('navigation', { name: 'Main' });
    await menu.getByRole('link', { name: 'Requests' }).click();
    await expect(page).toHaveURL(new RegExp(`^${site}/requests`));
    await page.reload();
    await expect(page.getByTestId('identity')).toContainText(ADMIN.user);

    // The audit page reads the entry: the client's address, as nginx told it.
    await menu.getByRole('link', { name: 'Audit' }).click();
    await expect(page).toHaveURL(`${site}/audit`);
    const suspended = page.getByTestId('audit').locator('tr[data-operation="suspend"]').first();
    await expect(suspended).toContainText(CLIENT);
    const entries = service.app.context.dbs.system
      .prepare(`SELECT ADDRESS, OPERATION FROM AUDIT WHERE OPERATION IN ('suspend', 'mc.login')`)
      .all() as { ADDRESS: string; OPERATION: string }[];
    expect(entries.map((e) => e.OPERATION).sort()).toEqual(['mc.login', 'suspend']);
    for (const entry of entries) expect(entry.ADDRESS).toBe(CLIENT);

    // Everything is under the base path, nothing at the root, even with nginx passing it on.
    expect((await request.get(`${site}/healthz`)).status()).toBe(200);
    expect((await request.get(`${site}/openapi.json`)).status()).toBe(200);
    for (const path of [
      '/',
      '/sign-in',
      '/healthz',
      '/metrics',
      '/openapi.json',
      '/mcapi/auth/oidc',
    ])
      expect((await request.get(`${proxy.url}${path}`)).status(), path).toBe(404);
  } finally {
    await stopNginx(proxy);
    await service.stop();
  }
});
