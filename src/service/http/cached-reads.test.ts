import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App, type AppConfig } from '../app.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { TEST_API_KEY } from '../testing/service.ts';
import { CachedReads } from './cached-reads.ts';
import { ServiceMetrics } from './metrics.ts';

// Cached Part C reads answered before Fastify's cycle (cached-reads.ts) against the same
// reads on the full cycle: two services over copies of one data folder, one of them with
// `cachedReadsFirst: false`, asked the same calls in the same order.

const PASSWORD = 'Correct-horse-battery-9';
const LIST = '/pipelineapi/list/json';

interface Started {
  readonly app: App;
  readonly origin: string;
  readonly lines: Record<string, unknown>[];
  /** Answers the fast path gave so far. */
  answered(): number;
}

async function start(dataDir: string, config: Partial<AppConfig> = {}): Promise<Started> {
  const lines: Record<string, unknown>[] = [];
  const app = await buildApp({
    dataDir,
    demo: false,
    apiKey: TEST_API_KEY,
    adminPassword: PASSWORD,
    ...config,
    logger: {
      level: 'info',
      stream: {
        write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
      },
    },
  });
  const origin = await app.server.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin, lines, answered: () => app.cachedReads.answered };
}

/** What a client sees of an answer, but the Date and a freshly minted SESSIONID's value. */
async function seen(response: Response) {
  const headers = Object.fromEntries(
    [...response.headers]
      .filter(([name]) => name !== 'date')
      .map(([name, value]) =>
        name === 'set-cookie'
          ? [name, value.replace(/^SESSIONID=[^;]+/, 'SESSIONID=…')]
          : [name, value],
      ),
  );
  return { status: response.status, headers, body: await response.text() };
}

const cookieOf = (response: Response): string =>
  /^SESSIONID=[^;]+/.exec(response.headers.get('set-cookie') ?? '')?.[0] ?? '';

describe('cached reads before the full cycle', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cached-reads-test-'));
  let fast: Started;
  let full: Started;

  beforeAll(async () => {
    const pipelines = writeTestPipelines(folder);
    const seed = await start(join(folder, 'fast'), { pipelinesFile: pipelines });
    await seed.app.close();
    cpSync(join(folder, 'fast'), join(folder, 'full'), { recursive: true });
    fast = await start(join(folder, 'fast'), { pipelinesFile: pipelines });
    full = await start(join(folder, 'full'), { pipelinesFile: pipelines, cachedReadsFirst: false });
  });
  afterAll(async () => {
    await fast?.app.close();
    await full?.app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('gives every caller the answer the full cycle gives, and answers only plain readers itself', async () => {
    // Each service's own SESSIONID, minted by its first keyed answer (which fills the cache).
    const cookies = new Map<Started, string>();
    for (const s of [fast, full]) {
      const first = await fetch(`${s.origin}${LIST}`, {
        headers: { 'X-Pipelinewebapi': TEST_API_KEY },
      });
      expect(first.status).toBe(200);
      cookies.set(s, cookieOf(first));
    }
    const cases: [string, (s: Started) => RequestInit, boolean][] = [
      [
        'key and live cookie',
        (s) => ({ headers: { 'X-Pipelinewebapi': TEST_API_KEY, cookie: cookies.get(s) ?? '' } }),
        true,
      ],
      [
        'live cookie alone',
        (s) => ({ headers: { cookie: `other=1; ${cookies.get(s) ?? ''}` } }),
        true,
      ],
      [
        'key alone (a SESSIONID is minted)',
        () => ({ headers: { 'X-Pipelinewebapi': TEST_API_KEY } }),
        false,
      ],
      [
        'wrong key beside a live cookie',
        (s) => ({ headers: { 'X-Pipelinewebapi': 'wrong', cookie: cookies.get(s) ?? '' } }),
        false,
      ],
      ['unknown cookie', () => ({ headers: { cookie: 'SESSIONID=nobody' } }), false],
      ['nothing', () => ({}), false],
      [
        "a person's session header beside a live cookie",
        (s) => ({ headers: { 'X-As-SessionId': 'nobody', cookie: cookies.get(s) ?? '' } }),
        false,
      ],
      [
        'HEAD',
        (s) => ({
          method: 'HEAD',
          headers: { 'X-Pipelinewebapi': TEST_API_KEY, cookie: cookies.get(s) ?? '' },
        }),
        false,
      ],
    ];
    for (const [name, init, answeredFirst] of cases) {
      const before = fast.answered();
      const ours = await seen(await fetch(`${fast.origin}${LIST}`, init(fast)));
      const theirs = await seen(await fetch(`${full.origin}${LIST}`, init(full)));
      expect(ours, name).toEqual(theirs);
      expect(fast.answered() - before, name).toBe(answeredFirst ? 1 : 0);
    }
    // The full cycle's service never answers before it.
    expect(full.answered()).toBe(0);
    // The answer itself carries the API headers and nothing of the pages'.
    const answer = await fetch(`${fast.origin}${LIST}`, {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY, cookie: cookies.get(fast) ?? '' },
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toBeNull();
  });

  it('leaves a changed database, an unknown URL and a switched-off API to the full cycle', async () => {
    const first = await fetch(`${fast.origin}${LIST}`, {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    const headers = { 'X-Pipelinewebapi': TEST_API_KEY, cookie: cookieOf(first) };
    await fetch(`${fast.origin}${LIST}`, { headers });
    let before = fast.answered();
    fast.app.context.dbs.touch();
    expect((await fetch(`${fast.origin}${LIST}`, { headers })).status).toBe(200);
    expect(fast.answered()).toBe(before);
    // Filled again at the new version: the next is answered first.
    expect((await fetch(`${fast.origin}${LIST}`, { headers })).status).toBe(200);
    expect(fast.answered()).toBe(before + 1);
    before = fast.answered();
    expect((await fetch(`${fast.origin}/pipelineapi/nosuchapi/json`, { headers })).status).toBe(
      404,
    );
    expect((await fetch(`${fast.origin}/pipelineapi/list/yaml`, { headers })).status).toBe(400);
    await fast.app.context.access.setEnabled(false);
    try {
      const off = await fetch(`${fast.origin}${LIST}`, { headers });
      expect(off.status).toBe(403);
    } finally {
      await fast.app.context.access.setEnabled(true);
    }
    expect(fast.answered()).toBe(before);
  });

  it('counts its answers in the latency histogram and writes their access lines', async () => {
    const first = await fetch(`${fast.origin}${LIST}`, {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    const headers = { 'X-Pipelinewebapi': TEST_API_KEY, cookie: cookieOf(first) };
    const count = async () => {
      const text = await (await fetch(`${fast.origin}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_request_duration_seconds_count{') &&
            l.includes('route="/pipelineapi/list/:format"') &&
            l.includes('status_code="200"'),
        );
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const counted = await count();
    const before = fast.answered();
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${fast.origin}${LIST}?n=0`, { headers })).status).toBe(200);
    // The first of the three filled the cache on the full cycle; both paths count.
    expect(fast.answered() - before).toBe(2);
    expect((await count()) - counted).toBe(3);
    const lines = fast.lines.filter((l) => l.msg === 'request' && l.url === `${LIST}?n=0`);
    expect(lines).toHaveLength(3);
    for (const line of lines)
      expect(line).toMatchObject({
        method: 'GET',
        route: '/pipelineapi/*',
        status: 200,
        via: 'key',
        user: null,
        ip: '127.0.0.1',
        reqId: expect.stringMatching(/^req-[0-9a-z]+$/),
      });
    expect(new Set(lines.map((l) => l.reqId)).size).toBe(3);
  });
});

describe('cached reads under a base path, behind a trusted proxy', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cached-reads-base-'));
  let s: Started;
  beforeAll(async () => {
    s = await start(join(folder, 'data'), { basePath: '/pipelines', trustProxy: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await s?.app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('answers under the base path only, and logs the address the proxy names', async () => {
    const first = await fetch(`${s.origin}/pipelines${LIST}`, {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    expect(first.status).toBe(200);
    const body = await first.text();
    const headers = {
      'X-Pipelinewebapi': TEST_API_KEY,
      cookie: cookieOf(first),
      'X-Forwarded-For': '203.0.113.9',
    };
    const before = s.answered();
    const answer = await fetch(`${s.origin}/pipelines${LIST}`, { headers });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(body);
    expect(s.answered()).toBe(before + 1);
    const line = s.lines.filter((l) => l.msg === 'request').at(-1);
    expect(line).toMatchObject({ url: `/pipelines${LIST}`, ip: '203.0.113.9', via: 'key' });
    // At the root nothing is answered, cached or not.
    expect((await fetch(`${s.origin}${LIST}`, { headers })).status).toBe(404);
    expect(s.answered()).toBe(before + 1);
  });
});

describe('a failure before the answer begins', () => {
  it('leaves the request to the full cycle instead of ending the process', async () => {
    const cached = new CachedReads({
      basePath: '',
      trustProxy: undefined,
      metrics: new ServiceMetrics(() => []),
      http: { options: {}, keepAliveTimeout: 5_000, requestTimeout: 10_000 },
    });
    cached.start(
      () => {
        throw new Error('resolver failed');
      },
      () => undefined,
      undefined,
    );
    let handled = 0;
    const server = cached.serverFactory((_request, response) => {
      handled++;
      response.end('full cycle');
    }, {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}${LIST}`);
      expect(await answer.text()).toBe('full cycle');
      expect(handled).toBe(1);
      expect(cached.answered).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
