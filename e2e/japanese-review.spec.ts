import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { parse } from 'yaml';
import { PipelineClient, REQUEST_STAGES, REQUEST_STATUSES } from '../src/kit/index.ts';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import { quoteIdentifier } from '../src/service/db/sqlite.ts';
import { statusTableName } from '../src/service/db/status/requests.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../src/service/testing/vendor/vendor-service.ts';
import { seedDay } from './day-seed.ts';
import { ADMIN, expect, test, type RunningService } from './fixtures.ts';

// Issue 25, item 8: the pages added for issue 25 read in Japanese as a Japanese operator
// reads them. japanese-catalogue.spec.ts catches a whole English catalogue text left on a
// page; this spec catches English *words* of the dashboard's own vocabulary anywhere in a
// text (a fallback to English inside a sentence, a hard-coded "since", "as of", "failed"),
// on the fleet page, a pipeline's trends, the Services page's status words, the banner of
// a service that is down and the attempts panel of a retried request, at a desk and on a
// phone. What the services wrote (their names, labels, pipeline names, statuses, failure
// messages) is data and stays as written: the test knows each, since it made them.

type Tree = { readonly [key: string]: string | Tree };
const LOCALES = join(import.meta.dirname, '../src/dashboard/i18n/locales');

function texts(language: string): string[] {
  const out: string[] = [];
  const walk = (tree: Tree) => {
    for (const value of Object.values(tree))
      if (typeof value === 'string') out.push(value);
      else walk(value);
  };
  for (const file of readdirSync(join(LOCALES, language)))
    walk(JSON.parse(readFileSync(join(LOCALES, language, file), 'utf8')) as Tree);
  return out;
}

const wordsOf = (text: string) =>
  (text.replace(/\{\{[^}]*\}\}|<[^>]*>/g, ' ').match(/[A-Za-z][A-Za-z'-]{2,}/g) ?? []).map((w) =>
    w.toLowerCase(),
  );

/**
 * The English catalogue's own words that Japanese never shows: "failed", "since", "cannot",
 * "request"… A word the Japanese catalogue writes too (Sensor, JSON, curl, p95, index) or a
 * service's status or stage word is no sign of English left behind.
 */
const ENGLISH_WORDS: ReadonlySet<string> = (() => {
  const japanese = new Set(texts('ja').flatMap(wordsOf));
  const service = new Set([...REQUEST_STATUSES, ...REQUEST_STAGES].map((w) => w.toLowerCase()));
  return new Set(
    texts('en')
      .flatMap(wordsOf)
      .filter((w) => !japanese.has(w) && !service.has(w)),
  );
})();

/**
 * Texts on the page (rendered text nodes, and the names controls are given) that still hold
 * an English word of the dashboard once every value the services wrote is taken out.
 */
async function englishLeft(page: Page, data: readonly string[]): Promise<string[]> {
  const shown = await page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      // translate="no" marks what the service wrote (its log lines); an unrendered text
      // (a closed <details>, a hidden panel) is not read.
      if (!parent || parent.closest('script, style, [translate="no"]')) continue;
      if (!parent.checkVisibility()) continue;
      const text = node.textContent?.trim() ?? '';
      if (text) out.push(text);
    }
    for (const el of Array.from(document.querySelectorAll('[aria-label], [title], [placeholder]')))
      for (const name of ['aria-label', 'title', 'placeholder']) {
        const value = el.getAttribute(name)?.trim();
        if (value) out.push(value);
      }
    return out;
  });
  // Longest first, so that "Tokyo prod" goes before "Tokyo".
  const values = [...data].sort((a, b) => b.length - a.length);
  const found = new Set<string>();
  for (const text of shown) {
    let rest = text;
    for (const value of values) rest = rest.split(value).join(' ');
    // Ids and file names the services gave: pl_2-20261125_10-000013, broken.csv.
    rest = rest.replace(/\bpl_[\w-]+|[\w.-]+\.(csv|json|txt)\b/g, ' ');
    if (wordsOf(rest).some((w) => ENGLISH_WORDS.has(w))) found.add(text);
  }
  return [...found];
}

/**
 * Short texts (titles, labels, buttons, links, headers) whose lines break inside a katakana
 * word, as 「パス / ワード」: a break between two katakana is inside a word.
 */
async function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const katakana = /[\u30A0-\u30FF]/;
    const out: string[] = [];
    const selector = 'h1, h2, h3, h4, label, legend, summary, button, a, th, dt, [role="tab"]';
    for (const el of Array.from(document.querySelectorAll(selector))) {
      if (!el.checkVisibility()) continue;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        // A select's options are not laid out in lines.
        if (node.parentElement?.closest('select, option')) continue;
        const text = node.textContent ?? '';
        for (let i = 1; i < text.length; i++) {
          if (!katakana.test(text[i - 1] ?? '') || !katakana.test(text[i] ?? '')) continue;
          const box = (at: number) => {
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + 1);
            return range.getBoundingClientRect();
          };
          const before = box(i - 1);
          const after = box(i);
          if (before.height > 0 && after.top >= before.bottom - 1)
            out.push(el.textContent?.trim() ?? '');
        }
      }
    }
    return [...new Set(out)];
  });
}

const SERVICES = [
  { id: 'tokyo', name: 'Tokyo prod', label: 'production' },
  { id: 'nagoya', name: 'Nagoya prod', label: 'production' },
  { id: 'local', name: 'Embedded', label: '' },
] as const;

let tokyo: VendorService;
let app: App;
let url: string;
let dataDir: string;
let retried: string;
/** Whether this worker has retried it yet (each worker has its own server). */
let retriedOnce = false;
/** Everything the services wrote that these pages show: names, labels, messages. */
const DATA: string[] = [];

test.beforeAll(async () => {
  tokyo = await startVendorService({
    variant: VENDOR_VARIANTS.kanto,
    apiKey: 'tokyo-upstream-key-0123456789abcdef',
  });
  tokyo.addRequests('pl_1', 4);
  tokyo.addRequests('pl_2', 3, 'broken.csv', 'failed');
  tokyo.addRequests('pl_7', 2, 'held.csv', 'waiting');
  // A service that does not answer: its port was just given back.
  const gone = await startVendorService();
  const goneUrl = gone.url;
  await gone.close();
  dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-ja-review-'));
  app = await buildApp({
    dataDir,
    demo: true,
    adminPassword: ADMIN.password,
    staticDir: DIST_DIR,
    loginLimit: { max: 10_000, timeWindow: 60_000 },
    accountLoginLimit: { max: 10_000, timeWindow: 3_600_000 },
    limits: { upstreamTimeoutMs: 2000 },
    services: [
      {
        ...SERVICES[0],
        url: tokyo.url,
        apiKey: tokyo.apiKey,
        color: 'red',
        zone: 'Asia/Tokyo',
        pollSeconds: 1,
        statuses: { failed: ['Abort'], waiting: ['Wait'], running: ['Running'] },
      },
      {
        ...SERVICES[1],
        url: goneUrl,
        apiKey: 'nagoya-upstream-key-0123456789abcdef',
        color: 'red',
        pollSeconds: 1,
      },
      { id: 'local', name: 'Embedded', embedded: true, color: 'teal' },
    ],
  });
  url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  await app.engine.whenIdle();
  // A week of the embedded pl_2, today with failures: trends to draw, a request to retry.
  const today = app.context.time.day(new Date());
  const service = { app } as RunningService;
  for (let back = 0; back <= 6; back++) {
    const day = new Date(
      Date.UTC(
        Number(today.slice(0, 4)),
        Number(today.slice(4, 6)) - 1,
        Number(today.slice(6, 8)) - back,
      ),
    )
      .toISOString()
      .slice(0, 10)
      .replaceAll('-', '');
    const ids = seedDay(service, day, [
      { pipelineId: 'pl_2', status: 'Finish', count: 10 + back, hour: 9 },
      { pipelineId: 'pl_2', status: 'Error', count: back === 0 ? 3 : back % 3, hour: 10 },
    ]);
    if (back === 0) retried = ids[1]?.[0] ?? '';
  }
  // The names the services gave: ours, from the demo's definitions; Tokyo's, from its list.
  const demo = parse(
    readFileSync(join(import.meta.dirname, '../src/service/demo/pipelines.yaml'), 'utf8'),
  ) as { pipelines: { name: string }[] };
  const upstream = await new PipelineClient({
    baseUrl: tokyo.url,
    apiKey: tokyo.apiKey,
  }).listPipelines();
  DATA.push(
    ...SERVICES.flatMap((s) => [s.name, s.label]).filter((v) => v !== ''),
    ...demo.pipelines.map((p) => p.name),
    ...upstream.map((p) => p.name),
    // Tokyo's own status words, as its variant and its configuration name them.
    ...Object.values(VENDOR_VARIANTS.kanto.status),
    'Abort',
    'Running',
  );
});

test.afterAll(async () => {
  await app?.close();
  await tokyo?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The failure messages the embedded engine wrote today: data, shown as written. */
function engineMessages(): string[] {
  const table = quoteIdentifier(statusTableName(app.context.time.day(new Date())));
  const rows = app.context.dbs.status
    .prepare(`SELECT DISTINCT ERRORMSG AS m FROM ${table} WHERE ERRORMSG IS NOT NULL`)
    .all() as { m: string }[];
  return rows.map((r) => r.m);
}

async function signInInJapanese(page: Page) {
  await page.addInitScript(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
  await page.goto(`${url}/sign-in?next=${encodeURIComponent('/fleet')}`);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  await page.getByLabel('ユーザー名').fill(ADMIN.user);
  await page.getByLabel('パスワード', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'サインイン' }).click();
  await expect(page.getByTestId('identity')).toContainText(ADMIN.user);
}

/**
 * Retries the seeded failure twice through the dashboard (a seeded request has no attempt of
 * its own), so that its page shows two attempts.
 */
async function retryInJapanese(page: Page) {
  for (let i = 0; i < 2; i++) {
    await page.goto(`${url}/requests/${retried}?service=local`);
    await page.getByRole('button', { name: '再実行', exact: true }).click();
    // Its title says what was asked, then what was done: the dialog is the only one open.
    const dialog = page.getByRole('dialog');
    await expect(dialog).toHaveAccessibleName(/このリクエストを再実行しますか？$/);
    await expect(dialog.getByRole('button', { name: 'やめる' })).toBeVisible();
    await dialog.getByRole('button', { name: '再実行する' }).click();
    await expect(dialog.getByTestId('action-outcome')).toContainText('再び Error', {
      timeout: 15_000,
    });
    await dialog.getByRole('button', { name: '閉じる' }).click();
  }
}

const PAGES: readonly (readonly [string, () => string, (page: Page) => Promise<void>])[] = [
  [
    'fleet',
    () => '/fleet',
    async (page) => {
      const card = (id: string) =>
        page.locator(`[data-testid="fleet-service"][data-service="${id}"]`);
      await expect(card('tokyo').locator('[data-class="failed"] dd')).toHaveText('3', {
        timeout: 15_000,
      });
      await expect(card('nagoya').getByTestId('fleet-reachable')).toContainText('応答なし');
      // Never read: its counts say so instead of showing zeros.
      await expect(card('nagoya').getByTestId('fleet-counts')).not.toContainText('0');
      await expect(card('nagoya')).toContainText('まだ集計していません');
      await expect(card('local').getByTestId('fleet-fresh')).toHaveText(
        'ステータスDBから直接集計（リアルタイム）',
      );
    },
  ],
  [
    'trends',
    () => '/pipelines/pl_2/trends?service=local&days=7',
    async (page) => {
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(
        /^Sensor readings.* の推移$/,
      );
      await expect(page.getByTestId('trends-table').locator('tbody tr')).toHaveCount(7);
    },
  ],
  [
    'services',
    () => '/service-list',
    async (page) => {
      const words = page.getByTestId('status-words-tokyo');
      await expect(words.locator('[data-class="failed"] dd')).toHaveText('Abort');
      await expect(words.locator('[data-class="retryable"] dt')).toHaveText('再実行可能');
    },
  ],
  [
    'down overview',
    () => '/?service=nagoya',
    async (page) => {
      await expect(page.getByText('Nagoya prod (production) に接続できません。')).toBeVisible({
        timeout: 15_000,
      });
      // The overview says it too, its cause (the connection's code) kept as written.
      await expect(page.getByTestId('overview-unreachable')).toContainText(
        'Nagoya prod (production) に接続できないため、この日の件数を現在読み込めません',
      );
      await expect(page.getByTestId('overview-unreachable-why')).toContainText(/^原因：[A-Z]/);
      await expect(page.getByTestId('service-down-message')).toContainText(/^原因：[A-Z]/);
    },
  ],
  [
    'down requests',
    () => '/requests?service=nagoya',
    async (page) => {
      await expect(page.getByText('Nagoya prod (production) に接続できません。')).toBeVisible({
        timeout: 15_000,
      });
      await expect(page.getByTestId('service-down-message')).toContainText(/^原因：[A-Z]/);
    },
  ],
  [
    'attempts',
    () => `/requests/${retried}?service=local`,
    async (page) => {
      const attempts = page.getByTestId('attempts');
      await expect(attempts.getByRole('heading', { name: '試行履歴' })).toBeVisible();
      await expect(attempts).toContainText('2 回目（最新）', { timeout: 15_000 });
      await expect(attempts).toContainText('1 回目');
      await expect(attempts.getByTestId('attempt-message').first()).toBeVisible();
    },
  ],
];

for (const [width, height] of [
  [1280, 900],
  [390, 844],
] as const) {
  test(`the pages of issue 25 in Japanese at ${width} px: no English word of ours outside what the services wrote, no word broken`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width, height });
    await page.addInitScript(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
    await page.goto(`${url}/sign-in`);
    await expect(page.getByRole('tab', { name: 'ユーザー名とパスワード' })).toBeVisible();
    const broken = (await brokenWords(page)).map((text) => `sign-in: “${text}”`);
    await signInInJapanese(page);
    if (!retriedOnce) {
      await retryInJapanese(page);
      retriedOnce = true;
    }
    const found: string[] = [];
    for (const [name, path, ready] of PAGES) {
      await page.goto(`${url}${path()}`);
      await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
      await ready(page);
      // The gateway's own sentence for Nagoya ("Service Nagoya prod cannot be reached
      // (ECONNREFUSED).") is ours, not data: it must be worded in Japanese, so it is not here.
      const data = [...DATA, ...engineMessages()];
      for (const text of await englishLeft(page, data)) found.push(`${name}: “${text}”`);
      for (const text of await brokenWords(page)) broken.push(`${name}: “${text}”`);
    }
    expect(found, 'English words of the dashboard on Japanese pages').toEqual([]);
    expect(broken, 'Japanese words broken across lines').toEqual([]);
  });
}
