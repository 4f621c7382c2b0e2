import { readdirSync, readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { DIST_DIR } from '../service/app.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../service/testing/chromium.ts';
import { BENCH_KEY, failOldest, median, seedRequests, startBenchService } from './seed.ts';

/** Gzip sizes of the built JavaScript: the first load, and each page's own chunk on top. */
export function bundleSizes(): { initialKb: number; routes: [string, number][] } {
  const assets = join(DIST_DIR, 'assets');
  const html = readFileSync(join(DIST_DIR, 'index.html'), 'utf8');
  const gz = (file: string) => gzipSync(readFileSync(join(assets, file))).length / 1024;
  const files = readdirSync(assets).filter((f) => f.endsWith('.js'));
  const entry = files.filter((f) => html.includes(f));
  const initialKb = entry.reduce((sum, f) => sum + gz(f), 0);
  const routes: [string, number][] = files
    .filter((f) => /^(overview|requests|request-detail|databases|settings)-page-/.test(f))
    .map((f) => [f.replace(/-[\w-]{8}\.js$/, ''), gz(f)]);
  return { initialKb, routes };
}

/** Signs the browser context in with the API key, as the sign-in page would store it. */
export async function withApiKey(context: BrowserContext, apiKey = BENCH_KEY): Promise<void> {
  await context.addInitScript(
    // Runs in the page; this file is compiled without DOM types.
    (key) =>
      (
        Reflect.get(globalThis, 'sessionStorage') as {
          setItem(name: string, value: string): void;
        }
      ).setItem('pipeline-dashboard.auth', JSON.stringify({ kind: 'apiKey', apiKey: key })),
    apiKey,
  );
}

/**
 * Runs `measure` against the built dashboard: a service in its own process on a data folder
 * that `seed` fills, and Chromium beside it with a context signed in by the API key. Both
 * end, and the folder goes, whatever `measure` does.
 */
async function withDashboard<Seeded, T>(
  seed: (data: string) => Seeded,
  measure: (service: { url: string }, context: BrowserContext, seeded: Seeded) => Promise<T>,
): Promise<T> {
  if (!existsSync(join(DIST_DIR, 'index.html')))
    throw new Error('build the dashboard first: npm run build');
  const folder = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
  const data = join(folder, 'data');
  const seeded = seed(data);
  const child = await startBenchService(data);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await withApiKey(context);
    return await measure(child, context, seeded);
  } finally {
    await browser.close();
    child.process.kill('SIGTERM');
    await child.exited;
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Seeds a day of `count` requests of pl_2 whose `errors` oldest failed; returns the day. */
function seedFailingDay(data: string, count: number, errors: number): string {
  const { day } = seedRequests(data, count, 'pl_2');
  failOldest(data, day, errors);
  return day;
}

export interface DashboardTimes {
  readonly pipelinesMs: number;
  readonly requests1000Ms: number;
  readonly rowElements: number;
  readonly rowsAfterScroll: number;
}

/** Navigation to filled tables, measured in Chromium against a service in its own process. */
export async function dashboardTimes(runs = 5): Promise<DashboardTimes> {
  return withDashboard(
    (data) => seedRequests(data, 1000, 'pl_3'),
    async (child, context) => {
      const page = await context.newPage();
      const pipelines: number[] = [];
      const requests: number[] = [];
      let rowElements = 0;
      let rowsAfterScroll = 0;
      for (let i = 0; i < runs; i++) {
        const started = Date.now();
        await page.goto(`${child.url}/pipelines`);
        await page.locator('tr[data-pipeline]').first().waitFor();
        pipelines.push(Date.now() - started);
        const again = Date.now();
        await page.goto(`${child.url}/requests?pipeline=pl_3&size=1000`);
        await page.locator('tr[data-request]').first().waitFor();
        await page.getByText('1–1,000 of 1,000').waitFor();
        requests.push(Date.now() - again);
        rowElements = await page.locator('tr[data-request]').count();
        await page
          .getByTestId('requests-table')
          .locator('..')
          .evaluate((el) => el.scrollTo(0, el.scrollHeight));
        await page.waitForTimeout(200);
        rowsAfterScroll = await page.locator('tr[data-request]').count();
      }
      return {
        pipelinesMs: median(pipelines),
        requests1000Ms: median(requests),
        rowElements,
        rowsAfterScroll,
      };
    },
  );
}

export interface OverviewAtScale {
  readonly requests: number;
  readonly errors: number;
  /** Navigation to the overview showing the day's exact counts, median of the runs. */
  readonly toExactCountsMs: number;
  /** Bytes over the wire (headers and encoded bodies) of the Part C calls of one refresh. */
  readonly bytesPerRefresh: number;
  /** Calls in one refresh, by operation. */
  readonly callsPerRefresh: Readonly<Record<string, number>>;
  /** What reading the day as the overview used to (20 pages of 1,000) downloads, same run. */
  readonly pagedBytes: number;
}

/**
 * The overview on a day of `count` requests (issue 14): time from navigation to its exact
 * counts, and what one auto-refresh downloads, against the 20 pages of 1,000 it read before.
 */
/**
 * One auto-refresh of an open overview: every Part C call from one requeststats answer up to
 * and with the next, their bytes (headers and bodies) and how many of each operation.
 */
export async function overviewRefresh(
  page: Page,
): Promise<{ bytesPerRefresh: number; callsPerRefresh: Record<string, number> }> {
  const calls: { operation: string; bytes: number; at: number }[] = [];
  page.on('requestfinished', (request) => {
    const match = /\/pipelineapi\/(\w+)\//.exec(request.url());
    if (!match) return;
    void request.sizes().then((sizes) =>
      calls.push({
        operation: match[1] as string,
        bytes: sizes.responseBodySize + sizes.responseHeadersSize,
        at: Date.now(),
      }),
    );
  });
  const stats = () => calls.filter((c) => c.operation === 'requeststats');
  while (stats().length < 2) await page.waitForTimeout(250);
  const [first, second] = stats() as [(typeof calls)[0], (typeof calls)[0]];
  const refresh = calls.filter((c) => c.at > first.at && c.at <= second.at);
  const callsPerRefresh: Record<string, number> = {};
  for (const c of refresh) callsPerRefresh[c.operation] = (callsPerRefresh[c.operation] ?? 0) + 1;
  return { bytesPerRefresh: refresh.reduce((n, c) => n + c.bytes, 0), callsPerRefresh };
}

export async function overviewAtScale(
  count = 100_006,
  errors = 39,
  runs = 3,
): Promise<OverviewAtScale> {
  return withDashboard(
    (data) => seedFailingDay(data, count, errors),
    async (child, context, day) => {
      let pagedBytes = 0;
      for (let index = 0; index < 20_000; index += 1000) {
        const response = await fetch(
          `${child.url}/pipelineapi/requestlist/json?date=${day}&index=${index}&pagesize=1000`,
          { headers: { 'X-Pipelinewebapi': BENCH_KEY, 'Accept-Encoding': 'gzip' } },
        );
        pagedBytes += (await response.arrayBuffer()).byteLength;
      }
      const page = await context.newPage();
      const expected = `${errors.toLocaleString('en-US')} requests in Error`;
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = Date.now();
        await page.goto(`${child.url}/?date=${day}`);
        await page.getByTestId('day-total').waitFor();
        await page.getByText(expected).waitFor();
        times.push(Date.now() - started);
      }
      await page.waitForLoadState('networkidle');
      const { bytesPerRefresh, callsPerRefresh } = await overviewRefresh(page);
      return {
        requests: count,
        errors,
        toExactCountsMs: median(times),
        bytesPerRefresh,
        callsPerRefresh,
        pagedBytes,
      };
    },
  );
}

export interface RequestsPageAtScale {
  readonly requests: number;
  /** The page as first read (100 rows), bytes over the wire: what a refresh read before. */
  readonly pageBytes: number;
  /** A quiet refresh (nothing changed): the `since` answer, bytes over the wire, median. */
  readonly refreshBytes: number;
  /** The same with the status filter "Error" on. */
  readonly filteredPageBytes: number;
  readonly filteredRefreshBytes: number;
  /** Refreshes measured per view, and how many of them read the whole page again. */
  readonly refreshes: number;
  readonly pageRereads: number;
}

/**
 * The requests page on a day of `count` requests (issue 14, "cheap refresh"): what one
 * auto-refresh downloads now that it asks only for what changed since the page's AsOf,
 * against the page itself, which every refresh read before. Same run, same service.
 */
export async function requestsPageAtScale(
  count = 100_006,
  refreshes = 4,
): Promise<RequestsPageAtScale> {
  return withDashboard(
    (data) => seedFailingDay(data, count, 39),
    async (child, context, day) => {
      // The shortest auto-refresh the dashboard offers, so that the run stays short.
      await context.addInitScript(() =>
        (
          Reflect.get(globalThis, 'localStorage') as { setItem(name: string, value: string): void }
        ).setItem(
          'pipeline-dashboard.preferences',
          JSON.stringify({ refreshSeconds: 2, pageSize: 100 }),
        ),
      );
      let pageRereads = 0;
      const view = async (query: string) => {
        const page = await context.newPage();
        const calls: { since: boolean; bytes: number }[] = [];
        page.on('requestfinished', (request) => {
          if (!request.url().includes('/pipelineapi/requestlist/')) return;
          const params = new URL(request.url()).searchParams;
          // The page's own reads, not the one-row read of the service's today.
          if (!params.has('since') && params.get('pagesize') !== '100') return;
          const since = params.has('since');
          void request
            .sizes()
            .then((sizes) =>
              calls.push({ since, bytes: sizes.responseBodySize + sizes.responseHeadersSize }),
            );
        });
        await page.goto(`${child.url}/requests?date=${day}${query}`);
        while (calls.filter((c) => c.since).length < refreshes) await page.waitForTimeout(250);
        await page.close();
        const first = calls.find((c) => !c.since)?.bytes ?? NaN;
        const sinceCalls = calls.filter((c) => c.since);
        // A full read after the first one is a refresh that could not merge.
        pageRereads += calls.filter((c) => !c.since).length - 1;
        return { first, refresh: median(sinceCalls.map((c) => c.bytes)) };
      };
      const all = await view('');
      const errors = await view('&status=Error');
      return {
        requests: count,
        pageBytes: all.first,
        refreshBytes: all.refresh,
        filteredPageBytes: errors.first,
        filteredRefreshBytes: errors.refresh,
        refreshes,
        pageRereads,
      };
    },
  );
}
