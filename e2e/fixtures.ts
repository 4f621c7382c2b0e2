import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { PipelineClient } from '../src/kit/index.ts';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import { addUser } from '../src/service/auth/users.ts';
import { ConformanceGuard } from './conformance.ts';
import { perFile } from './per-file.ts';
import type { ServiceEntry } from '../src/service/gateway/services.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../src/service/testing/vendor/vendor-service.ts';

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

/**
 * The demo service with the built dashboard, ADMIN and OPERATOR, listening on a free port
 * of its own data folder once its demo requests have run; `stop` closes it and removes the
 * folder. `options` add to (or replace) what buildApp is given.
 */
export async function startDemoApp(
  options: Partial<Parameters<typeof buildApp>[0]> = {},
): Promise<{ url: string; app: App; dataDir: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-'));
  const app = await buildApp({
    dataDir,
    demo: true,
    adminPassword: ADMIN.password,
    staticDir: DIST_DIR,
    loginLimit: { max: 10_000, timeWindow: 60_000 },
    accountLoginLimit: { max: 10_000, timeWindow: 3_600_000 },
    ...options,
  });
  await addUser(
    app.context.shared,
    OPERATOR.user,
    OPERATOR.password,
    'operator',
    new Date().toISOString(),
  );
  const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  await app.engine.whenIdle();
  return {
    url,
    app,
    dataDir,
    stop: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

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
export const test = base.extend<
  { csp: CspGuard; openApi: ConformanceGuard },
  { service: RunningService }
>({
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
  // Every answer of our server the page got must conform to the server's /openapi.json.
  openApi: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const guard = new ConformanceGuard();
      await use(guard);
      expect(await guard.settled(), 'answers not conforming to /openapi.json').toEqual([]);
    },
    { auto: true },
  ],
  context: async ({ context, csp, openApi }, use) => {
    await watchCsp(context, csp);
    openApi.watch(context);
    await use(context);
  },
  service: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const folder = mkdtempSync(join(tmpdir(), 'pipeline-e2e-definitions-'));
      const definitions = join(folder, 'extra.yaml');
      writeFileSync(definitions, EXTRA_PIPELINES);
      const { url, app, stop } = await startDemoApp({
        apiKey: API_KEY,
        pipelinesFile: definitions,
      });
      await use({
        url,
        apiKey: API_KEY,
        app,
        client: new PipelineClient({ baseUrl: url, apiKey: API_KEY }),
        inbox: app.context.paths.inbox,
      });
      await stop();
      rmSync(folder, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

export { expect };

export async function signIn(
  page: Page,
  service: Pick<RunningService, 'url'>,
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

/** A server in front of other services (contract section 7), as `--services` starts it. */
export interface GatewayService {
  readonly url: string;
  readonly app: App;
  /**
   * The vendor-like doubles behind it, by service id: `kanto` and `pacific` as interfaces.md
   * alone describes a service; `tokai` answers a whole day at once, in Shift_JIS and
   * Japanese ({@link TOKAI_DAY}); `chubu` pages by `index` taken as a page number (not a row),
   * at most 500 rows an answer, with a truthful Next, and has a SALES table of
   * {@link CHUBU_SALES_ROWS} rows. (`ours` takes index as a row, as our contract does.)
   */
  readonly vendors: {
    readonly kanto: VendorService;
    readonly pacific: VendorService;
    readonly tokai: VendorService;
    readonly chubu: VendorService;
  };
  /** A second copy of our own embedded service, behind it as service `ours`. */
  readonly ours: { readonly app: App; readonly url: string; readonly client: PipelineClient };
  /** Every upstream key: none may reach a browser or a log line. */
  readonly upstreamKeys: readonly string[];
  /** The gateway's log lines so far. */
  readonly logs: readonly string[];
}

export const DEVELOPER = { user: 'devon', password: 'developer-password-e2e' };
/** Today's requests of `tokai`, of which `failed` ended in its failed status (Abort). */
export const TOKAI_DAY = { total: 100_000, failed: 39, failedFile: 'fail-売上.csv' } as const;
/** Rows of `chubu`'s SALES table: more than one answer of its holds. */
export const CHUBU_SALES_ROWS = 1250;
/**
 * Seconds the gateway gives an upstream to answer (the slow one takes longer): its whole
 * answer, so enough for tokai's day of 100,000 requests in one answer (about 20 MB, read
 * in this same busy process with the double writing it) on a loaded two-core machine.
 */
export const GATEWAY_UPSTREAM_TIMEOUT_S = 10;
const OURS_KEY = 'ours-upstream-key-0123456789abcdefghij';

/**
 * A gateway in this worker's process, for the spec file that calls this, in front of the vendor-like doubles (`kanto`,
 * `pacific`, `tokai`, `chubu`), a second copy of our own embedded service (`ours`, with the
 * demo), one that is down and one slower than the gateway's timeout. Its users are its own (ADMIN,
 * OPERATOR, DEVELOPER); its request index refreshes every second (tokai's every 30 s).
 */
export function gatewayTestForFile() {
  const gateway = perFile<GatewayService>(startGateway, { setUpTimeoutMs: 180_000 });
  return test.extend<{ gateway: GatewayService }>({
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    gateway: async ({}, use) => use(gateway()),
  });
}

async function startGateway(use: (gateway: GatewayService) => Promise<void>): Promise<void> {
  const kanto = await startVendorService({
    variant: VENDOR_VARIANTS.kanto,
    apiKey: 'kanto-upstream-key-0123456789abcdef',
  });
  const pacific = await startVendorService({
    variant: VENDOR_VARIANTS.pacific,
    apiKey: 'pacific-upstream-key-0123456789abcdef',
  });
  const slow = await startVendorService({ apiKey: 'slow-upstream-key-0123456789abcdef' });
  // A product that ignores pagesize and index and states no Next or Total: its whole day
  // comes in one answer, in Shift_JIS, its messages in Japanese, its dates with slashes.
  const tokai = await startVendorService({
    variant: VENDOR_VARIANTS.kanto,
    apiKey: 'tokai-upstream-key-0123456789abcdef',
    behaviour: {
      pagesize: 'ignored',
      next: 'absent',
      charset: 'shift_jis',
      language: 'ja',
      dates: 'slash',
      // Runmode in its own words (稼働中, 停止中), which no switch can draw.
      runmodeWords: 'own',
    },
  });
  tokai.addRequests('pl_1', 60_000);
  tokai.addRequests('pl_2', TOKAI_DAY.total - TOKAI_DAY.failed - 60_000);
  // Failing as the product fails them: through its stages, its own message in the log.
  tokai.addRequests('pl_2', TOKAI_DAY.failed, TOKAI_DAY.failedFile, 'waiting');
  for (let step = 0; step < 4; step++) tokai.advance();
  // A product that pages by index as a page number, at most 500 rows an answer, and tells
  // Next truthfully in pages (learnt from its request list: it has a day to probe).
  const chubu = await startVendorService({
    variant: VENDOR_VARIANTS.kanto,
    apiKey: 'chubu-upstream-key-0123456789abcdef',
    // Its Runmode in another product's words: RUNNING and SUSPENDED.
    behaviour: {
      pagesize: { cap: 500 },
      index: 'pages',
      next: 'stated',
      runmodeWords: 'upper',
    },
  });
  chubu.addRequests('pl_1', 3);
  chubu.addTableRows('SALES', CHUBU_SALES_ROWS - 3);
  const oursDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-ours-'));
  const ours = await buildApp({
    dataDir: oursDir,
    demo: true,
    apiKey: OURS_KEY,
    adminPassword: ADMIN.password,
  });
  const oursUrl = await ours.server.listen({ host: '127.0.0.1', port: 0 });
  await ours.engine.whenIdle();
  // A port nothing listens on: the closed port of a server started and stopped.
  const gone = await startVendorService();
  const goneUrl = gone.url;
  await gone.close();
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-gateway-'));
  const logs: string[] = [];
  const entries: ServiceEntry[] = [
    { id: 'kanto', name: 'Kanto', url: kanto.url, apiKey: kanto.apiKey, pollSeconds: 1 },
    {
      id: 'pacific',
      name: 'Pacific',
      url: pacific.url,
      apiKey: pacific.apiKey,
      label: 'production',
      color: 'red',
      pollSeconds: 1,
    },
    { id: 'ours', name: 'Ours', url: oursUrl, apiKey: OURS_KEY, pollSeconds: 1 },
    { id: 'down', name: 'Down', url: goneUrl, apiKey: 'down-upstream-key-0123456789abcdef' },
    { id: 'slow', name: 'Slow', url: slow.url, apiKey: slow.apiKey, pollSeconds: 60 },
    // Each round reads 100,000 requests: every 30 s at most, not every second.
    { id: 'tokai', name: 'Tokai', url: tokai.url, apiKey: tokai.apiKey, pollSeconds: 30 },
    { id: 'chubu', name: 'Chubu', url: chubu.url, apiKey: chubu.apiKey, pollSeconds: 1 },
  ];
  slow.setDelay((GATEWAY_UPSTREAM_TIMEOUT_S + 3) * 1000);
  const app = await buildApp({
    dataDir,
    demo: false,
    adminPassword: ADMIN.password,
    staticDir: DIST_DIR,
    services: entries,
    loginLimit: { max: 10_000, timeWindow: 60_000 },
    accountLoginLimit: { max: 10_000, timeWindow: 3_600_000 },
    limits: { upstreamTimeoutMs: GATEWAY_UPSTREAM_TIMEOUT_S * 1000 },
    logger: { level: 'info', stream: { write: (line: string) => void logs.push(line) } },
  });
  const stamp = new Date().toISOString();
  await addUser(app.context.shared, OPERATOR.user, OPERATOR.password, 'operator', stamp);
  await addUser(app.context.shared, DEVELOPER.user, DEVELOPER.password, 'developer', stamp);
  const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  await use({
    url,
    app,
    vendors: { kanto, pacific, tokai, chubu },
    ours: {
      app: ours,
      url: oursUrl,
      client: new PipelineClient({ baseUrl: oursUrl, apiKey: OURS_KEY }),
    },
    upstreamKeys: entries.flatMap((e) => ('apiKey' in e ? [e.apiKey] : [])),
    logs,
  });
  await app.close();
  await ours.close();
  await Promise.all([kanto, pacific, slow, tokai, chubu].map((vendor) => vendor.close()));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(oursDir, { recursive: true, force: true });
}
