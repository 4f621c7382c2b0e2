import type { Page } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REQUEST_STAGES, REQUEST_STATUSES } from '../src/kit/index.ts';
import { expect, settle, signIn, test } from './fixtures.ts';
import { axeViolations } from './axe.ts';

// Issue 15: beside japanese.spec.ts (what each page says in Japanese), every page in
// Japanese, light and dark, desktop and phone, shows none of the
// English catalogue's texts (a text the catalogue has but the page did not take from it, or
// a Japanese key left out), says <html lang="ja">, and has no axe violations.

type Tree = { readonly [key: string]: string | Tree };
const LOCALES = join(import.meta.dirname, '../src/dashboard/i18n/locales');

function leaves(tree: Tree, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else leaves(value, path, out);
  }
  return out;
}

function catalogue(language: string): Map<string, string> {
  const all = new Map<string, string>();
  for (const file of readdirSync(join(LOCALES, language))) {
    const ns = file.replace(/\.json$/, '');
    const tree = JSON.parse(readFileSync(join(LOCALES, language, file), 'utf8')) as Tree;
    for (const [key, value] of leaves(tree)) all.set(`${ns}:${key}`, value);
  }
  return all;
}

/** Words the service writes (statuses, stages): data, shown as written in every language. */
const SERVICE_WORDS = new Set<string>([...REQUEST_STATUSES, ...REQUEST_STAGES]);

/**
 * English texts that must not appear on a Japanese page: whole texts without placeholders,
 * with a word in them, that Japanese writes differently (names like "UTC" are the same).
 */
function englishOnly(): Set<string> {
  const en = catalogue('en');
  const ja = catalogue('ja');
  const japanese = new Set(ja.values());
  const out = new Set<string>();
  for (const [key, text] of en) {
    if (text.includes('{{') || !/[A-Za-z]{3,}/.test(text)) continue;
    if (ja.get(key) === text || japanese.has(text) || SERVICE_WORDS.has(text)) continue;
    out.add(text.trim());
  }
  return out;
}

const ENGLISH = englishOnly();

/** Visible texts of the page (text nodes and the names of controls) in English. */
async function englishOnPage(page: Page): Promise<string[]> {
  const texts = await page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      // translate="no" marks what the service wrote (its log lines): data, not our text.
      if (!parent || parent.closest('script, style, [hidden], [translate="no"]')) continue;
      const text = node.textContent?.trim() ?? '';
      if (text) out.push(text);
    }
    for (const el of Array.from(
      document.querySelectorAll('[aria-label], [title], [placeholder]'),
    )) {
      for (const name of ['aria-label', 'title', 'placeholder']) {
        const value = el.getAttribute(name)?.trim();
        if (value) out.push(value);
      }
    }
    return out;
  });
  return [...new Set(texts.filter((t) => ENGLISH.has(t)))];
}

async function check(page: Page, url: string, state: string, found: string[]) {
  await page.goto(url);
  await expect(page.locator('main h1, h1').first()).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  await page.waitForLoadState('networkidle');
  for (const text of await englishOnPage(page)) found.push(`${state}: “${text}”`);
  found.push(...(await axeViolations(page, state)));
}

// The pages in groups of a few, one test each, so that each test's timeout holds on a slow
// machine (issue 43); the sign-in page is checked with the first.
const GROUPS: ReadonlyArray<{
  readonly name: string;
  readonly pages: (requestId: string) => ReadonlyArray<readonly [string, string]>;
}> = [
  {
    name: 'sign-in, overview, pipelines, requests and a request',
    pages: (requestId) => [
      ['/', 'overview'],
      ['/pipelines', 'pipelines'],
      ['/requests?pipeline=pl_3', 'requests'],
      [`/requests/${requestId}`, 'request detail'],
    ],
  },
  {
    name: 'the three databases',
    pages: () => [
      ['/databases/system', 'system database'],
      ['/databases/status', 'status database'],
      ['/databases/action?table=CUSTOMERS', 'action table'],
    ],
  },
  {
    name: 'settings, services and audit',
    pages: () => [
      ['/settings', 'settings'],
      ['/service-list', 'services'],
      ['/audit', 'audit'],
    ],
  },
];

// One failed request for the file's tests to open.
let failedId = '';
test.beforeAll(async ({ service }) => {
  failedId = (await service.client.exec('pl_3', 'missing-ja.csv')).requestId as string;
  await settle(service);
});

for (const [colorScheme, viewport] of [
  ['light', { width: 1280, height: 800 }],
  ['dark', { width: 390, height: 844 }],
] as const) {
  for (const [index, group] of GROUPS.entries()) {
    test(`in Japanese, ${colorScheme} at ${viewport.width} px, ${group.name}: no English catalogue text, lang="ja", no axe violations`, async ({
      page,
      service,
    }) => {
      test.setTimeout(120_000);
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize(viewport);
      const found: string[] = [];
      await page.goto(`${service.url}/sign-in`);
      await page.evaluate(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
      await page.reload();
      await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
      if (index === 0)
        for (const text of await englishOnPage(page)) found.push(`sign-in: “${text}”`);
      // Signed in through the English form, then Japanese for every page after.
      await page.evaluate(() => localStorage.setItem('pipeline-dashboard.language', 'en'));
      await signIn(page, service, undefined, '/');
      await page.evaluate(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
      for (const [path, state] of group.pages(failedId))
        await check(page, `${service.url}${path}`, state, found);
      expect(found, 'English texts or axe violations on Japanese pages').toEqual([]);
    });
  }
}
