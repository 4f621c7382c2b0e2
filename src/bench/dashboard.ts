import { readdirSync, readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { DIST_DIR } from '../service/app.ts';
import { startChild } from '../service/testing/child.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../service/testing/chromium.ts';
import { seedRequests } from './seed.ts';

const KEY = 'bench-key-0123456789abcdefghijklmnopqrstu';

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

export interface DashboardTimes {
  readonly pipelinesMs: number;
  readonly requests1000Ms: number;
  readonly rowElements: number;
  readonly rowsAfterScroll: number;
}

/** Navigation to filled tables, measured in Chromium against a service in its own process. */
export async function dashboardTimes(runs = 5): Promise<DashboardTimes> {
  if (!existsSync(join(DIST_DIR, 'index.html')))
    throw new Error('build the dashboard first: npm run build');
  const folder = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
  const data = join(folder, 'data');
  seedRequests(data, 1000, 'pl_3');
  const child = await startChild([
    '--data',
    data,
    '--api-key',
    KEY,
    '--no-demo',
    '--pipelines',
    join(process.cwd(), 'src/service/demo/pipelines.yaml'),
  ]);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(
      // Runs in the page; this file is compiled without DOM types.
      (key) =>
        (
          Reflect.get(globalThis, 'sessionStorage') as {
            setItem(name: string, value: string): void;
          }
        ).setItem('pipeline-dashboard.auth', JSON.stringify({ kind: 'apiKey', apiKey: key })),
      KEY,
    );
    const page = await context.newPage();
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
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
  } finally {
    await browser.close();
    child.process.kill('SIGTERM');
    await child.exited;
    rmSync(folder, { recursive: true, force: true });
  }
}
