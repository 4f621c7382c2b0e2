import { describe, expect, it } from 'vitest';
import { stageSeconds } from './stage-time.ts';

describe('stageSeconds', () => {
  it('reads mm:ss, and the longer and finer forms products write', () => {
    expect(stageSeconds('00:03')).toBe(3);
    expect(stageSeconds('75:12')).toBe(4512);
    // An hour-long stage told with hours must not weigh less than a three-second one.
    expect(stageSeconds('1:15:12')).toBe(4512);
    expect(stageSeconds('00:03.250')).toBe(3.25);
    expect(stageSeconds('00:03,5')).toBe(3.5);
    expect(stageSeconds('')).toBeUndefined();
    expect(stageSeconds('3 s')).toBeUndefined();
    expect(stageSeconds('1:2:3:04')).toBeUndefined();
  });
});
