import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/service/testing/child.ts';
import { ADMIN, expect, signIn, startDemoApp, test } from './fixtures.ts';

/*
 * The dashboard as an operator deploys it (docs/deploy/README.md): Debian's nginx in front, the
 * service under /pipelines, nginx's X-Forwarded-For believed from nginx alone. nginx runs
 * as this test's own child (no daemon, no master process, every file in a temporary folder).
 */

const NGINX = '/usr/sbin/nginx';
const BASE = '/pipelines';
/** The client's address as nginx tells it: no browser here has it, so only trust shows it. */
const CLIENT = '203.0.113.9';

interface Proxy {
  readonly url: string;
  readonly folder: string;
  readonly child: ChildProcess;
}

/** Resolves once something accepts connections on the port. */
async function listening(port: number, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(
        `nginx did not start: ${existsSync(log) ? readFileSync(log, 'utf8') : '(no log)'}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startNginx(upstream: string): Promise<Proxy> {
  const folder = mkdtempSync(join(tmpdir(), 'pipeline-nginx-'));
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(folder, temp));
  const port = await freePort();
  const errorLog = join(folder, 'error.log');
  // As docs/deploy/nginx-site.conf, but every path also forwarded: the service itself must
  // be the one that answers nothing at the root.
  const conf = `
daemon off;
master_process off;
pid ${join(folder, 'nginx.pid')};
error_log ${errorLog} warn;
events { worker_connections 64; }
http {
  access_log ${join(folder, 'access.log')};
  client_body_temp_path ${join(folder, 'body')};
  proxy_temp_path ${join(folder, 'proxy')};
  fastcgi_temp_path ${join(folder, 'fastcgi')};
  uwsgi_temp_path ${join(folder, 'uwsgi')};
  scgi_temp_path ${join(folder, 'scgi')};
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstream};
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;
      # What nginx would set from a real client's $remote_addr; here every client is local.
      proxy_set_header X-Forwarded-For ${CLIENT};
    }
  }
}
`;
  const confFile = join(folder, 'nginx.conf');
  writeFileSync(confFile, conf);
  const child = spawn(NGINX, ['-p', folder, '-c', confFile, '-e', errorLog], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await listening(port, child, errorLog);
  return { url: `http://127.0.0.1:${port}`, folder, child };
}

async function stopNginx(proxy: Proxy): Promise<void> {
  const exited = new Promise((resolve) => proxy.child.once('exit', resolve));
  if (proxy.child.exitCode === null) proxy.child.kill('SIGTERM');
  await exited;
  rmSync(proxy.folder, { recursive: true, force: true });
}

test('the dashboard works through nginx under a sub-path, and the audit names the client', async ({
  page,
  request,
}) => {
  const service = await startDemoApp({ basePath: BASE, trustProxy: ['127.0.0.1'] });
  const proxy = await startNginx(service.url);
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
