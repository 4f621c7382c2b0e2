import { expect, settle, signIn, test, type RunningService } from './fixtures.ts';
import { axeViolations } from './axe.ts';

async function failing(service: RunningService, file: string): Promise<string> {
  const { requestId } = await service.client.exec('pl_3', file);
  await settle(service);
  return requestId as string;
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`a failed request's detail and its retry dialog with the outcome have no WCAG 2.2 AA violations: ${colorScheme}`, async ({
    page,
    service,
  }) => {
    const id = await failing(service, `axe-${colorScheme}.csv`);
    await page.emulateMedia({ colorScheme });
    await signIn(page, service, undefined, `/requests/${id}`);
    await expect(page.getByTestId('failure')).toBeVisible();
    const found = await axeViolations(page, 'failed request');
    const retry = page.getByRole('button', { name: 'Retry', exact: true });
    await retry.click();
    const dialog = page.getByRole('dialog');
    found.push(...(await axeViolations(page, 'retry dialog')));
    await dialog.getByRole('button', { name: 'Yes, go ahead' }).click();
    await expect(dialog.getByTestId('action-outcome')).toContainText('Error again', {
      timeout: 15_000,
    });
    found.push(...(await axeViolations(page, 'retry dialog with its outcome')));
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(retry).toBeFocused();
    expect(found).toEqual([]);
  });
}

test('a disabled Cancel looks disabled in dark mode: no danger colour, a dashed outline', async ({
  page,
  service,
}) => {
  const id = await failing(service, 'dark-cancel.csv');
  await page.emulateMedia({ colorScheme: 'dark' });
  await signIn(page, service, undefined, `/requests/${id}`);
  const cancel = page.getByRole('button', { name: 'Cancel', exact: true });
  await expect(cancel).toHaveAttribute('aria-disabled', 'true');
  const look = await cancel.evaluate((element) => {
    const style = getComputedStyle(element);
    // Tailwind writes oklch(): a canvas turns any CSS colour into RGB.
    const context = document.createElement('canvas').getContext('2d');
    if (!context) throw new Error('no 2d canvas');
    context.fillStyle = style.backgroundColor;
    context.fillRect(0, 0, 1, 1);
    const [r = 0, g = 0, b = 0, a = 255] = context.getImageData(0, 0, 1, 1).data;
    return { spread: Math.max(r, g, b) - Math.min(r, g, b), alpha: a, border: style.borderStyle };
  });
  // A grey (or no) fill rather than red-700, and the dashed outline of every disabled button.
  expect(look.alpha === 0 || look.spread < 40, JSON.stringify(look)).toBe(true);
  expect(look.border).toBe('dashed');
});

test('the requests and request detail pages in Japanese', async ({ page, service }) => {
  const id = await failing(service, 'ja-missing.csv');
  await signIn(page, service, undefined, '/');
  await page.evaluate(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
  await page.goto(`${service.url}/requests?pipeline=pl_3&status=Error`);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  await expect(page.getByRole('heading', { name: 'リクエスト', level: 1 })).toBeVisible();
  const row = page.locator(`tr[data-request="${id}"]`);
  await expect(row.getByRole('button', { name: `${id} を再実行` })).toHaveText('再実行');
  await expect(row.getByRole('button', { name: `${id} をキャンセル` })).toHaveAccessibleDescription(
    'ステータスが Error のリクエストは終了済みのため、キャンセルするものがありません。',
  );
  await expect(page.getByRole('button', { name: '更新', exact: true })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'ステータス' })).toBeVisible();

  await row.getByRole('link', { name: id }).click();
  await expect(page.getByRole('heading', { name: 'ステージごとの経過' })).toBeVisible();
  await expect(page.getByTestId('failure')).toContainText('失敗の理由');
  await expect(page.getByRole('tab', { name: /^リクエストログ（\d+）$/ })).toBeVisible();
  await expect(page.getByRole('link', { name: '← その日のリクエスト' })).toBeVisible();
  const retry = page.getByRole('button', { name: '再実行', exact: true });
  await expect(page.getByRole('button', { name: 'キャンセル', exact: true })).toBeVisible();
  await retry.click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toHaveAccessibleName('このリクエストを再実行しますか？');
  await dialog.getByRole('button', { name: '再実行する' }).click();
  await expect(dialog.getByTestId('action-outcome')).toContainText('再び Error — ', {
    timeout: 15_000,
  });
  await expect(dialog).toContainText('✓ 受付済み');
  // Done, its title says what happened rather than still asking.
  await expect(dialog).toHaveAccessibleName('1 件を再実行しました');
  await dialog.getByRole('button', { name: '閉じる' }).click();
  await expect(retry).toBeFocused();
  // Back to the list it was opened from: the same day with its filters, not the whole day.
  await page.getByRole('link', { name: '← その日のリクエスト' }).click();
  await expect(page.getByRole('heading', { name: 'リクエスト', level: 1 })).toBeVisible();
  const back = new URL(page.url()).searchParams;
  expect([back.get('pipeline'), back.get('status')]).toEqual(['pl_3', 'Error']);
  await expect(page.locator(`tr[data-request="${id}"]`)).toBeVisible();
});

test('at 390 px the Japanese requests page and a failed request need no sideways scrolling', async ({
  page,
  service,
}) => {
  const id = await failing(service, 'ja-phone-missing.csv');
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, service, undefined, '/');
  await page.evaluate(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
  const width = () => page.evaluate(() => document.documentElement.scrollWidth);
  await page.goto(`${service.url}/requests?pipeline=pl_3`);
  // The bulk buttons name their whole scope, which comes first in Japanese: they wrap.
  await expect(page.getByRole('button', { name: /をすべて再実行…$/ })).toBeVisible();
  await expect(page.locator(`tr[data-request="${id}"]`)).toBeVisible();
  expect(await width()).toBeLessThanOrEqual(390);
  await page.goto(`${service.url}/requests/${id}`);
  await expect(page.getByTestId('failure')).toContainText('ja-phone-missing.csv');
  expect(await width()).toBeLessThanOrEqual(390);
});
