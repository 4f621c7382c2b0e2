import axe from 'axe-core';
import { expect, type Locator, type Page } from '@playwright/test';

/** WCAG 2.2 A and AA, as issue 15 asks; axe's best-practice rules are left out on purpose. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

type AxeWindow = Window & { axe?: typeof axe };

/**
 * Axe's findings for what the page shows now, one line per failing node, each named by
 * `state`. One call per page state, and a spec of many states splits them into tests.
 *
 * It calls axe-core in the page itself rather than through @axe-core/playwright (issue 43):
 * the wrapper injects axe's 550 KB source at every call and finishes each run in a new blank
 * page, and it keeps every passing node. On this machine the same six pages took 0.8–1.5 s a
 * call through it and 0.15–0.4 s here (source injected once per document, violations only).
 * The dashboard has no frames, so axe's frame handling is not needed.
 */
export async function axeViolations(page: Page, state: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async (tags) => {
    const inPage = (window as AxeWindow).axe;
    if (!inPage) throw new Error('axe-core was not injected');
    const result = await inPage.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
      iframes: false,
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      nodes: v.nodes.map((n) => ({ target: n.target.map(String), summary: n.failureSummary })),
    }));
  }, WCAG_TAGS);
  return violations.flatMap((v) =>
    v.nodes.map(
      (n) => `${state}: ${v.id} (${v.impact}) ${n.target.join(' ')} — ${n.summary ?? ''}`,
    ),
  );
}

/** Waits until the page shows data, not a spinner, so axe sees what an operator sees. */
export async function settledPage(page: Page): Promise<void> {
  await expect(page.locator('main h1, h1').first()).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Loading…' })).toHaveCount(0);
}

/**
 * Opens a dialog from its opener and checks it (and, when given, the state a step inside it
 * leads to), closes it by `close` (Escape by default) and checks that focus went back to the
 * opener. Findings are added to `found`.
 */
export async function dialogState(
  page: Page,
  opener: Locator,
  state: string,
  found: string[],
  options: { step?: (dialog: Locator) => Promise<void>; close?: 'Escape' | string } = {},
): Promise<void> {
  await opener.click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  found.push(...(await axeViolations(page, state)));
  if (options.step) {
    await options.step(dialog);
    found.push(...(await axeViolations(page, `${state}, after`)));
  }
  if (options.close && options.close !== 'Escape')
    await dialog.getByRole('button', { name: options.close, exact: true }).click();
  else await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(opener, `${state}: focus back on its opener`).toBeFocused();
}

/** The two themes at a desktop's and a phone's width: the page states every axe spec checks. */
export const THEMES_AND_WIDTHS = (['light', 'dark'] as const).flatMap((colorScheme) =>
  (
    [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const
  ).map(([width, viewport]) => ({ colorScheme, width, viewport })),
);
