import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { API_HEADERS, pageHeaders } from './security.ts';

// docs/throughput.md: API answers carry the few headers an API answer needs, pages the
// page set; both computed once; a SESSIONID is minted only for a caller without a live one.

let service: TestService;

beforeAll(async () => {
  // A dashboard build of two files is enough to be served as one.
  const dist = mkdtempSync(join(tmpdir(), 'security-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(
    join(dist, 'index.html'),
    '<!doctype html><html><head><script type="module" src="./assets/app.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(dist, 'assets', 'app.js'), 'export {};\n');
  service = await startService({ staticDir: dist });
});

afterAll(async () => {
  await service.close();
});

const PAGE_ONLY = [
  'content-security-policy',
  'x-frame-options',
  'cross-origin-opener-policy',
  'referrer-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

const cookieOf = (response: Response) =>
  /SESSIONID=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];

describe('API answers', () => {
  it('carry nosniff, no-store and same-origin CORP, and none of the page headers', async () => {
    const answers = [
      await service.keyed('/pipelineapi/list/json'),
      await service.keyed('/pipelineapi/list/xml'),
      await service.fetch('/pipelineapi/list/json'), // refused: an error answer
      await service.keyed('/services/local/pipelineapi/version/json'),
      await service.fetch('/mcapi/auth/session'),
      await service.fetch('/api/auth/login', { method: 'POST' }),
      await service.fetch('/mcapi/no-such-thing'), // the site's 404, under an API prefix
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 200, 401, 400, 404]);
    for (const response of answers) {
      await response.arrayBuffer();
      expect(response.headers.get('x-content-type-options'), response.url).toBe('nosniff');
      expect(response.headers.get('cache-control'), response.url).toBe('no-store');
      expect(response.headers.get('cross-origin-resource-policy'), response.url).toBe(
        'same-origin',
      );
      for (const name of PAGE_ONLY) expect(response.headers.get(name), name).toBeNull();
    }
  });

  it('that are pages (htm) carry the page headers as well, errors included', async () => {
    for (const response of [
      await service.keyed('/pipelineapi/list/htm'),
      await service.fetch('/pipelineapi/list/htm'),
    ]) {
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('are a third of the bytes of headers they were (819 bytes before)', async () => {
    const response = await service.keyed('/pipelineapi/list/json');
    const bytes = [...response.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    expect(bytes).toBeLessThan(400);
  });
});

describe('pages', () => {
  it('the shell, its client-side routes, assets and /docs carry the CSP and framing headers', async () => {
    const page = await pageHeaders();
    for (const path of ['/', '/requests?pipeline=pl_1', '/assets/app.js', '/docs/']) {
      const response = await service.fetch(path);
      await response.arrayBuffer();
      expect(response.status, path).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      for (const [name, value] of Object.entries(page))
        expect(response.headers.get(name), `${path} ${name}`).toBe(value);
    }
  });

  it('the page headers are computed once and the API set is a subset in spirit', async () => {
    expect(await pageHeaders()).toBe(await pageHeaders());
    expect(Object.keys(API_HEADERS).sort()).toEqual([
      'cache-control',
      'cross-origin-resource-policy',
      'x-content-type-options',
    ]);
  });
});

describe('SESSIONID', () => {
  it('a keyed call without a cookie gets one; with that live cookie, no new one', async () => {
    const first = await service.keyed('/pipelineapi/list/json');
    const cookie = cookieOf(first);
    expect(cookie).toMatch(/^[0-9a-z]+\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}$/);
    expect(first.headers.get('set-cookie')).toMatch(/Path=\/; HttpOnly; SameSite=Strict/);
    for (const path of ['/pipelineapi/list/json', '/pipelineapi/version/xml']) {
      const again = await service.keyed(path, { headers: { Cookie: `SESSIONID=${cookie}` } });
      expect(again.status).toBe(200);
      expect(again.headers.get('set-cookie'), path).toBeNull();
    }
    // The cookie alone still authenticates: it was kept, not replaced.
    const alone = await service.fetch('/pipelineapi/list/json', {
      headers: { Cookie: `SESSIONID=${cookie}` },
    });
    expect(alone.status).toBe(200);
  });

  it('a keyed call with an unknown or ended cookie gets a new one', async () => {
    const unknown = await service.keyed('/pipelineapi/list/json', {
      headers: { Cookie: 'SESSIONID=00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.status).toBe(200);
    const fresh = cookieOf(unknown);
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe('00000000-0000-4000-8000-000000000000');
    await service.app.context.access.endCookieSession(fresh as string);
    const ended = await service.keyed('/pipelineapi/list/json', {
      headers: { Cookie: `SESSIONID=${fresh}` },
    });
    expect(cookieOf(ended)).toBeDefined();
    expect(cookieOf(ended)).not.toBe(fresh);
  });

  it('a wrong key is refused even beside a live cookie, and mints nothing', async () => {
    const cookie = cookieOf(await service.keyed('/pipelineapi/version/json'));
    const wrong = await service.fetch('/pipelineapi/list/json', {
      headers: { 'X-Pipelinewebapi': `${TEST_API_KEY}x`, Cookie: `SESSIONID=${cookie}` },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('a live cookie used long after it was set is set again, the same session with a new stamp', async () => {
    const clock = new ManualClock(Date.now());
    const timed = await startService({ clock });
    try {
      const cookie = cookieOf(await timed.keyed('/pipelineapi/version/json')) as string;
      const byCookie = (path: string, sent = cookie) =>
        timed.fetch(path, { headers: { Cookie: `SESSIONID=${sent}` } });
      clock.advance(4 * 60_000);
      // Fresh enough: the cached read answers it as it is, and sets nothing.
      const fresh = await byCookie('/pipelineapi/list/json');
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('set-cookie')).toBeNull();
      clock.advance(2 * 60_000);
      for (const path of ['/pipelineapi/list/json', '/pipelineapi/version/xml']) {
        const due = await byCookie(path);
        expect(due.status, path).toBe(200);
        const again = cookieOf(due);
        expect(again, path).toBeDefined();
        expect(again, path).not.toBe(cookie);
        expect(again?.split('.')[1], path).toBe(cookie.split('.')[1]);
        expect((await byCookie(path, again)).headers.get('set-cookie'), path).toBeNull();
      }
    } finally {
      await timed.close();
    }
  });
});
