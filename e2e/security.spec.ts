import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { APIRequestContext, BrowserContext, Page, Request } from '@playwright/test';
import { DIST_DIR } from '../src/service/app.ts';
import {
  API_KEY,
  expect,
  OPERATOR,
  settle,
  signIn,
  test,
  type RunningService,
} from './fixtures.ts';

const COOKIE = 'SESSIONID';

/**
 * A live SESSIONID, minted the way the contract mints them: by a key-authenticated call that
 * carried no cookie (in a request context of its own, so the browser has none yet).
 */
async function mintSessionCookie(request: APIRequestContext, service: RunningService) {
  const response = await request.get(`${service.url}/pipelineapi/version/json`, {
    headers: { 'X-Pipelinewebapi': API_KEY },
  });
  expect(response.status()).toBe(200);
  const cookie = (await request.storageState()).cookies.find((c) => c.name === COOKIE);
  expect(cookie, 'the service mints a SESSIONID for a key-authenticated call').toBeDefined();
  return cookie?.value ?? '';
}

/** Puts the cookie in the browser, as an earlier key sign-in or a script would have left it. */
async function plantCookie(context: BrowserContext, service: RunningService, value: string) {
  await context.addCookies([
    { name: COOKIE, value, url: service.url, httpOnly: true, sameSite: 'Strict' },
  ]);
}

async function sessionCookie(context: BrowserContext, service: RunningService) {
  return (await context.cookies(service.url)).find((c) => c.name === COOKIE);
}

/** Every request of the page to the service's APIs that carried a Cookie header. */
function watchCookieHeaders(page: Page): { sent: string[] } {
  const seen = { sent: [] as string[] };
  const check = async (request: Request) => {
    if (!/\/(pipelineapi|mcapi|api)\//.test(new URL(request.url()).pathname)) return;
    const headers = await request.allHeaders();
    if (headers.cookie?.includes(`${COOKIE}=`)) seen.sent.push(request.url());
  };
  page.on('requestfinished', (request) => void check(request));
  page.on('requestfailed', (request) => void check(request));
  return seen;
}

async function signInWithKey(page: Page, service: RunningService, path = '/') {
  await page.goto(`${service.url}/sign-in?next=${encodeURIComponent(path)}`);
  await page.getByRole('tab', { name: 'API key' }).click();
  await page.getByLabel('API key').fill(API_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('identity')).toHaveText('API key');
}

async function storedSessionId(page: Page): Promise<string> {
  return page.evaluate(
    () => JSON.parse(sessionStorage.getItem('pipeline-dashboard.auth') ?? '{}').sessionId as string,
  );
}

/** A web page on another port of the same host: same site for cookies, another origin. */
async function foreignSite(pages: Record<string, string>) {
  const server = createServer((request, response) => {
    const body = pages[request.url ?? ''];
    response.writeHead(body === undefined ? 404 : 200, {
      'content-type': 'text/html; charset=utf-8',
    });
    response.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const PROBE_TABLE = 'SECURITY_PROBE';

test('an operator signed in beside a SESSIONID cookie has only the operator role, and Sign out clears the cookie', async ({
  page,
  context,
  request,
  service,
}) => {
  const db = service.app.context.dbs.action;
  db.exec(`CREATE TABLE IF NOT EXISTS ${PROBE_TABLE} (N INTEGER PRIMARY KEY)`);
  db.exec(`INSERT OR REPLACE INTO ${PROBE_TABLE} (N) VALUES (1)`);
  await plantCookie(context, service, await mintSessionCookie(request, service));
  // The cookie alone is a key to the API: what follows is only meaningful because it is.
  expect((await page.request.get(`${service.url}/pipelineapi/version/json`)).status()).toBe(200);

  const cookieHeaders = watchCookieHeaders(page);
  await signIn(page, service, OPERATOR, `/databases/action?table=${PROBE_TABLE}`);
  await expect(page.getByRole('button', { name: 'Delete all rows' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Drop table' })).toBeDisabled();
  // The dashboard never sent the cookie along with its own calls.
  expect(cookieHeaders.sent).toEqual([]);

  // A call from the page with the operator's session: the browser adds the cookie, and the
  // session's role alone decides.
  const sessionId = await storedSessionId(page);
  const answer = await page.evaluate(
    async ({ sessionId, table }) => {
      const response = await fetch(`/pipelineapi/droptable/json?table=${table}`, {
        method: 'DELETE',
        headers: { 'X-As-SessionId': sessionId },
      });
      return { status: response.status, body: await response.text() };
    },
    { sessionId, table: PROBE_TABLE },
  );
  expect(answer.status).toBe(403);
  expect(answer.body).toContain('1104');
  // The browser did send the cookie with it (so the refusal is the session's role at work).
  await expect.poll(() => cookieHeaders.sent.some((url) => url.includes('/droptable/'))).toBe(true);
  expect((await service.client.tables('action')).tables).toContain(PROBE_TABLE);

  // Nor does the API key add up with a session; and such an answer never sets a cookie.
  const withKey = await request.delete(
    `${service.url}/pipelineapi/deletetable/json?table=${PROBE_TABLE}`,
    { headers: { 'X-As-SessionId': sessionId, 'X-Pipelinewebapi': API_KEY } },
  );
  expect(withKey.status()).toBe(403);
  expect(await withKey.text()).toContain('1104');
  expect(withKey.headers()['set-cookie']).toBeUndefined();
  const read = await request.get(`${service.url}/pipelineapi/version/json`, {
    headers: { 'X-As-SessionId': sessionId, 'X-Pipelinewebapi': API_KEY },
  });
  expect(read.status()).toBe(200);
  expect(read.headers()['set-cookie']).toBeUndefined();
  expect((await service.client.table('action', PROBE_TABLE)).info.total).toBe(1);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect.poll(() => sessionCookie(context, service)).toBeUndefined();
});

test('an API-key sign-in never stores a SESSIONID, and Sign out clears one left from before', async ({
  page,
  context,
  request,
  service,
}) => {
  // The service does mint a cookie for a key-authenticated call without one...
  const planted = await mintSessionCookie(request, service);
  const cookieHeaders = watchCookieHeaders(page);
  // ...yet the dashboard, which sends the key with every call, keeps none.
  await signInWithKey(page, service, '/pipelines');
  await expect(page.getByTestId('pipelines-table')).toContainText('pl_1');
  await page.getByRole('link', { name: 'Requests', exact: true }).click();
  await expect(page.getByTestId('requests-table')).toBeVisible();
  expect(await sessionCookie(context, service)).toBeUndefined();
  expect(cookieHeaders.sent).toEqual([]);

  // A cookie from before this fix (or from a script in this browser) goes with Sign out.
  await plantCookie(context, service, planted);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect.poll(() => sessionCookie(context, service)).toBeUndefined();
});

test('a page on another port of this host cannot use the cookie to execute a pipeline', async ({
  page,
  context,
  request,
  service,
}) => {
  await settle(service);
  await plantCookie(context, service, await mintSessionCookie(request, service));
  const execUrl = `${service.url}/pipelineapi/exec/json`;
  const site = await foreignSite({
    '/fetch': `<!doctype html><title>fetch</title><script>
      fetch(${JSON.stringify(execUrl)}, {
        method: 'POST',
        credentials: 'include',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'pipelineid=pl_1&filename=orders.csv',
      }).catch(() => undefined);
    </script>`,
    '/form': `<!doctype html><title>form</title>
      <form method="post" action=${JSON.stringify(execUrl)}>
        <input name="pipelineid" value="pl_1"><input name="filename" value="orders.csv">
      </form><script>document.forms[0].submit();</script>`,
  });
  try {
    const total = async () => (await service.client.requestList({ id: 'pl_1' })).info.total;
    const before = await total();

    // The fetch's answer never reaches Playwright (the browser withholds it from another
    // origin), but it has been answered once the request ends either way; the status
    // database then tells whether a request was made.
    const fetched = new Promise<void>((resolve) => {
      const done = (r: Request) => {
        if (r.url().startsWith(execUrl)) resolve();
      };
      page.on('requestfinished', done);
      page.on('requestfailed', done);
    });
    await page.goto(`${site.url}/fetch`);
    await fetched;
    await settle(service);
    expect(await total(), 'requests after the fetch').toBe(before);

    // A form's answer is a page, so its refusal can be read.
    const answer = page.waitForResponse((r) => r.url().startsWith(execUrl));
    await page.goto(`${site.url}/form`);
    const response = await answer;
    expect(response.status()).toBe(403);
    expect(await response.text()).toContain('1104');
    await settle(service);
    expect(await total(), 'requests after the form').toBe(before);

    // Control: a script that sends neither Origin nor Sec-Fetch-Site (the seed's coordinator
    // client) still runs a pipeline with the same cookie, so the count above could move.
    const script = await page.request.post(execUrl, {
      form: { pipelineid: 'pl_1', filename: 'orders.csv' },
    });
    expect(script.status()).toBe(200);
    await settle(service);
    expect(await total()).toBe((before ?? 0) + 1);
  } finally {
    await site.close();
  }
});

test('a page on another port of this host cannot frame the dashboard', async ({
  page,
  service,
  csp,
}) => {
  // The refusal is the point of this test: Chromium reports it as a policy violation.
  csp.allow(/frame-ancestors/);
  const site = await foreignSite({
    '/frame': `<!doctype html><title>frame</title>
      <iframe title="dashboard" src=${JSON.stringify(`${service.url}/settings`)}></iframe>`,
  });
  try {
    const framed = page.waitForEvent('framenavigated', (f) => f !== page.mainFrame());
    await page.goto(`${site.url}/frame`, { waitUntil: 'load' });
    await framed;
    const frame = page.frames().find((f) => f !== page.mainFrame());
    // A blocked frame shows the browser's error page, never the app (nor its sign-in form).
    expect(frame?.url()).not.toContain(service.url);
    await expect(page.frameLocator('iframe').locator('#root')).toHaveCount(0);
    await expect(page.frameLocator('iframe').getByText('Sign in')).toHaveCount(0);
    // And it was the policy that refused it.
    await expect.poll(() => csp.violations.some((v) => /frame-ancestors/.test(v))).toBe(true);
  } finally {
    await site.close();
  }
});

test('the served policy stops a script injected into the page, and the guard of every test sees it', async ({
  page,
  service,
  csp,
}) => {
  csp.allow(/script-src/);
  await page.goto(`${service.url}/sign-in`);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  const ran = await page.evaluate(async () => {
    const w = window as unknown as { injectedRan?: boolean };
    const script = document.createElement('script');
    script.textContent = 'window.injectedRan = true';
    document.head.append(script);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return w.injectedRan === true;
  });
  expect(ran).toBe(false);
  await expect.poll(() => csp.violations.some((v) => /script-src/.test(v))).toBe(true);
});

/** The CSP header as directive → its values. */
function directives(header: string | undefined): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), values);
  }
  return map;
}

test('pages carry a strict Content Security Policy and framing headers; API answers are never cached and carry no page policy', async ({
  request,
  service,
}) => {
  for (const path of ['/', '/sign-in', '/settings', '/requests?pipeline=pl_1']) {
    const response = await request.get(`${service.url}${path}`);
    expect(response.status(), path).toBe(200);
    const headers = response.headers();
    const csp = directives(headers['content-security-policy']);
    expect(csp.get('default-src'), `${path} default-src`).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors'), `${path} frame-ancestors`).toEqual(["'none'"]);
    expect(csp.get('object-src'), `${path} object-src`).toEqual(["'none'"]);
    const scripts = csp.get('script-src') ?? csp.get('default-src') ?? [];
    expect(scripts, `${path} script-src`).not.toContain("'unsafe-inline'");
    expect(scripts, `${path} script-src`).not.toContain("'unsafe-eval'");
    expect(scripts, `${path} script-src`).not.toContain('*');
    expect(headers['x-frame-options']?.toUpperCase(), path).toMatch(/^(DENY|SAMEORIGIN)$/);
    expect(headers['x-content-type-options'], path).toBe('nosniff');
  }
  const apiCalls = [
    request.get(`${service.url}/pipelineapi/version/json`, {
      headers: { 'X-Pipelinewebapi': API_KEY },
    }),
    request.get(`${service.url}/pipelineapi/list/json`), // refused, and still not to be kept
    request.get(`${service.url}/mcapi/auth/session`),
    request.post(`${service.url}/api/auth/login`, { form: { user: 'nobody' } }),
  ];
  for (const response of await Promise.all(apiCalls)) {
    expect(response.headers()['cache-control'], response.url()).toContain('no-store');
    expect(response.headers()['x-content-type-options'], response.url()).toBe('nosniff');
    // A policy for pages is no part of an answer that is not one (docs/throughput.md).
    expect(response.headers()['content-security-policy'], response.url()).toBeUndefined();
  }
});

test('the built dashboard serves no source maps', async ({ request, service }) => {
  const shell = await (await request.get(`${service.url}/`)).text();
  const entry = /<script[^>]+src="([^"]+\.js)"/.exec(shell)?.[1];
  expect(entry, 'the app shell loads a script').toBeDefined();
  const assets = readdirSync(join(DIST_DIR, 'assets'));
  expect(assets.filter((name) => name.endsWith('.map'))).toEqual([]);
  const scripts = assets.filter((name) => name.endsWith('.js')).map((name) => `/assets/${name}`);
  expect(scripts).toContain(entry);
  for (const script of scripts) {
    const js = await request.get(`${service.url}${script}`);
    expect(js.status(), script).toBe(200);
    expect(await js.text(), script).not.toMatch(/[#@]\s*sourceMappingURL/);
    expect(js.headers()['sourcemap'] ?? js.headers()['x-sourcemap'], script).toBeUndefined();
    const map = await request.get(`${service.url}${script}.map`);
    const body = await map.text();
    // 404, or the app shell that answers any unknown page; never a source map.
    if (map.status() !== 404) expect(body, `${script}.map`).toBe(shell);
    expect(body, `${script}.map`).not.toContain('"mappings"');
  }
});
