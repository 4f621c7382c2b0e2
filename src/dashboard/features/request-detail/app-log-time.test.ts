import { describe, expect, it } from 'vitest';
import { appLogStamps } from './app-log-time.ts';

describe('appLogStamps', () => {
  it('puts each time of day on the request’s begin day, crossing midnight in order', () => {
    expect(
      appLogStamps(
        ['23:59:58', '23:59:59', '00:00:01', '9:05:00', 'noon'],
        '2026-11-21 23:59:57',
        'pl_1-20261121_23-000001',
      ),
    ).toEqual([
      '2026-11-21 23:59:58',
      '2026-11-21 23:59:59',
      '2026-11-22 00:00:01',
      '2026-11-22 09:05:00',
      undefined,
    ]);
  });

  it('takes the day from a slashed BeginTime, else from the request id', () => {
    expect(appLogStamps(['10:00:00'], '2026/11/20 09:00:00', 'pl_1-20261121_09-000001')).toEqual([
      '2026-11-20 10:00:00',
    ]);
    expect(appLogStamps(['10:00:00'], '', 'pl_1-20261121_09-000001')).toEqual([
      '2026-11-21 10:00:00',
    ]);
    expect(appLogStamps(['10:00:00'], '', 'not-an-id')).toEqual([undefined]);
  });
});
