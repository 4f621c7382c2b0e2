import type { Locator, Page } from '@playwright/test';
import { axeViolations } from './axe.ts';
import { ADMIN, expect, OPERATOR, signIn, test } from './fixtures.ts';

// Personal API tokens on the Settings page (issue 24, item 3): a person creates one, sees
// its value once (with a copy button and a clear "shown only now"), lists it with its last
// use, and revokes it after a confirmation; the token works in X-Pipelinewebapi until then.

test('creates a token shown once, lists it with its last use, and revokes it after a confirmation', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/settings');
  const section = page.getByRole('region', { name: 'Personal tokens' });
  await expect(section.getByText('You have no tokens.')).toBeVisible();
  const form = section.getByRole('form', { name: 'New token' });
  await form.getByLabel('Name').fill('e2e script');
  await form.getByLabel('Expires in (days)').fill('7');
  await form.getByLabel('Role').selectOption('operator');
  // Only roles up to the person's own are offered (an administrator: all four).
  await expect(form.getByLabel('Role').locator('option')).toHaveText([
    'viewer',
    'operator',
    'developer',
    'administrator',
  ]);
  await form.getByRole('button', { name: 'Create token' }).click();

  const shown = section.getByTestId('new-token');
  await expect(shown).toHaveText(/^pdt_/);
  const token = (await shown.textContent()) as string;
  await expect(section.getByRole('status')).toContainText('It is shown only now');
  await expect(section.getByRole('button', { name: 'Copy token' })).toBeVisible();
  expect(await axeViolations(page, 'a token just made')).toEqual([]);

  // It acts as its person: a read works, an operator's change is allowed, and it is listed.
  const version = () =>
    page.request.get(`${service.url}/pipelineapi/requestlist/json`, {
      headers: { 'X-Pipelinewebapi': token },
    });
  expect((await version()).status()).toBe(200);
  const table = section.getByRole('table', { name: 'Your tokens' });
  const row = table.getByRole('row', { name: /e2e script/ });
  await expect(row).toContainText('operator');
  await expect(row).toContainText('Every service');

  // Gone once dismissed, and never shown again after a reload.
  await section.getByRole('button', { name: 'I have copied it' }).click();
  await expect(section.getByTestId('new-token')).toHaveCount(0);
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.getByText(token)).toHaveCount(0);
  // The last use is listed with its zone, as other times are.
  await expect(row.locator('time')).toHaveCount(3);

  // Revoke: asked first in the app's dialog, by keyboard; then refused at once.
  const revoke = row.getByRole('button', { name: 'Revoke token e2e script' });
  await revoke.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Revoke token e2e script?' });
  await expect(dialog).toContainText('refused from its next call on');
  expect(await axeViolations(page, 'the revoke dialog')).toEqual([]);
  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await expect(page.getByText('Token e2e script was revoked.')).toBeVisible();
  await expect(section.getByText('You have no tokens.')).toBeVisible();
  const refused = await version();
  expect(refused.status()).toBe(401);
  expect(await refused.text()).toMatch(/was revoked at \S+ \(revoked by its owner\)/);
  // Still listed a while as revoked, with when and why.
  const ended = section.getByRole('table', { name: 'Revoked in the last 30 days' });
  await expect(ended.getByRole('row', { name: /e2e script/ })).toContainText(
    'Revoked by its owner',
  );
});

test('an administrator finds another person’s token and revokes it; its owner sees who did', async ({
  page,
  service,
  browser,
}) => {
  // The operator's own token, made in a browser of their own.
  const operatorContext = await browser.newContext();
  const operatorPage = await operatorContext.newPage();
  try {
    await signIn(operatorPage, service, OPERATOR, '/settings');
    await createToken(operatorPage, 'left behind');

    await signIn(page, service, undefined, '/settings');
    const section = page.getByRole('region', { name: 'Personal tokens' });
    const look = section.getByRole('form', { name: 'A person’s tokens' });
    await look.getByLabel('User name').fill('nobody-here');
    await look.getByRole('button', { name: 'Show tokens' }).click();
    // The server's own words for a name it does not know.
    await expect(section.getByRole('alert')).toContainText('There is no user "nobody-here"');
    await look.getByLabel('User name').fill(OPERATOR.user);
    await look.getByRole('button', { name: 'Show tokens' }).click();
    const theirs = section.getByRole('table', { name: `Tokens of ${OPERATOR.user}` });
    const revoke = theirs.getByRole('button', { name: 'Revoke token left behind' });
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: 'Revoke token left behind?' });
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await expect(page.getByText('Token left behind was revoked.')).toBeVisible();
    await expect(section.getByText(`${OPERATOR.user} has no tokens.`)).toBeVisible();

    await operatorPage.reload();
    const ended = operatorPage.getByRole('table', { name: 'Revoked in the last 30 days' });
    await expect(ended.getByRole('row', { name: /left behind/ })).toContainText(
      `Revoked by the administrator ${ADMIN.user}`,
    );
    // The operator is offered no one else's tokens.
    await expect(operatorPage.getByRole('form', { name: 'A person’s tokens' })).toHaveCount(0);
  } finally {
    await operatorContext.close();
  }
});

/** Creates a token of a week on the Settings page shown, and dismisses its one showing. */
async function createToken(page: Page, name: string): Promise<Locator> {
  const section = page.getByRole('region', { name: 'Personal tokens' });
  const form = section.getByRole('form', { name: 'New token' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Expires in (days)').fill('7');
  await form.getByRole('button', { name: 'Create token' }).click();
  await section.getByRole('button', { name: 'I have copied it' }).click();
  return section;
}

test('a revocation the service refuses keeps the dialog open with the service’s words', async ({
  page,
  service,
}) => {
  await signIn(page, service, undefined, '/settings');
  const section = await createToken(page, 'twice revoked');
  const row = section.getByRole('row', { name: /twice revoked/ });
  await row.getByRole('button', { name: 'Revoke token twice revoked' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke token twice revoked?' });
  await expect(dialog).toBeVisible();

  // Meanwhile the same person revokes it from a script.
  const login = await page.request.post(`${service.url}/mcapi/auth/login`, {
    form: { userName: ADMIN.user, password: ADMIN.password },
  });
  const session = ((await login.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
  const headers = { 'X-As-SessionId': session };
  const listed = await page.request.get(`${service.url}/mcapi/tokens`, { headers });
  const { tokens } = (
    (await listed.json()) as {
      result: { data: { tokens: { id: number; name: string }[] } };
    }
  ).result.data;
  const id = tokens.find((token) => token.name === 'twice revoked')?.id;
  expect(id).toBeDefined();
  const first = await page.request.delete(`${service.url}/mcapi/tokens/${String(id)}`, { headers });
  expect(first.status()).toBe(200);
  const again = await page.request.delete(`${service.url}/mcapi/tokens/${String(id)}`, { headers });
  const refusal = ((await again.json()) as { result: { message: string } }).result.message;
  expect(again.status()).toBe(404);
  expect(refusal).toContain('to revoke');

  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(refusal);
  await expect(page.getByText('Token twice revoked was revoked.')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Keep it' }).click();
  await expect(dialog).toBeHidden();
});

test('an administrator stops accepting the shared key after a confirmation; tokens go on', async ({
  page,
  service,
}) => {
  const call = (key: string) =>
    page.request.get(`${service.url}/pipelineapi/requestlist/json`, {
      headers: { 'X-Pipelinewebapi': key },
    });
  await signIn(page, service, undefined, '/settings');
  const section = page.getByRole('region', { name: 'Personal tokens' });
  const form = section.getByRole('form', { name: 'New token' });
  await form.getByLabel('Name').fill('after the key');
  await form.getByRole('button', { name: 'Create token' }).click();
  const token = (await section.getByTestId('new-token').textContent()) as string;
  try {
    const toggle = page.getByRole('switch', { name: 'Shared API key accepted' });
    await expect(toggle).toBeChecked();
    await toggle.click();
    const dialog = page.getByRole('dialog', { name: 'Stop accepting the shared API key?' });
    await dialog.getByRole('button', { name: 'Stop accepting it' }).click();
    await expect(toggle).not.toBeChecked();
    expect((await call(service.apiKey)).status()).toBe(401);
    expect((await call(token)).status()).toBe(200);
    await toggle.click();
    await expect(toggle).toBeChecked();
    expect((await call(service.apiKey)).status()).toBe(200);
  } finally {
    // The other tests of this worker use the key.
    await service.app.context.access.setSharedKeyEnabled(true);
  }
});

/**
 * A fixed-offset zone where it is now 10 or 11 PM: the widest times of a 12-hour clock, whose
 * AM or PM does not wrap away (the table overflowed only in those hours, as CI found).
 */
function zoneOfTenPm(now = new Date()): string {
  let offset = (22 - now.getUTCHours() + 24) % 24;
  if (offset > 14) offset -= 24;
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

test.describe('on a phone', () => {
  test.use({ timezoneId: zoneOfTenPm() });

  test('a token’s Revoke is in sight without sideways scrolling, in Japanese and both themes', async ({
    page,
    service,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, service, undefined, '/settings');
    await createToken(page, 'phone script');
    // A token used, so that its last use is a time too; times of the browser's zone, 12-hour.
    const section = page.getByRole('region', { name: 'Personal tokens' });
    const form = section.getByRole('form', { name: 'New token' });
    await form.getByLabel('Name').fill('phone used');
    await form.getByRole('button', { name: 'Create token' }).click();
    const used = (await section.getByTestId('new-token').textContent()) as string;
    await section.getByRole('button', { name: 'I have copied it' }).click();
    const read = await page.request.get(`${service.url}/pipelineapi/version/json`, {
      headers: { 'X-Pipelinewebapi': used },
    });
    expect(read.status()).toBe(200);
    await page.evaluate(() =>
      localStorage.setItem(
        'pipeline-dashboard.preferences',
        JSON.stringify({ timeZone: 'browser', clock: 'h12' }),
      ),
    );
    // Japanese in the dark theme, English in the light one.
    for (const language of ['en', 'ja']) {
      await page.emulateMedia({ colorScheme: language === 'ja' ? 'dark' : 'light' });
      await page.evaluate(
        (code) => localStorage.setItem('pipeline-dashboard.language', code),
        language,
      );
      await page.reload();
      const table = page.getByRole('table').filter({ hasText: 'phone script' });
      // Other tests of this service may have left tokens of their own in the table.
      const row = table.getByRole('row').filter({ hasText: 'phone script' });
      const revoke = row
        .getByRole('button')
        .filter({ hasText: language === 'en' ? 'Revoke' : '失効' });
      const right = await revoke.evaluate((element) => element.getBoundingClientRect().right);
      expect(right, language).toBeLessThanOrEqual(390);
      // The table's own box does not scroll sideways either.
      const box = table.locator('xpath=..');
      const [scrollWidth, clientWidth] = await box.evaluate((element) => [
        element.scrollWidth,
        element.clientWidth,
      ]);
      expect(scrollWidth, language).toBeLessThanOrEqual(clientWidth);
      // Left out: when it was made; its role and service go under its name; expiry and last
      // use stay.
      await expect(row.locator('time:visible'), language).toHaveCount(1);
      await expect(row.getByRole('rowheader'), language).toContainText(
        language === 'en' ? 'administrator · Every service' : '管理者 · すべてのサービス',
      );
      expect(await axeViolations(page, language)).toEqual([]);
    }
    // Its expiry and last use, at ten or eleven at night with AM or PM.
    const usedRow = page.getByRole('row').filter({ hasText: 'phone used' });
    await expect(usedRow.locator('time:visible')).toHaveCount(2);
    await expect(usedRow.locator('time:visible').last()).toHaveText(/\b1[01]:\d{2}:\d{2}/);
    await page.evaluate(() => {
      localStorage.removeItem('pipeline-dashboard.language');
      localStorage.removeItem('pipeline-dashboard.preferences');
    });
  });
});
