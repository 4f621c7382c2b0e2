import type { App } from '../src/service/app.ts';
import {
  ADMIN,
  expect,
  OPERATOR,
  signIn,
  startDemoApp,
  test as base,
  type RunningService,
} from './fixtures.ts';
import { perFile } from './per-file.ts';
import { startWebhookReceiver, type Received } from '../src/service/testing/webhook-receiver.ts';

interface Notifying {
  readonly url: string;
  readonly app: App;
  readonly receiver: string;
  readonly received: Received[];
}

/** signIn reads the service's address only. */
const asService = (n: Notifying) => ({ url: n.url, app: n.app }) as RunningService;

/** The service with two receivers: one that takes messages, one that answers 500. */
const notifyingServer = perFile<Notifying>(async (use) => {
  const hooks = await startWebhookReceiver((path) => (path.startsWith('/broken') ? 500 : 200));
  const receiver = hooks.url;
  const port = new URL(receiver).port;
  const { url, app, stop } = await startDemoApp({
    notify: {
      targets: [`${receiver}/hooks/SECRET-PATH`],
      retryDelaysMs: [10],
      timeoutMs: 2000,
    },
    services: [
      {
        id: 'local',
        name: 'Embedded service',
        embedded: true,
        notify: [`http://localhost:${port}/broken`],
      },
    ],
  });
  await app.context.notifier.settled();
  await use({ url, app, receiver, received: hooks.received });
  await stop();
  await hooks.close();
});
const test = base.extend<{ notifying: Notifying }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  notifying: async ({}, use) => use(notifyingServer()),
});

test('an administrator sends a test notification from Settings and sees how each receiver took it', async ({
  page,
  notifying,
}) => {
  await signIn(page, asService(notifying), ADMIN, '/settings');
  const section = page.getByRole('region', { name: 'Notifications' });
  await expect(section.getByRole('list', { name: 'Receivers' })).toContainText(notifying.receiver);
  // Receivers are shown by origin: a webhook's path is its secret.
  await expect(page.locator('body')).not.toContainText('SECRET-PATH');
  // The demo's failed request was notified already: it is in the recent list.
  await expect(section.getByRole('table')).toContainText('Error');
  const opener = section.getByRole('button', { name: 'Send a test notification' });
  await opener.click();
  // Nothing is sent before the administrator says so in the dialog.
  const dialog = page.getByRole('dialog', { name: 'Send a test notification?' });
  await expect(dialog).toContainText(notifying.receiver);
  expect(notifying.received.map((r) => r.body.text)).not.toContain(
    'Test notification from the pipeline dashboard, sent by admin.',
  );
  await dialog.getByRole('button', { name: 'Send', exact: true }).click();
  const results = dialog.getByRole('list', { name: 'Test results' });
  await expect(results.getByRole('listitem')).toHaveCount(2);
  await expect(results.getByRole('listitem').filter({ hasText: notifying.receiver })).toContainText(
    'sent HTTP 200',
  );
  await expect(results.getByRole('listitem').filter({ hasText: 'localhost' })).toContainText(
    'failed HTTP 500',
  );
  expect(notifying.received.map((r) => r.body.text)).toContain(
    'Test notification from the pipeline dashboard, sent by admin.',
  );
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
});

test('other roles see no notification settings', async ({ page, notifying }) => {
  await signIn(page, asService(notifying), OPERATOR, '/settings');
  await expect(
    page.getByText('Only administrators see and change the pipeline API settings.'),
  ).toBeVisible();
  await expect(page.getByRole('region', { name: 'Notifications' })).toHaveCount(0);
});
