import type { Locator, Page } from '@playwright/test';
import { addUser, findUser } from '../src/service/auth/users.ts';
import { grantRole, revokeRole } from '../src/service/db/system/service-roles.ts';
import { axeViolations } from './axe.ts';
import { expect, settle, signIn, test, type RunningService } from './fixtures.ts';

// Roles per service and the viewer (issue 24, item 2): a viewer reads every page and finds
// every control that would change something disabled, each with its reason, which the
// keyboard reaches (the focused control shows it, and is described by it) as well as a
// pointer's hover and a press or tap (a notice); an operator made a viewer on this service
// sees the same, and their controls come back once the grant is gone.

const VIEWER = { user: 'vera', password: 'viewer-password-e2e' };
/** An operator by default, a viewer on the embedded service (`local`) by a grant. */
const NARROWED = { user: 'otis', password: 'narrowed-password-e2e' };

const REASON = {
  exec: 'The viewer role may not execute pipelines.',
  pipelinecache: 'The viewer role may not clear caches.',
  resume: 'The viewer role may not resume pipelines.',
  suspend: 'The viewer role may not suspend pipelines.',
  requestretry: 'The viewer role may not retry requests.',
  requestcancel: 'The viewer role may not cancel requests.',
  deletetable: 'The viewer role may not delete the rows of action tables.',
  droptable: 'The viewer role may not drop action tables.',
};

let failed: string;

async function ensureUser(
  service: RunningService,
  who: { user: string; password: string },
  role: 'viewer' | 'operator',
) {
  const db = service.app.context.shared;
  if (!(await findUser(db, who.user)))
    await addUser(db, who.user, who.password, role, new Date().toISOString());
}

test.beforeAll(async ({ service }) => {
  await ensureUser(service, VIEWER, 'viewer');
  await ensureUser(service, NARROWED, 'operator');
  failed = (await service.client.exec('pl_3', 'missing-roles.csv')).requestId as string;
  await settle(service);
});

/** Gives `control` the keyboard's focus by tabbing to it, as a keyboard user does. */
async function tabTo(page: Page, control: Locator): Promise<void> {
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press('Tab');
    if (await control.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error('the control was never reached by Tab');
}

/** The control is refused with its reason, which keyboard, screen reader and press reach. */
async function refusedWithReason(page: Page, control: Locator, reason: string): Promise<void> {
  await expect(control).toBeVisible();
  await expect(control).toHaveAttribute('aria-disabled', 'true');
  await expect(control).toHaveAccessibleDescription(reason);
  await expect(control).toHaveAttribute('title', reason);
  await tabTo(page, control);
  await expect(page.getByTestId('focus-reason')).toHaveText(reason);
  // Pressed (Enter, or a tap): nothing happens but the reason, as a notice.
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: reason }).first()).toBeVisible();
}

test('a viewer reads every page and finds every change control disabled, with its reason by keyboard', async ({
  page,
  service,
}) => {
  test.setTimeout(120_000);
  await signIn(page, service, VIEWER, '/');
  await expect(page.getByTestId('role-here')).toHaveText('viewer');

  // Overview: the latest error's retry, a suspended pipeline's resume.
  await expect(page.getByTestId('suspended')).toBeVisible();
  await refusedWithReason(
    page,
    page.getByTestId('latest-error-retry').first(),
    REASON.requestretry,
  );
  await refusedWithReason(
    page,
    page.getByTestId('suspended').getByRole('button', { name: 'Resume' }).first(),
    REASON.resume,
  );

  // Pipelines: the run mode switch, Execute, Clear cache.
  await page.goto(`${service.url}/pipelines`);
  const row = page.locator('tr[data-pipeline="pl_1"]');
  await refusedWithReason(page, row.getByRole('switch'), REASON.suspend);
  await refusedWithReason(page, row.getByRole('button', { name: 'Execute' }), REASON.exec);
  await refusedWithReason(
    page,
    row.getByRole('button', { name: 'Clear cache' }),
    REASON.pipelinecache,
  );
  await expect(page.locator('tbody tr')).not.toHaveCount(0);

  // Requests: a row's retry, the selection's and the whole day's.
  await page.goto(`${service.url}/requests?pipeline=pl_3&status=Error`);
  const request = page.locator(`[data-request="${failed}"]`);
  await refusedWithReason(
    page,
    request.getByRole('button', { name: `Retry ${failed}` }),
    REASON.requestretry,
  );
  await refusedWithReason(
    page,
    page.getByTestId('bulk-bar').getByRole('button', { name: /^Retry (all|the) / }),
    REASON.requestretry,
  );
  await request.getByRole('checkbox').check();
  await refusedWithReason(
    page,
    page.getByRole('button', { name: 'Retry selected (1)' }),
    REASON.requestretry,
  );

  // The request's own page.
  await page.goto(`${service.url}/requests/${failed}`);
  await expect(page.getByRole('table', { name: 'Log lines' })).toBeVisible();
  await refusedWithReason(
    page,
    page.getByRole('button', { name: 'Retry', exact: true }),
    REASON.requestretry,
  );

  // An action table: its rows and the table itself stay.
  // Any table there is: other specs of this worker's service delete and drop some.
  const [table] = (await service.client.tables('action')).tables;
  await page.goto(`${service.url}/databases/action?table=${table}`);
  await refusedWithReason(
    page,
    page.getByRole('button', { name: 'Delete all rows' }),
    REASON.deletetable,
  );
  await refusedWithReason(page, page.getByRole('button', { name: 'Drop table' }), REASON.droptable);

  // Every page reads: no page is refused to a viewer.
  for (const path of ['/databases/system', '/databases/status', '/service-list', '/settings']) {
    await page.goto(`${service.url}${path}`);
    await expect(page.locator('main h1').first()).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
  }
  // Nothing was changed on the way.
  expect((await service.client.requestDetail(failed)).status).toBe('Error');
  expect((await service.client.listPipelines()).find((p) => p.id === 'pl_1')?.runmode).toBe('run');
});

test('an operator made a viewer on this service is one here, until the grant is revoked', async ({
  page,
  service,
}) => {
  const db = service.app.context.shared;
  await grantRole(db, NARROWED.user, 'local', 'viewer');
  try {
    await signIn(page, service, NARROWED, `/requests?pipeline=pl_3&status=Error`);
    await expect(page.getByTestId('role-here')).toHaveText('viewer');
    const retry = page
      .locator(`[data-request="${failed}"]`)
      .getByRole('button', { name: `Retry ${failed}` });
    await refusedWithReason(page, retry, REASON.requestretry);
  } finally {
    await revokeRole(db, NARROWED.user, 'local');
  }
  // Read again as the server reads it at each call: the operator's controls are back.
  await page.reload();
  await expect(page.getByTestId('role-here')).toHaveText('operator');
  const retry = page
    .locator(`[data-request="${failed}"]`)
    .getByRole('button', { name: `Retry ${failed}` });
  await expect(retry).toBeEnabled();
  await expect(retry).not.toHaveAttribute('aria-disabled', 'true');
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`a viewer's pages, with a reason shown, have no WCAG 2.2 AA violations: ${colorScheme}`, async ({
    page,
    service,
  }) => {
    await page.emulateMedia({ colorScheme });
    await signIn(page, service, VIEWER, '/pipelines');
    const found: string[] = [];
    const check = async (state: string) => {
      found.push(...(await axeViolations(page, state)));
    };
    const execute = page
      .locator('tr[data-pipeline="pl_1"]')
      .getByRole('button', { name: 'Execute' });
    await expect(execute).toHaveAttribute('aria-disabled', 'true');
    await tabTo(page, execute);
    await expect(page.getByTestId('focus-reason')).toBeVisible();
    await check('pipelines, a reason shown');
    await page.goto(`${service.url}/requests?pipeline=pl_3&status=Error`);
    const retry = page
      .locator(`[data-request="${failed}"]`)
      .getByRole('button', { name: `Retry ${failed}` });
    await tabTo(page, retry);
    await expect(page.getByTestId('focus-reason')).toHaveText(REASON.requestretry);
    await check('requests, a reason shown');
    expect(found, 'axe violations').toEqual([]);
  });
}
