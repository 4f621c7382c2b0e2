import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { parseRoleMapping } from '../auth/oidc-config.ts';
import { startOidcProvider, TEST_CLIENT } from '../testing/oidc-provider.ts';
import { TEST_API_KEY } from '../testing/service.ts';
import { appShell } from './dashboard-files.ts';
import { withCookiePath } from './base-path.ts';

/** A build's index.html as vite writes it with `base: './'`. */
const INDEX = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" href="./favicon.svg" type="image/svg+xml" />
    <script type="module" crossorigin src="./assets/index-abc.js"></script>
    <link rel="stylesheet" crossorigin href="./assets/index-abc.css">
  </head>
  <body><div id="root"></div></body>
</html>
`;

const PASSWORD = 'Correct-horse-battery-9';

interface Started {
  app: App;
  origin: string;
  lines: Record<string, unknown>[];
  folder: string;
}

/** The real service in this process, its log lines collected as the JSON they are. */
async function start(options: { basePath?: string; trustProxy?: string[] }): Promise<Started> {
  const folder = mkdtempSync(join(tmpdir(), 'base-path-test-'));
  const dist = join(folder, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, 'assets/index-abc.js'), 'export {};\n');
  const lines: Record<string, unknown>[] = [];
  const app = await buildApp({
    dataDir: join(folder, 'data'),
    demo: false,
    apiKey: TEST_API_KEY,
    adminPassword: PASSWORD,
    staticDir: dist,
    ...options,
    logger: {
      level: 'info',
      stream: {
        write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
      },
    },
  });
  const origin = await app.server.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin, lines, folder };
}

async function stop(started: Started): Promise<void> {
  await started.app.close();
  rmSync(started.folder, { recursive: true, force: true });
}

async function signIn(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ userName: 'admin', password: PASSWORD }).toString(),
  });
}

describe('--base-path /pipelines', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start({ basePath: '/pipelines', trustProxy: ['127.0.0.1'] });
  });
  afterAll(() => stop(s));

  it('serves every API, the health and metrics routes and the document under it', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/mcapi/auth/oidc']) {
      const answer = await fetch(`${s.origin}/pipelines${path}`);
      expect(answer.status, path).toBe(200);
    }
    const list = await fetch(`${s.origin}/pipelines/pipelineapi/list/json`, {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    expect(list.status).toBe(200);
    const viaServices = await fetch(`${s.origin}/pipelines/services/local/pipelineapi/list/json`, {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    expect(viaServices.status).toBe(200);
    const docs = await fetch(`${s.origin}/pipelines/docs/`);
    expect(docs.status).toBe(200);
    // The service's own redirects point under the base path too.
    const redirect = await fetch(`${s.origin}/pipelines/docs/static/index.html`, {
      redirect: 'manual',
    });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/pipelines/docs/');
  });

  it('serves nothing at the root, whatever the path names', async () => {
    for (const path of [
      '/',
      '/healthz',
      '/metrics',
      '/openapi.json',
      '/sign-in',
      '/assets/index-abc.js',
      '/pipelinesx/healthz',
    ]) {
      const answer = await fetch(`${s.origin}${path}`);
      expect(answer.status, path).toBe(404);
      expect(await answer.text()).toContain('this server answers under /pipelines/');
    }
    // Not even a sign-in: refused before any handler runs.
    const login = await signIn(`${s.origin}/mcapi/auth/login`);
    expect(login.status).toBe(404);
  });

  it('serves the dashboard shell at its root and client-side routes, naming the base path', async () => {
    for (const path of [
      '/pipelines',
      '/pipelines/',
      '/pipelines/requests/x',
      '/pipelines/index.html',
    ]) {
      const answer = await fetch(`${s.origin}${path}`);
      expect(answer.status, path).toBe(200);
      const html = await answer.text();
      expect(html).toContain('<meta name="pipeline-base-path" content="/pipelines" />');
      expect(html).toContain('src="/pipelines/assets/index-abc.js"');
      expect(html).toContain('href="/pipelines/favicon.svg"');
      expect(html).not.toContain('"./');
      // The page keeps the strict policy: no inline script, no <base>.
      expect(answer.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
    const asset = await fetch(`${s.origin}/pipelines/assets/index-abc.js`);
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('export {};\n');
  });

  it('writes the base path into the paths of the cookies it sets', async () => {
    const answer = await fetch(`${s.origin}/pipelines/pipelineapi/version/json`, {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    expect(answer.status).toBe(200);
    const cookies = answer.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/; Path=\/pipelines(;|$)/);
  });

  it('believes X-Forwarded-For from a trusted proxy: the audit and the access line name the client', async () => {
    const login = await signIn(`${s.origin}/pipelines/mcapi/auth/login`, {
      'x-forwarded-for': '198.51.100.7, 203.0.113.9',
    });
    expect(login.status).toBe(200);
    const audit = s.app.context.dbs.system
      .prepare(`SELECT ADDRESS, OPERATION FROM AUDIT ORDER BY SEQ DESC LIMIT 1`)
      .get() as Record<string, unknown>;
    expect(Object.values(audit)).toContain('203.0.113.9');
    const line = s.lines
      .filter((l) => l.msg === 'request' && l.route === '/mcapi/auth/login')
      .at(-1);
    expect(line).toMatchObject({
      method: 'POST',
      url: '/pipelines/mcapi/auth/login',
      status: 200,
      ip: '203.0.113.9',
    });
    expect(line?.reqId).toEqual(expect.any(String));
    expect(line?.durationMs).toEqual(expect.any(Number));
  });

  it('names the signed-in person and the route pattern on each access line, and no secret', async () => {
    const login = (await (await signIn(`${s.origin}/pipelines/mcapi/auth/login`)).json()) as {
      result: { data: { sessionId: string } };
    };
    const sessionId = login.result.data.sessionId;
    const answer = await fetch(
      `${s.origin}/pipelines/pipelineapi/requestdetail/json?requestId=nope`,
      { headers: { 'X-As-SessionId': sessionId } },
    );
    expect(answer.status).toBeLessThan(500);
    const line = s.lines.filter((l) => l.msg === 'request').at(-1);
    expect(line).toMatchObject({
      // Part C's operations share one route (its pattern, as metrics label it too).
      route: '/pipelineapi/*',
      user: 'admin',
      via: 'session',
      status: answer.status,
    });
    // A session id in the URL is refused (http/query-credentials.ts), its line redacted.
    const inUrl = await fetch(
      `${s.origin}/pipelines/pipelineapi/requestdetail/json?requestId=nope&sessionId=${sessionId}`,
      { headers: { 'X-As-SessionId': sessionId } },
    );
    expect(inUrl.status).toBe(400);
    const refused = s.lines.filter((l) => l.msg === 'request').at(-1);
    expect(refused).toMatchObject({ status: 400 });
    expect(refused?.url).toContain('sessionId=[redacted]');
    const everything = JSON.stringify(s.lines);
    expect(everything).not.toContain(sessionId);
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(TEST_API_KEY);
  });
});

describe('--trust-proxy', () => {
  it('ignores X-Forwarded-For from an address it does not trust', async () => {
    const s = await start({ trustProxy: ['10.0.0.1'] });
    try {
      const login = await signIn(`${s.origin}/mcapi/auth/login`, {
        'x-forwarded-for': '203.0.113.9',
      });
      expect(login.status).toBe(200);
      const line = s.lines.filter((l) => l.msg === 'request').at(-1);
      expect(line).toMatchObject({ route: '/mcapi/auth/login', ip: '127.0.0.1' });
      const audit = s.app.context.dbs.system
        .prepare(`SELECT ADDRESS, OPERATION FROM AUDIT ORDER BY SEQ DESC LIMIT 1`)
        .get() as Record<string, unknown>;
      expect(Object.values(audit)).toContain('127.0.0.1');
      expect(Object.values(audit)).not.toContain('203.0.113.9');
    } finally {
      await stop(s);
    }
  });

  it('trusts nobody by default', async () => {
    const s = await start({});
    try {
      await signIn(`${s.origin}/mcapi/auth/login`, { 'x-forwarded-for': '203.0.113.9' });
      expect(s.lines.filter((l) => l.msg === 'request').at(-1)).toMatchObject({ ip: '127.0.0.1' });
      // At the root, the shell's assets are absolute from the root.
      const html = await (await fetch(`${s.origin}/requests/x`)).text();
      expect(html).toContain('<meta name="pipeline-base-path" content="" />');
      expect(html).toContain('src="/assets/index-abc.js"');
    } finally {
      await stop(s);
    }
  });
});

describe('the pieces', () => {
  it('puts the base path before a cookie path', () => {
    expect(withCookiePath('SESSIONID=x; Path=/; HttpOnly', '/p')).toBe(
      'SESSIONID=x; Path=/p; HttpOnly',
    );
    expect(withCookiePath('s=x; path=/mcapi/auth/oidc', '/p')).toBe('s=x; path=/p/mcapi/auth/oidc');
    expect(withCookiePath('s=x; HttpOnly', '/p')).toBe('s=x; HttpOnly');
  });

  it('leaves a shell without relative URLs as it is but for the tag', () => {
    expect(appShell('<head><script src="/x.js"></script></head>', '/p')).toBe(
      '<head>\n    <meta name="pipeline-base-path" content="/p" /><script src="/x.js"></script></head>',
    );
  });
});

describe('single sign-on under --base-path', () => {
  it('sends the provider a callback under the base path, and comes back under it', async () => {
    const provider = await startOidcProvider({
      redirectUris: ['https://ops.example.com/pipelines/mcapi/auth/oidc/callback'],
      accounts: {},
    });
    const folder = mkdtempSync(join(tmpdir(), 'base-path-oidc-'));
    const app = await buildApp({
      dataDir: folder,
      demo: false,
      basePath: '/pipelines',
      trustProxy: ['127.0.0.1'],
      oidc: {
        issuer: provider.issuer,
        clientId: TEST_CLIENT.id,
        clientSecret: TEST_CLIENT.secret,
        roleClaim: 'groups',
        roles: parseRoleMapping('*=operator'),
        name: 'IdP',
      },
    });
    try {
      // As nginx passes it on: the public host and scheme, from a trusted address.
      const start = await app.server.inject({
        method: 'GET',
        url: '/pipelines/mcapi/auth/oidc/start?next=/requests',
        remoteAddress: '127.0.0.1',
        headers: { host: 'ops.example.com', 'x-forwarded-proto': 'https' },
      });
      expect(start.statusCode).toBe(302);
      const authorize = new URL(String(start.headers.location));
      expect(authorize.searchParams.get('redirect_uri')).toBe(
        'https://ops.example.com/pipelines/mcapi/auth/oidc/callback',
      );
      expect(String(start.headers['set-cookie'])).toMatch(/; Path=\/pipelines\/mcapi\/auth\/oidc;/);
      // A callback that fails still sends the browser to the dashboard's sign-in, under the base.
      const back = await app.server.inject({
        method: 'GET',
        url: '/pipelines/mcapi/auth/oidc/callback?state=unknown&code=x',
        remoteAddress: '127.0.0.1',
      });
      expect(back.statusCode).toBe(302);
      expect(String(back.headers.location)).toMatch(/^\/pipelines\/sign-in\?next=%2F#oidc=/);
    } finally {
      await app.close();
      await provider.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
