import type { Page } from '@playwright/test';
import { VENDOR_MESSAGES } from '../src/service/testing/vendor/vendor-service.ts';
import { axeViolations } from './axe.ts';
import {
  ADMIN,
  CHUBU_SALES_ROWS,
  expect,
  gatewayTestForFile,
  OPERATOR,
  signIn,
  TOKAI_DAY,
  type GatewayService,
} from './fixtures.ts';

const test = gatewayTestForFile();

// The dashboard through the gateway against products that differ where interfaces.md is
// silent (contract section 12): `tokai` answers its whole day of 100,000 requests at once,
// in Shift_JIS and Japanese; `chubu` pages by index as a page number, 500 rows an answer;
// `pacific` gives at most 1,000 rows and no index, so a longer table is read only up to there.

const n = (value: number) => value.toLocaleString('en-US');

/** The first round of tokai's request index reads 100,000 requests: it may take a while. */
const FIRST_ROUND_MS = 90_000;

async function tokaiIndexed(gateway: GatewayService): Promise<void> {
  await expect
    .poll(
      () => gateway.app.context.services.list().find((s) => s.id === 'tokai')?.indexedAt ?? null,
      { timeout: FIRST_ROUND_MS, message: "the gateway's first round of tokai's index" },
    )
    .not.toBeNull();
}

test.describe('a product that answers its whole day at once, in Shift_JIS', () => {
  test.describe.configure({ timeout: FIRST_ROUND_MS + 60_000 });

  test('the overview counts its 100,000 requests and 39 failed exactly', async ({
    page,
    gateway,
  }) => {
    await tokaiIndexed(gateway);
    await signIn(page, gateway, OPERATOR, '/?service=tokai');
    await expect(page.getByTestId('day-total')).toHaveText(
      `${n(TOKAI_DAY.total)} requests on this day, counted exactly by the service.`,
    );
    // Its failed status is its own word (Abort), counted apart as the service words it.
    await expect(page.getByTestId('other-states')).toContainText(`${TOKAI_DAY.failed} Abort`);
    const pipelines = page.getByTestId('by-pipeline');
    await expect(pipelines.locator('tr[data-pipeline="pl_1"]')).toContainText(n(60_000));
  });

  test('its failed status lists 39 requests with an exact total, each message as it wrote it', async ({
    page,
    gateway,
  }) => {
    await tokaiIndexed(gateway);
    // Tall enough that every row is drawn (the rows are virtualised).
    await page.setViewportSize({ width: 1280, height: 2400 });
    await signIn(page, gateway, OPERATOR, '/requests?service=tokai&status=Abort&size=50');
    await expect(page.getByTestId('range')).toHaveText(
      `1–${TOKAI_DAY.failed} of ${TOKAI_DAY.failed}`,
    );
    const rows = page.locator('tbody tr[data-request]');
    await expect(rows).toHaveCount(TOKAI_DAY.failed);
    const failed = gateway.vendors.tokai.requests().find((r) => r.status === 'Abort');
    expect(failed).toBeDefined();
    await page
      .locator(`tr[data-request="${failed?.requestId}"]`)
      .getByRole('link', { name: failed?.requestId })
      .click();
    await expect(page.getByRole('heading', { name: failed?.requestId })).toBeVisible();
    // Decoded from Shift_JIS as the product declared it: no mojibake, no replacement marks.
    const message = VENDOR_MESSAGES.ja.unreadable(TOKAI_DAY.failedFile);
    await expect(page.getByText(message).first()).toBeVisible();
    await expect(page.locator('main')).not.toContainText('\uFFFD');
  });

  test('the Services page says how it answers: a whole day at once, Shift_JIS', async ({
    page,
    gateway,
  }) => {
    await tokaiIndexed(gateway);
    // Chubu's cap is learnt from its answers: a read of its table shows it.
    await gateway.app.context.services.route('chubu')?.upstream?.poller?.pollNow();
    await signIn(page, gateway, OPERATOR, '/databases/action?table=SALES&service=chubu');
    await expect(page.getByTestId('row-range')).toHaveText(`1–100 of ${n(CHUBU_SALES_ROWS)}`);
    await page.goto(`${gateway.url}/service-list`);
    const card = page.locator('[data-capabilities="tokai"]');
    await expect(card.locator('[data-fact="paging"] dd')).toHaveText(
      'whole day in one answer (it ignores pagesize)',
    );
    await expect(card.locator('[data-fact="charset"] dd')).toHaveText(
      'Shift_JIS, stated in its Content-Type',
    );
    await expect(card.locator('[data-fact="session"] dd')).toHaveText(
      'sets a session cookie (kept on the server)',
    );
    // Its one answer holds the whole day: megabytes, said with their exact bytes.
    await expect(card.locator('[data-fact="largest"] dd')).toHaveText(
      /^(about )?\d+(\.\d)? MB \([\d,]+ bytes\)$/,
    );
    await expect(card.locator('[data-fact="probed"] time')).toHaveText(
      /^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}( [AP]M)? \S+$/,
    );
    // The table leads to the card.
    await page.getByTestId('services').getByRole('link', { name: 'How Tokai answers' }).click();
    await expect(card).toBeInViewport();

    // Chubu caps its answers: learnt from its table's own answers, told as that list's cap
    // (a cap is kept with the list that showed it, issue 37 item 2).
    const chubu = page.locator('[data-capabilities="chubu"]');
    await expect(chubu.locator('[data-list="actiondb tablename=SALES"]')).toContainText(
      'pages of at most 500 rows',
    );
    await expect(chubu.locator('[data-fact="index"] dd')).toHaveText(
      'a page number: index 1 is the second page',
    );
    await expect(chubu.locator('[data-fact="next"] dd')).toHaveText('stated (-1 only at the end)');
  });
});

/** The ids (first column) of the rows a table page shows. */
async function shownIds(page: Page): Promise<string[]> {
  return page
    .getByTestId('table-rows')
    .locator('tbody tr:not([aria-hidden]) td:first-child')
    .allTextContents();
}

test('a table of 1,250 rows, 500 an answer: its exact count, and no row of one page on another', async ({
  page,
  gateway,
}) => {
  test.setTimeout(120_000);
  // Tall enough that every row of a page of 100 is drawn (the rows are virtualised).
  await page.setViewportSize({ width: 1280, height: 4000 });
  // Chubu's Next is learnt from its request list: once probed, its table is read whole.
  await gateway.app.context.services.route('chubu')?.upstream?.poller?.pollNow();
  await signIn(page, gateway, OPERATOR, '/databases/action?table=SALES&service=chubu');
  await expect(page.getByTestId('table-list')).toContainText(`${n(CHUBU_SALES_ROWS)} rows`);
  const range = page.getByTestId('row-range');
  const seen: string[] = [];
  for (let index = 0; index < CHUBU_SALES_ROWS; index += 100) {
    const last = Math.min(index + 100, CHUBU_SALES_ROWS);
    await expect(range).toHaveText(`${n(index + 1)}–${n(last)} of ${n(CHUBU_SALES_ROWS)}`);
    const expected = Array.from({ length: last - index }, (_, i) => String(index + i + 1));
    await expect.poll(() => shownIds(page)).toEqual(expected);
    seen.push(...(await shownIds(page)));
    if (last < CHUBU_SALES_ROWS) await page.getByRole('button', { name: 'Next page' }).click();
  }
  await expect(page.getByRole('button', { name: 'Next page' })).toBeDisabled();
  expect(new Set(seen).size).toBe(CHUBU_SALES_ROWS);
});

test('a table longer than the rows read says so: never a total, only its first rows', async ({
  page,
  gateway,
}) => {
  // Pacific gives at most 1,000 rows an answer and ignores index: of 2,000 rows the gateway
  // reads the first 1,000 and says Bound instead of Total.
  growPacificSales(gateway);
  await signIn(page, gateway, ADMIN, '/databases/action?table=SALES&service=pacific&size=500');
  await expect(page.getByTestId('table-list')).toContainText('at least 1,000 rows');
  await expect(page.getByTestId('row-bound')).toHaveText(
    'First 1,000 rows read; the table may have more.',
  );
  const range = page.getByTestId('row-range');
  await expect(range).toHaveText('1–500');
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(range).toHaveText('501–1,000');
  await expect(page.getByRole('button', { name: 'Next page' })).toBeDisabled();
  await expect(page.getByRole('navigation', { name: 'Pages of rows' })).not.toContainText('of');
  await page.getByRole('button', { name: 'Delete all rows' }).click();
  await expect(page.getByRole('dialog')).toContainText('The table holds at least 1,000 rows now.');
  await page.keyboard.press('Escape');
});

/** Pacific's SALES grown to 2,000 rows, once per gateway (a worker's, shared by its tests). */
const grown = new WeakSet<GatewayService>();
function growPacificSales(gateway: GatewayService): void {
  if (grown.has(gateway)) return;
  gateway.vendors.pacific.addTableRows('SALES', 2000 - 3);
  grown.add(gateway);
}

test('Runmode in a product’s words: a switch for other words of run and stop, both actions for words of its own', async ({
  page,
  gateway,
}) => {
  // RUNNING and SUSPENDED say run and stop: the switch draws them, and moves them.
  await signIn(page, gateway, OPERATOR, '/pipelines?service=chubu');
  const sales = page.getByRole('switch', { name: 'Suspend Sales' });
  await expect(sales).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByRole('switch', { name: 'Resume Archive' })).toHaveAttribute(
    'aria-checked',
    'false',
  );
  const salesRow = page.getByRole('row').filter({ hasText: 'pl_1' });
  await expect(salesRow).toContainText('RUNNING');
  await sales.click();
  await expect(salesRow).toContainText('SUSPENDED');
  await expect(page.getByRole('switch', { name: 'Resume Sales' })).toHaveAttribute(
    'aria-checked',
    'false',
  );
  await page.getByRole('switch', { name: 'Resume Sales' }).click();
  await expect(salesRow).toContainText('RUNNING');

  // 稼働中 and 停止中 are words the dashboard cannot tell: shown as written, with both
  // actions, and the service's answer decides.
  await page.goto(`${gateway.url}/pipelines?service=tokai`);
  const tokaiSales = page.getByRole('row').filter({ hasText: 'pl_1' });
  await expect(tokaiSales).toContainText('稼働中');
  await expect(tokaiSales.getByRole('switch')).toHaveCount(0);
  await tokaiSales.getByRole('button', { name: 'Suspend Sales' }).click();
  await expect(tokaiSales).toContainText('停止中');
  await tokaiSales.getByRole('button', { name: 'Resume Sales' }).click();
  await expect(tokaiSales).toContainText('稼働中');
  // Its overview claims neither that every pipeline runs nor that one is suspended: it names
  // them with the service's words.
  await page.goto(`${gateway.url}/?service=tokai`);
  await expect(page.getByTestId('health')).toContainText(
    "3 pipelines whose Runmode is in the service's own words",
  );
  const untold = page.getByTestId('untold-runmodes');
  await expect(untold).toContainText('Archive pl_7 停止中');
  await expect(page.getByText('Every pipeline is running.')).toHaveCount(0);
});

for (const [scheme, viewport] of [
  ['light', { width: 1280, height: 800 }],
  ['dark', { width: 390, height: 844 }],
] as const)
  test(`the Services page and a bounded table: no WCAG 2.2 AA violations, ${scheme} at ${viewport.width} px`, async ({
    page,
    gateway,
  }) => {
    await gateway.app.context.services.route('chubu')?.upstream?.poller?.pollNow();
    growPacificSales(gateway);
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize(viewport);
    await signIn(page, gateway, OPERATOR, '/service-list');
    await expect(page.locator('[data-capabilities="chubu"]')).toBeVisible();
    const found: string[] = [];
    const check = async (state: string) => {
      found.push(...(await axeViolations(page, state)));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${state} is ${width} px wide`).toBeLessThanOrEqual(viewport.width);
    };
    await check('services');
    await page.goto(`${gateway.url}/databases/action?table=SALES&service=pacific`);
    await expect(page.getByTestId('row-bound')).toBeVisible();
    await check('bounded table');
    await page.goto(`${gateway.url}/pipelines?service=tokai`);
    await expect(page.getByRole('button', { name: 'Suspend Sales' })).toBeVisible();
    await check('pipelines whose Runmode is in words of their own');
    await page.goto(`${gateway.url}/?service=tokai`);
    await expect(page.getByTestId('untold-runmodes')).toBeVisible();
    await check('an overview that names Runmode words of their own');
    expect(found, 'axe violations').toEqual([]);
  });
