import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PipelineClient } from '../../kit/index.ts';
import { buildApp, type App, type AppConfig } from '../app.ts';
import { conformingFetch, NonConformingAnswer } from './conforming-fetch.ts';

export const TEST_API_KEY = 'test-key-0123456789abcdefghijklmnopqrstuv';

export interface TestService {
  readonly app: App;
  readonly url: string;
  readonly dataDir: string;
  /** A kit client holding the API key. */
  readonly client: PipelineClient;
  /**
   * fetch for any URL, rejecting an answer of this service that leaves /openapi.json: for
   * clients a test builds itself (`new PipelineClient({ fetch: service.checkedFetch })`).
   */
  readonly checkedFetch: typeof fetch;
  /** A raw fetch against the service (its answers held to /openapi.json). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** A fetch carrying the API key (its answers held to /openapi.json). */
  keyed(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts the real service in this process on an ephemeral loopback port with a fresh
 * temporary data folder. `dataDir` reuses a folder, e.g. to restart over the same data.
 */
export async function startService(
  config: Partial<AppConfig> & { keepData?: boolean } = {},
): Promise<TestService> {
  const dataDir = config.dataDir ?? mkdtempSync(join(tmpdir(), 'pipeline-test-'));
  // Tests sign in far more often than a person; the limit has a test of its own.
  const app = await buildApp({
    demo: false,
    apiKey: TEST_API_KEY,
    loginLimit: { max: 10_000, timeWindow: 60_000 },
    accountLoginLimit: { max: 10_000, timeWindow: 3_600_000 },
    ...config,
    dataDir,
  });
  const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  const problems: string[] = [];
  const checkedFetch = conformingFetch(url, problems);
  const doFetch = (path: string, init?: RequestInit) => checkedFetch(`${url}${path}`, init);
  return {
    app,
    url,
    dataDir,
    checkedFetch,
    client: new PipelineClient({ baseUrl: url, apiKey: TEST_API_KEY, fetch: checkedFetch }),
    fetch: doFetch,
    keyed: (path, init) =>
      doFetch(path, {
        ...init,
        headers: {
          'X-Pipelinewebapi': TEST_API_KEY,
          ...(init?.headers as Record<string, string> | undefined),
        },
      }),
    async close() {
      await app.close();
      if (!config.keepData && config.dataDir === undefined)
        rmSync(dataDir, { recursive: true, force: true });
      // A call that was meant to fail may have hidden its answer's problem: told here too.
      if (problems.length > 0)
        throw new NonConformingAnswer(
          `answers of this test service left /openapi.json:\n  ${problems.join('\n  ')}`,
        );
    },
  };
}

/** A POST of form fields, as a browser's sign-in sends them; `headers` add to it. */
export const formPost = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8', ...headers },
  body: new URLSearchParams(fields).toString(),
});

/** Signs a person in through Part A's login; its session id, or an error naming the answer. */
export async function signIn(
  service: Pick<TestService, 'fetch'>,
  userName: string,
  password: string,
): Promise<string> {
  const response = await service.fetch('/mcapi/auth/login', formPost({ userName, password }));
  if (response.status !== 200)
    throw new Error(`sign-in of ${userName} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
}

/** Waits until `check` returns a value, polling; fails with `what` after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
