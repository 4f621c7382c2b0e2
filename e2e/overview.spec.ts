import { REQUEST_STATUSES } from '../src/kit/index.ts';
import { expect, settle, signIn, test } from './fixtures.ts';

test('counts today’s requests per pipeline and status as the service’s requestlist does', async ({
  page,
  service,
}) => {
  await settle(service);
  await signIn(page, service, undefined, '/');
  const list = await service.client.requestList({ pageSize: 1000 });
  const table = page.getByTestId('by-pipeline');
  for (const pipelineId of new Set(list.requests.map((r) => r.pipelineId))) {
    const row = table.locator(`tr[data-pipeline="${pipelineId}"]`);
    for (const status of REQUEST_STATUSES) {
      const count = list.requests.filter(
        (r) => r.pipelineId === pipelineId && r.status === status,
      ).length;
      await expect(row.locator(`td[data-status="${status}"]`)).toHaveText(String(count));
    }
    await expect(row.locator('td[data-status="total"]')).toHaveText(
      String(list.requests.filter((r) => r.pipelineId === pipelineId).length),
    );
  }
  const errors = list.requests.filter((r) => r.status === 'Error');
  await expect(page.getByTestId('health')).toContainText(
    `${errors.length} request${errors.length === 1 ? '' : 's'} in Error`,
  );
  // The newest error of the day, whatever other specs of this worker added, in the
  // service's own words.
  const newest = errors[0]?.requestId ?? '';
  await expect(page.getByTestId('latest-errors')).toContainText(newest);
  const detail = await service.client.requestDetail(newest, { requestLog: true });
  const reason = [...(detail.requestLog ?? [])]
    .reverse()
    .find((l) => l.status === 'Error' && l.message)?.message;
  expect(reason).toBeTruthy();
  await expect(page.getByTestId('latest-errors')).toContainText(reason as string);
  await expect(page.getByTestId('suspended')).toContainText('Archive export');
  await expect(page.getByTestId('hourly-chart').locator('canvas')).toHaveCount(1);
});
