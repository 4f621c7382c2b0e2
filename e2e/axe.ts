import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page } from '@playwright/test';

/** WCAG 2.2 A and AA, as issue 15 asks; axe's best-practice rules are left out on purpose. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * Axe's findings for what the page shows now, one line per failing node, each named by
 * `state`. One call per page state: axe reads the whole page, the slowest step of a test on a
 * busy machine, so a test checks a handful of states and a spec splits many into tests.
 */
export async function axeViolations(page: Page, state: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  return result.violations.flatMap((v) =>
    v.nodes.map(
      (n) => `${state}: ${v.id} (${v.impact}) ${n.target.join(' ')} — ${n.failureSummary ?? ''}`,
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
