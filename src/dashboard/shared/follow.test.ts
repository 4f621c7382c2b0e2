import { describe, expect, it, vi } from 'vitest';
import type { RequestDetail } from '../../kit/index.ts';

// auth.ts reads the browser's storage as it loads; untouched needs none of it.
vi.mock('../core/auth.ts', () => ({ useClients: () => ({}) }));
const { untouched } = await import('./follow.ts');

const failed: RequestDetail = {
  requestId: 'pl_1-20261128_09-000001',
  pipelineId: 'pl_1',
  name: 'Sales',
  status: 'Error',
  stage: 'Joint',
  beginTime: '2026-11-28 09:00:00',
  endTime: '2026-11-28 09:00:04',
  sensorTime: '',
  filterTime: '',
  jointTime: '',
  sensorFile: 'daily.csv',
  fileSize: '',
  requestLog: [
    {
      date: '2026/11/28 09:00:04',
      stage: '',
      event: 'End',
      status: 'Finish',
      actionOrder: 0,
      message: 'Input daily.csv could not be parsed',
    },
  ],
  appLog: [],
} as unknown as RequestDetail;

describe('untouched', () => {
  it('tells a request left as it was before a retry from one that ran again', () => {
    expect(untouched({ ...failed }, failed)).toBe(true);
    // Nothing read before: judged as before, by what it shows.
    expect(untouched(failed, undefined)).toBe(false);
    // Ran again and failed again within the same state: its end time or log tell.
    expect(untouched({ ...failed, endTime: '2026-11-28 09:05:02' }, failed)).toBe(false);
    const again = [...(failed.requestLog ?? []), ...(failed.requestLog ?? [])];
    expect(untouched({ ...failed, requestLog: again }, failed)).toBe(false);
    // A log started again on retry (a vendor that rewrites it).
    expect(untouched({ ...failed, requestLog: [] }, failed)).toBe(false);
    expect(untouched({ ...failed, status: 'Wait', endTime: '' }, failed)).toBe(false);
  });
});
