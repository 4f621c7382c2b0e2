import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { PipelineClient } from '../src/kit/index.ts';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import { addUser } from '../src/service/auth/users.ts';

export interface RunningService {
  readonly url: string;
  readonly apiKey: string;
  readonly app: App;
  readonly client: PipelineClient;
  readonly inbox: string;
}

export const API_KEY = 'e2e-key-0123456789abcdefghijklmnop';
export const ADMIN = { user: 'admin', password: 'admin-password-e2e' };
export const OPERATOR = { user: 'olivia', password: 'operator-password-e2e' };

/** Extra pipelines for the tests: hostile text, and one whose Filter logs thousands of lines. */
const MANY_STEPS = Array.from(
  { length: 1500 },
  (_, i) => `      - derive: { step${i}: 'n + ${i}' }`,
).join('\n');
const EXTRA_PIPELINES = `
pipelines:
  - id: pl_7
    name: "<img src=x onerror=alert(1)> Hostile & co"
    description: "<script>window.hacked = true</script><b>not bold</b>"
    sensor: { format: csv }
    filter:
      - cast: { n: integer }
    joint:
      - table:
          name: HOSTILE
          columns:
            - { name: N, type: INTEGER, from: n }
  - id: pl_8
    name: Many steps
    description: A Filter of 1500 actions, for long logs.
    sensor: { format: csv }
    filter:
${MANY_STEPS}
    joint:
      - file: { name: 'steps-\${requestid}.csv', format: csv }
`;

/**
 * Content Security Policy violations seen in a test's browser context: `securitypolicyviolation`
 * events of every page and frame, and console messages that mention the policy (Chromium
 * logs some refusals, frame-ancestors among them, only there). A test that provokes one on
 * purpose allows it by pattern, and can then assert that it happened.
 */
export class CspGuard {
  readonly violations: string[] = [];
  private readonly allowed: RegExp[] = [];

  allow(pattern: RegExp): void {
    this.allowed.push(pattern);
  }

  unexpected(): string[] {
    return this.violations.filter((v) => !this.allowed.some((pattern) => pattern.test(v)));
  }
}

const REPORT_BINDING = '__reportCspViolation';

/** Reports every violation in the context to the guard, across navigations and frames. */
async function watchCsp(context: BrowserContext, guard: CspGuard): Promise<void> {
  // A binding rather than only a window array: the array of a page that navigated away is
  // gone before the test ends, while a binding's calls reach the guard at once.
  await context.exposeBinding(REPORT_BINDING, (_source, text: unknown) => {
    guard.violations.push(String(text));
  });
  await context.addInitScript((binding: string) => {
    const w = window as unknown as Record<string, unknown> & { __cspViolations?: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      const text = `${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} in ${event.documentURI}${event.sample ? `: ${event.sample}` : ''}`;
      w.__cspViolations?.push(text);
      const report = w[binding];
      if (typeof report === 'function') void (report as (t: string) => Promise<void>)(text);
    });
  }, REPORT_BINDING);
  context.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) guard.violations.push(message.text());
  });
}

/**
 * The real service, in this worker's process, on an ephemeral port with a temporary data
 * folder and the demo, serving the built dashboard.
 */
export const test = base.extend<{ csp: CspGuard }, { service: RunningService }>({
  // Every test fails if the page broke the served Content Security Policy (an inline script
  // or style, an eval, a resource from elsewhere), unless it allowed that violation.
  csp: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const guard = new CspGuard();
      await use(guard);
      expect(guard.unexpected(), 'Content Security Policy violations').toEqual([]);
    },
    { auto: true },
  ],
  context: async ({ context, csp }, use) => {
    await watchCsp(context, csp);
    await use(context);
  },
  service: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-'));
      const definitions = join(dataDir, 'extra.yaml');
      writeFileSync(definitions, EXTRA_PIPELINES);
      const app = await buildApp({
        dataDir,
        demo: true,
        apiKey: API_KEY,
        adminPassword: ADMIN.password,
        staticDir: DIST_DIR,
        pipelinesFile: definitions,
        loginLimit: { max: 10_000, timeWindow: 60_000 },
      });
      await addUser(
        app.context.dbs.system,
        OPERATOR.user,
        OPERATOR.password,
        'operator',
        new Date().toISOString(),
      );
      const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
      await app.engine.whenIdle();
      await use({
        url,
        apiKey: API_KEY,
        app,
        client: new PipelineClient({ baseUrl: url, apiKey: API_KEY }),
        inbox: app.context.paths.inbox,
      });
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

export { expect };

export async function signIn(
  page: Page,
  service: RunningService,
  who: { user: string; password: string } = ADMIN,
  path = '/',
): Promise<void> {
  await page.goto(`${service.url}/sign-in?next=${encodeURIComponent(path)}`);
  await page.getByLabel('User name').fill(who.user);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('identity')).toContainText(who.user);
}

/** Waits until the engine has nothing running or queued that could still run. */
export async function settle(service: RunningService): Promise<void> {
  await service.app.engine.whenIdle();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await service.app.engine.whenIdle();
}

/**
 * Runs a route handler that forwards a call and rewrites its answer, ignoring a call the page
 * abandoned by navigating or reloading meanwhile (an auto-refresh in flight, say): nobody is
 * left to answer. Any other failure still fails the test.
 */
export async function unlessAbandoned(handle: () => Promise<void>): Promise<void> {
  try {
    await handle();
  } catch (error) {
    if (!/disposed|closed|already handled/i.test((error as Error).message)) throw error;
  }
}
