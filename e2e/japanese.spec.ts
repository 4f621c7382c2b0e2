import type { Page } from '@playwright/test';
import { seedDay } from './day-seed.ts';
import { ADMIN, expect, settle, test, type RunningService } from './fixtures.ts';

// A past day of its own (a worker's service is shared by the spec files it runs).
const DAY = '20261020';

test.beforeAll(({ service }) => {
  seedDay(service, DAY, [
    { pipelineId: 'pl_2', status: 'Error', count: 3, hour: 4, message: 'disk full' },
    { pipelineId: 'pl_2', status: 'Finish', count: 1234, hour: 10 },
  ]);
});

/** A Japanese operator: the language picked before the dashboard loads, then signed in. */
async function signInInJapanese(page: Page, service: RunningService, path: string) {
  await page.addInitScript(() => localStorage.setItem('pipeline-dashboard.language', 'ja'));
  await page.goto(`${service.url}/sign-in?next=${encodeURIComponent(path)}`);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  await expect(page.getByRole('heading', { name: 'サインイン' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'ユーザー名とパスワード' })).toBeVisible();
  await expect(page.getByText('このブラウザーでサインイン状態を保持する')).toBeVisible();
  await page.getByLabel('ユーザー名').fill(ADMIN.user);
  await page.getByLabel('パスワード', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'サインイン' }).click();
  await expect(page.getByTestId('identity')).toContainText(ADMIN.user);
}

test('the overview speaks Japanese: headings, columns, counts and the day’s health', async ({
  page,
  service,
}) => {
  await signInInJapanese(page, service, `/?date=${DAY}`);
  await expect(page.getByRole('heading', { level: 1, name: '概要' })).toBeVisible();
  for (const heading of [
    'パイプライン別のリクエスト',
    '時間帯別のリクエスト',
    '最新のエラー',
    '停止中のパイプライン',
  ])
    await expect(page.getByRole('heading', { name: heading })).toBeVisible();
  const table = page.getByTestId('by-pipeline');
  await expect(table.getByRole('columnheader', { name: '合計' })).toBeVisible();
  // Statuses are the service's words, in both languages.
  await expect(table.getByRole('columnheader', { name: 'Error' })).toBeVisible();
  await expect(table.locator('tr[data-pipeline="pl_2"] td[data-status="total"]')).toHaveText(
    '1,237',
  );
  await expect(page.getByTestId('error-count')).toHaveText('Error のリクエスト 3 件');
  await expect(page.getByTestId('day-total')).toContainText('この日のリクエストは 1,237 件です');
  await expect(
    page.getByTestId('latest-errors').getByRole('button', { name: '再実行' }),
  ).toHaveCount(3);
  await expect(page.locator('main')).not.toContainText('Requests per pipeline');
});

test('the databases page speaks Japanese', async ({ page, service }) => {
  await settle(service);
  // Another spec of this worker may have dropped CUSTOMERS: any action table will do.
  const table = (await service.client.tables('action')).tables[0] as string;
  await signInInJapanese(page, service, `/databases/action?table=${table}`);
  await expect(page.getByRole('heading', { level: 1, name: 'データベース' })).toBeVisible();
  const databases = page.getByRole('navigation', { name: 'データベース' });
  for (const name of ['システムDB', 'ステータスDB', 'アクションDB'])
    await expect(databases.getByRole('link', { name })).toBeVisible();
  await expect(page.getByLabel('このページのテーブルを絞り込む')).toBeVisible();
  await expect(
    page.getByTestId('table-list').getByRole('link', { name: new RegExp(`^${table}`) }),
  ).toContainText(/\d+ 行$/);
  await expect(page.getByRole('button', { name: '全行を削除' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'テーブルを削除' })).toBeVisible();
  await page.getByRole('button', { name: '全行を削除' }).click();
  const dialog = page.getByRole('dialog', { name: `${table} の全行を削除しますか？` });
  await expect(dialog).toContainText('この操作は元に戻せません。');
  await dialog.getByRole('button', { name: 'キャンセル' }).click();
  await expect(dialog).toBeHidden();
});

test('the settings page speaks Japanese, and its clock choice too', async ({ page, service }) => {
  await signInInJapanese(page, service, '/settings');
  await expect(page.getByRole('heading', { level: 1, name: '設定' })).toBeVisible();
  for (const heading of ['サービス', 'このブラウザー', 'パイプラインAPI', '通知'])
    await expect(page.getByRole('heading', { name: heading, exact: true })).toBeVisible();
  await expect(page.getByRole('switch', { name: 'パイプラインAPIを有効にする' })).toBeChecked();
  await expect(page.getByRole('button', { name: '再発行' })).toBeVisible();
  const clock = page.getByLabel('時計');
  await expect(clock.locator('option:checked')).toHaveText('言語の表記に従う');
  // The 24-hour clock is how Japanese writes the time unless told otherwise.
  await page.goto(`${service.url}/audit`);
  await expect(page.getByRole('heading', { level: 1, name: '監査ログ' })).toBeVisible();
  await expect(page.getByTestId('audit').locator('time').first()).toHaveText(
    /^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2} \S+$/,
  );
  await expect(page.getByTestId('audit').locator('time').first()).not.toContainText(
    /午前|午後|AM|PM/,
  );
  await expect(page.getByRole('columnheader', { name: '日時' })).toBeVisible();
});

test('the services page speaks Japanese', async ({ page, service }) => {
  await signInInJapanese(page, service, '/service-list');
  await expect(page.getByRole('heading', { level: 1, name: 'サービス' })).toBeVisible();
  const table = page.getByTestId('services');
  for (const name of ['状態', 'バージョン', 'リクエスト一覧'])
    await expect(table.getByRole('columnheader', { name })).toBeVisible();
  await expect(table.locator('tr[data-service="local"]')).toContainText('応答あり');
  await expect(table.locator('tr[data-service="local"]')).toContainText('リアルタイム');
});

test('switching to Japanese on the sign-in page loads its catalogue, and back', async ({
  page,
  service,
}) => {
  const chunks: string[] = [];
  page.on('request', (request) => {
    if (/\/assets\/locale-ja-[\w-]+\.js$/.test(request.url())) chunks.push(request.url());
  });
  await page.goto(`${service.url}/sign-in`);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  // English is bundled: no catalogue chunk was fetched for it.
  expect(chunks).toEqual([]);
  await page.getByTestId('language-picker').selectOption('ja');
  await expect(page.getByRole('heading', { name: 'サインイン' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  expect(chunks).toHaveLength(1);
  await page.getByTestId('language-picker').selectOption('en');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
});
