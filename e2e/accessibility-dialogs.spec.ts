import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { startWebhookReceiver } from '../src/service/testing/webhook-receiver.ts';
import { ADMIN, expect, signIn, startDemoApp, test as base } from './fixtures.ts';

// The dialogs of the databases and settings pages, checked as e2e/accessibility.spec.ts
// checks the pages: WCAG 2.2 A and AA, light and dark, desktop and phone, with focus back
// on the opener after each.
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** The demo service with one notification receiver, so that the test dialog can open. */
const test = base.extend<object, { notifying: { url: string } }>({
  notifying: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const hooks = await startWebhookReceiver(() => 200);
      const { url, stop } = await startDemoApp({
        notify: { targets: [`${hooks.url}/hooks/a11y`], retryDelaysMs: [10], timeoutMs: 2000 },
      });
      await use({ url });
      await stop();
      await hooks.close();
    },
    { scope: 'worker' },
  ],
});

async function violations(page: Page, state: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return result.violations.flatMap((v) =>
    v.nodes.map(
      (n) => `${state}: ${v.id} (${v.impact}) ${n.target.join(' ')} — ${n.failureSummary ?? ''}`,
    ),
  );
}

/**
 * Opens a dialog from its opener, checks it (and, when given, the state a step inside it
 * leads to), closes it by `close` and checks that focus went back to the opener.
 */
async function dialogState(
  page: Page,
  opener: Locator,
  state: string,
  found: string[],
  options: { step?: (dialog: Locator) => Promise<void>; close?: 'Escape' | string } = {},
): Promise<void> {
  await opener.click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  found.push(...(await violations(page, state)));
  if (options.step) {
    await options.step(dialog);
    found.push(...(await violations(page, `${state}, after`)));
  }
  if (options.close && options.close !== 'Escape')
    await dialog.getByRole('button', { name: options.close, exact: true }).click();
  else await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(opener, `${state}: focus back on its opener`).toBeFocused();
}

for (const colorScheme of ['light', 'dark'] as const) {
  for (const [width, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`the databases and settings dialogs have no WCAG 2.2 AA violations: ${colorScheme}, ${width}`, async ({
      page,
      notifying,
    }) => {
      test.setTimeout(120_000);
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize(viewport);
      const found: string[] = [];
      await signIn(page, notifying, ADMIN, '/databases/action?table=CUSTOMERS');
      await expect(page.getByTestId('row-range')).toBeVisible();

      await dialogState(
        page,
        page.getByRole('button', { name: 'Delete all rows' }),
        'delete rows dialog',
        found,
        {
          // Half the name typed: the dialog as it asks for the rest.
          step: (dialog) => dialog.getByLabel('Type CUSTOMERS to confirm').fill('CUSTO'),
        },
      );
      await dialogState(
        page,
        page.getByRole('button', { name: 'Drop table' }),
        'drop table dialog',
        found,
        { close: 'Cancel' },
      );

      await page.goto(`${notifying.url}/settings`);
      const toggle = page.getByRole('switch', { name: 'Pipeline API enabled' });
      await expect(toggle).toBeChecked();
      await dialogState(page, toggle, 'API disable dialog', found, { close: 'Keep it enabled' });
      await expect(toggle).toBeChecked();
      await dialogState(page, page.getByRole('button', { name: 'Update' }), 'key dialog', found, {
        close: 'Keep the current key',
      });
      await dialogState(
        page,
        page.getByRole('button', { name: 'Send a test notification' }),
        'notification test dialog',
        found,
        {
          step: async (dialog) => {
            await dialog.getByRole('button', { name: 'Send', exact: true }).click();
            await expect(dialog.getByRole('list', { name: 'Test results' })).toContainText('sent');
          },
          close: 'Close',
        },
      );

      expect(found, 'axe violations').toEqual([]);
    });
  }
}
