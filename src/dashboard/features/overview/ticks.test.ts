import { describe, expect, it } from 'vitest';
import { countTicks } from './ticks.ts';

describe('countTicks', () => {
  it('shows 0 and 1 on an empty day, never fractions', () => {
    expect(countTicks(0)).toEqual([0, 1]);
  });

  it('steps by whole numbers up to the busiest hour', () => {
    expect(countTicks(3)).toEqual([0, 1, 2, 3]);
    expect(countTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(countTicks(156)).toEqual([0, 50, 100, 150, 200]);
    expect(countTicks(24_000)).toEqual([0, 5000, 10_000, 15_000, 20_000, 25_000]);
    for (const max of [1, 9, 11, 99, 2400, 12_345])
      for (const tick of countTicks(max)) expect(Number.isInteger(tick)).toBe(true);
  });

  it('ends at or above the maximum with at most six ticks', () => {
    for (const max of [1, 2, 5, 6, 10, 13, 49, 51, 999, 1001, 77_777]) {
      const ticks = countTicks(max);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(6);
    }
  });
});
