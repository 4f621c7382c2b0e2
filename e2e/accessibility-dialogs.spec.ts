import { startWebhookReceiver } from '../src/service/testing/webhook-receiver.ts';
import { ADMIN, expect, signIn, startDemoApp, test as base } from './fixtures.ts';
import { perFile } from './per-file.ts';
import { dialogState, THEMES_AND_WIDTHS } from './axe.ts';

// The dialogs of the databases and settings pages, checked as e2e/accessibility.spec.ts
// checks the pages: WCAG 2.2 A and AA, light and dark, desktop and phone, with focus back
// on the opener after each.

/** The demo service with one notification receiver, so that the test dialog can open. */
const notifyingService = perFile<{ url: string }>(async (use) => {
  const hooks = await startWebhookReceiver(() => 200);
  const { url, stop } = await startDemoApp({
    notify: { targets: [`${hooks.url}/hooks/a11y`], retryDelaysMs: [10], timeoutMs: 2000 },
  });
  await use({ url });
  await stop();
  await hooks.close();
});
const test = base.extend<{ notifying: { url: string } }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  notifying: async ({}, use) => use(notifyingService()),
});

for (const { colorScheme, width, viewport } of THEMES_AND_WIDTHS) {
  test(`the databases' dialogs have no WCAG 2.2 AA violations: ${colorScheme}, ${width}`, async ({
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
    expect(found, 'axe violations').toEqual([]);
  });

  test(`the settings' dialogs have no WCAG 2.2 AA violations: ${colorScheme}, ${width}`, async ({
    page,
    notifying,
  }) => {
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme });
    await page.setViewportSize(viewport);
    const found: string[] = [];
    await signIn(page, notifying, ADMIN, '/settings');
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
