import type { Locator, Page } from '@playwright/test';
import {
  ADMIN,
  DEVELOPER,
  expect,
  GATEWAY_UPSTREAM_TIMEOUT_S,
  gatewayTestForFile,
  OPERATOR,
  signIn,
  type GatewayService,
} from './fixtures.ts';
import { axeViolations } from './axe.ts';

// The dashboard through the gateway (contract section 7), as an operator uses it, against
// each vendor-like double and a second copy of our own service: people sign in with the
// gateway's accounts, and no upstream key ever reaches the browser or a log line.

const SERVICES = ['kanto', 'pacific', 'ours'] as const;
type ServiceId = (typeof SERVICES)[number];

const gatewayTest = gatewayTestForFile();

/** Every answer the browser received, to look for upstream keys in. */
const test = gatewayTest.extend<{ bodies: string[] }>({
  bodies: [
    async ({ page, gateway }, use) => {
      const bodies: string[] = [];
      page.on('response', (response) => {
        void response.text().then(
          (text) => bodies.push(JSON.stringify(response.headers()), text),
          () => undefined,
        );
      });
      await use(bodies);
      bodies.push(await page.content().catch(() => ''), gateway.logs.join('\n'));
      for (const key of gateway.upstreamKeys)
        expect(
          bodies.filter((b) => b.includes(key)),
          'an upstream key reached the browser or a log line',
        ).toEqual([]);
    },
    { auto: true },
  ],
});

/** The index of a service is refreshed now, not up to a poll interval later. */
async function indexed(gateway: GatewayService, id: string): Promise<void> {
  await gateway.app.context.services.route(id)?.upstream?.poller?.pollNow();
}

interface Prepared {
  readonly waiting: string[];
  readonly failed: string;
  readonly finished: string;
  readonly day: string;
}

/** Requests in each state at the upstream, as the service words them. */
async function prepare(gateway: GatewayService, id: ServiceId): Promise<Prepared> {
  if (id === 'ours') {
    const client = gateway.ours.client;
    await client.suspend('pl_4');
    const waiting: string[] = [];
    for (let i = 0; i < 3; i++)
      waiting.push((await client.exec('pl_4', 'orders.csv')).requestId as string);
    const failed = (await client.exec('pl_3', 'gateway-missing.csv')).requestId as string;
    await gateway.ours.app.engine.whenIdle();
    const list = await client.requestList({ id: 'pl_1', pageSize: 5 });
    const finished = list.requests.find((r) => r.status === 'Finish')?.requestId as string;
    await indexed(gateway, id);
    return { waiting, failed, finished, day: list.info.date as string };
  }
  const vendor = gateway.vendors[id];
  vendor.addRequests('pl_1', 2);
  vendor.addRequests('pl_2', 1, 'broken.csv', 'failed');
  const failed = vendor.requests()[0]?.requestId as string;
  vendor.addRequests('pl_2', 3, 'later.csv', 'waiting');
  const waiting = vendor
    .requests()
    .slice(0, 3)
    .map((r) => r.requestId);
  const finished = vendor.requests().find((r) => r.status === 'Finish')?.requestId as string;
  await indexed(gateway, id);
  return { waiting, failed, finished, day: failed.slice(5, 13) };
}

/**
 * The dialog a suspend of pacific's (production) pl_2 opens: it names the pipeline and the
 * service and will not suspend without a reason; the reason is in the gateway's audit entry
 * of the suspend, and the vendor, whose interface has no such field, is never sent it.
 */
async function suspendOnProduction(page: Page, gateway: GatewayService, opener: Locator) {
  const dialog = page.getByRole('dialog');
  await expect(dialog).toHaveAccessibleName('Suspend Stock (pl_2) on Pacific (production)?');
  // The reason box has the focus as the dialog opens.
  const reasonBox = dialog.getByRole('textbox', {
    name: 'Reason (required, written to the audit log)',
  });
  await expect(reasonBox).toBeFocused();
  expect(await axeViolations(page, 'suspend dialog')).toEqual([]);
  const suspend = dialog.getByRole('button', { name: 'Suspend', exact: true });
  await expect(suspend).toHaveAttribute('aria-disabled', 'true');
  await expect(suspend).toHaveAccessibleDescription('Write the reason first.');
  // Pressed anyway, it suspends nothing.
  await suspend.focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  expect(gateway.vendors.pacific.pipelines().find((p) => p.id === 'pl_2')?.runmode).toBe('run');
  const reason = 'Stock の取込元を切り替えます & hold the night batch';
  await reasonBox.fill(reason);
  await suspend.click();
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
  await expect
    .poll(() => gateway.vendors.pacific.pipelines().find((p) => p.id === 'pl_2')?.runmode)
    .toBe('stop');
  const sent = gateway.vendors.pacific
    .received()
    .filter((c) => c.api === 'suspend')
    .at(-1);
  expect(sent?.fields).toEqual({ pipelineid: 'pl_2' });
  const login = await fetch(`${gateway.url}/mcapi/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName: ADMIN.user, password: ADMIN.password }),
  });
  const { sessionId } = ((await login.json()) as { result: { data: { sessionId: string } } }).result
    .data;
  // The entry is written once the call is answered: read until it is there.
  const auditedReason = async () => {
    const audit = (await (
      await fetch(`${gateway.url}/mcapi/audit?operation=suspend&user=${DEVELOPER.user}`, {
        headers: { 'X-As-SessionId': sessionId },
      })
    ).json()) as {
      result: { data: { entries: { service: string; parameters: Record<string, string> }[] } };
    };
    return audit.result.data.entries.find((e) => e.service === 'pacific')?.parameters;
  };
  await expect.poll(auditedReason).toMatchObject({ pipelineid: 'pl_2', reason });
}

async function goTo(page: Page, gateway: GatewayService, path: string, id: string) {
  await page.goto(`${gateway.url}${path}${path.includes('?') ? '&' : '?'}service=${id}`);
}

for (const id of SERVICES) {
  test.describe(`through the gateway to ${id}`, () => {
    test("signs in with the gateway's own account and shows the overview of that service", async ({
      page,
      gateway,
    }) => {
      await prepare(gateway, id);
      await signIn(page, gateway, OPERATOR, `/?service=${id}`);
      const switcher = page.getByTestId('service-switcher');
      await expect(switcher).toHaveAttribute('data-service', id);
      await expect(page.getByTestId('health')).toBeVisible();
      await expect(page.getByText('pl_1').first()).toBeVisible();
    });

    test('suspends, resumes, executes and clears a cache on the upstream', async ({
      page,
      gateway,
    }) => {
      await signIn(page, gateway, DEVELOPER, `/pipelines?service=${id}`);
      const row = page.locator('tr[data-pipeline="pl_2"]');
      await expect(row.getByText('Running')).toBeVisible();
      await row.getByRole('switch').click();
      // Pacific is production: its suspend asks first. Elsewhere one click suspends.
      if (id === 'pacific') await suspendOnProduction(page, gateway, row.getByRole('switch'));
      else await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(row.getByText('Suspended')).toBeVisible();
      // Resuming never asks.
      await row.getByRole('switch').click();
      await expect(row.getByText('Running')).toBeVisible();
      await expect(page.getByRole('dialog')).toHaveCount(0);

      await row.getByRole('button', { name: 'Execute' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('File name').fill('readings.jsonl');
      await dialog.getByRole('button', { name: 'Execute' }).click();
      // The vendor answers exec without a RequestId: the gateway finds the new one.
      const link = dialog.getByRole('link', { name: /^pl_2-/ });
      await expect(link).toBeVisible();
      const started = (await link.textContent()) as string;
      if (id === 'ours')
        expect((await gateway.ours.client.requestDetail(started)).pipelineId).toBe('pl_2');
      else expect(gateway.vendors[id].requests()[0]?.requestId).toBe(started);
      await dialog.getByRole('button', { name: 'Close' }).click();

      await row.getByRole('button', { name: 'Clear cache' }).click();
      await page
        .getByRole('dialog')
        .getByLabel(/Sensor/)
        .check();
      await page.getByRole('dialog').getByRole('button', { name: 'Clear' }).click();
      await expect(page.getByText(/^Cache of .+ cleared\.$/)).toBeVisible();
    });

    test("lists the service's own day, retries and cancels one and in bulk, and shows a refusal in the upstream's words", async ({
      page,
      gateway,
    }) => {
      const { waiting, failed, finished, day } = await prepare(gateway, id);
      // The browser's calendar is days behind the service's: "today" must be the service's.
      await page.clock.setSystemTime(new Date(Date.now() - 3 * 86_400_000));
      await signIn(page, gateway, DEVELOPER, `/requests?service=${id}&size=100`);
      await expect(page.getByLabel('Date', { exact: true })).toHaveValue(
        `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`,
      );
      await expect(page.locator(`tr[data-request="${failed}"]`)).toBeVisible();
      expect(failed).toContain(day);

      const failedRow = page.locator(`tr[data-request="${failed}"]`);
      await failedRow.getByRole('button', { name: `Retry ${failed}` }).click();
      let dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
      await expect(dialog).toContainText('✓ accepted');
      await dialog.getByRole('button', { name: 'Close' }).click();

      const one = waiting[0] as string;
      await page
        .locator(`tr[data-request="${one}"]`)
        .getByRole('button', { name: `Cancel ${one}` })
        .click();
      dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
      await expect(dialog).toContainText('✓ accepted');
      await dialog.getByRole('button', { name: 'Close' }).click();

      // The gateway's index learns of the change at once (its poller is nudged): the list
      // shows the upstream's own word for it.
      const cancelled = { kanto: 'Cancel', pacific: 'Stopped', ours: 'Stop' }[id];
      await expect(page.locator(`tr[data-request="${one}"]`)).toContainText(cancelled);
      if (id !== 'ours')
        await expect(failedRow).toContainText(gateway.vendors[id].variant.status.waiting);

      for (const w of waiting.slice(1))
        await page.getByRole('checkbox', { name: `Select ${w}` }).check();
      await page.getByRole('button', { name: 'Cancel selected (2)' }).click();
      dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
      await expect(dialog.getByText('✓ accepted')).toHaveCount(2);
      await dialog.getByRole('button', { name: 'Close' }).click();

      // Finish ends a request on any service (interfaces.md's word): no retry is offered.
      const finishedRow = page.locator(`tr[data-request="${finished}"]`);
      await expect(finishedRow.getByRole('button', { name: `Retry ${finished}` })).toHaveAttribute(
        'aria-disabled',
        'true',
      );
      // A word the service's configuration does not classify (its own for a cancelled
      // request) is offered, and the upstream decides: its refusal in its own words...
      const cancelAgain = page
        .locator(`tr[data-request="${one}"]`)
        .getByRole('button', { name: `Cancel ${one}` });
      await cancelAgain.click();
      dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
      await expect(dialog).toContainText(one);
      await expect(dialog).toContainText(
        id === 'ours'
          ? `✕ [1301] Request ${one} is Stop`
          : `✕ [1301] Request ${one} has already ended (${cancelled})`,
      );
      await dialog.getByRole('button', { name: 'Close' }).click();
      // ...which the gateway learns: the status is no longer offered a cancel there.
      await expect(cancelAgain).toHaveAttribute('aria-disabled', 'true', { timeout: 20_000 });
      await expect(cancelAgain).toHaveAttribute(
        'title',
        new RegExp(`^The service refused before to cancel a request in ${cancelled}: `),
      );
    });

    test("shows a request with its logs, and the call as curl through the gateway with the user's own credentials", async ({
      page,
      gateway,
      context,
    }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      const { finished } = await prepare(gateway, id);
      await signIn(page, gateway, OPERATOR, `/requests/${finished}?service=${id}`);
      await expect(page.getByRole('heading', { name: finished })).toBeVisible();
      await expect(page.getByTestId('timeline')).toBeVisible();
      await page.getByRole('tab', { name: /Application log/ }).click();
      await expect(page.getByRole('table')).toContainText(
        id === 'ours' ? 'Filter kept' : 'Request Start',
      );
      await goTo(page, gateway, `/requests/${finished}?tab=raw`, id);
      await expect(page.getByTestId('raw')).toContainText(`<RequestId>${finished}</RequestId>`);
      // Behind the gateway it is this server's rendering of the service's answer, and says so.
      await expect(page.getByText(/as this server passes it on from/)).toBeVisible();
      await expect(page.getByText('as the service sent it', { exact: false })).toHaveCount(0);
      const curl = page.getByTestId('curl');
      await expect(curl).toContainText(`${gateway.url}/services/${id}/pipelineapi/requestdetail`);
      await page.getByRole('button', { name: 'Reveal credentials' }).click();
      await expect(curl).toContainText('X-As-SessionId');
      await page.getByRole('button', { name: 'Copy as curl' }).click();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toContain(`${gateway.url}/services/${id}/`);
      for (const key of gateway.upstreamKeys) expect(copied).not.toContain(key);
    });

    test('browses the status and action databases: pages without index or Total, NULL apart from empty', async ({
      page,
      gateway,
    }) => {
      const { day } = await prepare(gateway, id);
      if (id !== 'ours') gateway.vendors[id].addRequests('pl_1', 60);
      // pl_4 of ours is suspended (prepare): its new requests wait, and cost nothing.
      else for (let i = 0; i < 40; i++) await gateway.ours.client.exec('pl_4', 'orders.csv');
      const table = `STATUS${day}`;
      const total =
        id === 'ours'
          ? ((await gateway.ours.client.table('status', table)).info.total as number)
          : gateway.vendors[id].requests().filter((r) => r.requestId.includes(`-${day}_`)).length;
      expect(total).toBeGreaterThan(50);
      await signIn(
        page,
        gateway,
        OPERATOR,
        `/databases/status?table=${table}&size=50&service=${id}`,
      );
      await expect(page.getByTestId('row-range')).toHaveText(`1–50 of ${total}`);
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect(page.getByTestId('row-range')).toHaveText(
        `51–${Math.min(100, total)} of ${total}`,
      );
      const action = id === 'ours' ? 'READINGS' : 'SALES';
      await goTo(page, gateway, `/databases/action?table=${action}&size=50`, id);
      const rows = page.getByTestId('table-rows');
      await expect(rows.locator('td[data-null="true"]').first()).toContainText('NULL');
      await expect(rows.getByLabel('empty').first()).toBeVisible();
    });
  });
}

test('the Services page says how fresh each request index is, and which service is down', async ({
  page,
  gateway,
}) => {
  await indexed(gateway, 'kanto');
  await signIn(page, gateway, OPERATOR, '/service-list');
  const services = page.getByTestId('services');
  await expect(services.getByTestId('indexed-kanto')).toHaveText(
    /^as of \d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}( [AP]M)? \S+$/,
  );
  await expect(services.locator('tr[data-service="down"]')).toContainText('Unreachable');
  await expect(services.locator('tr[data-service="pacific"]')).toContainText('production');
});

test('an upstream that is down or slow: the page names the service and what happened, within the timeout', async ({
  page,
  gateway,
}) => {
  await signIn(page, gateway, OPERATOR, '/pipelines?service=down');
  // The gateway's finding in the reader's words (from the cause it gives), the system's error
  // as it is.
  await expect(page.getByText('Down cannot be reached.').first()).toBeVisible();
  await expect(page.getByText('Cause: ECONNREFUSED').first()).toBeVisible();
  await goTo(page, gateway, '/pipelines', 'slow');
  await expect(
    page.getByText(`No answer within ${GATEWAY_UPSTREAM_TIMEOUT_S} s.`).first(),
  ).toBeVisible({ timeout: (GATEWAY_UPSTREAM_TIMEOUT_S + 8) * 1000 });
});

test('the audit page shows who did what on which service', async ({ page, gateway }) => {
  const login = await fetch(`${gateway.url}/mcapi/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName: DEVELOPER.user, password: DEVELOPER.password }),
  });
  const sessionId = ((await login.json()) as { result: { data: { sessionId: string } } }).result
    .data.sessionId;
  const suspend = await fetch(`${gateway.url}/services/pacific/pipelineapi/suspend`, {
    method: 'PUT',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-As-SessionId': sessionId,
    },
    body: 'pipelineid=pl_7',
  });
  expect(suspend.status).toBe(200);
  await signIn(page, gateway, ADMIN, '/audit');
  const row = page
    .getByTestId('audit')
    .locator(`tr[data-user="${DEVELOPER.user}"]`)
    .filter({ hasText: 'suspend' })
    .first();
  await expect(row.locator('[data-service="pacific"]')).toHaveText('Pacific');
  await expect(row).toContainText('pl_7');
});

// Last: it leaves kanto's day longer than one upstream answer, which other tests' tables
// (paged by the gateway within that bound) do not expect.
test('a day of more requests than the upstream lists at once: exact total and the oldest on the last page', async ({
  page,
  gateway,
}) => {
  const kanto = gateway.vendors.kanto;
  for (let round = 0; round < 2; round++) {
    kanto.addRequests('pl_1', 450);
    kanto.addRequests('pl_2', 450);
    await indexed(gateway, 'kanto');
  }
  const day = (kanto.requests()[0]?.requestId as string).slice(5, 13);
  const ofDay = kanto.requests().filter((r) => r.requestId.includes(`-${day}_`));
  const total = ofDay.length;
  expect(total).toBeGreaterThanOrEqual(1800);
  await signIn(page, gateway, OPERATOR, `/requests?service=kanto&size=50`);
  const n = (value: number) => value.toLocaleString('en-US');
  await expect(page.getByTestId('range')).toHaveText(`1–50 of ${n(total)}`);
  await goTo(page, gateway, `/requests?size=50&index=${total - 10}`, 'kanto');
  await expect(page.getByTestId('range')).toHaveText(`${n(total - 9)}–${n(total)} of ${n(total)}`);
  await expect(page.locator('tbody tr[data-request]').last()).toHaveAttribute(
    'data-request',
    ofDay.at(-1)?.requestId as string,
  );
});

// Moved here from execute.spec.ts, so that the gateway is set up once for both.
gatewayTest(
  'the execute dialog asks to type a file name when the service behind has no inbox list',
  async ({ page, gateway }) => {
    await signIn(page, gateway, DEVELOPER, '/pipelines?service=kanto');
    await page.locator('tr[data-pipeline="pl_2"]').getByRole('button', { name: 'Execute' }).click();
    const dialog = page.getByRole('dialog');
    await expect(
      dialog.getByText('This service offers no list of its inbox: type the file name.'),
    ).toBeVisible();
    await expect(dialog.getByLabel('File in the inbox')).toHaveCount(0);
    await dialog.getByLabel('File name').fill('readings.jsonl');
    await expect(dialog.getByLabel('File name')).toHaveValue('readings.jsonl');
    await expect(dialog.getByLabel('File name')).toBeEditable();
  },
);
