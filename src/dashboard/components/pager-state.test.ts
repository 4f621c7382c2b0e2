import { describe, expect, it } from 'vitest';
import { lastPageIndex, pagerState } from './pager-state.ts';

describe('pagerState', () => {
  it('shows the 1-based range and both neighbours in the middle of a list', () => {
    expect(pagerState({ index: 50, count: 50, prev: 0, next: 100, total: 230 })).toEqual({
      range: { from: 51, to: 100 },
      total: 230,
      previous: 0,
      next: 100,
      paged: true,
    });
  });

  it('has no previous page on the first and no next page on the last', () => {
    const first = pagerState({ index: 0, count: 50, prev: -1, next: 50, total: 80 });
    expect([first.previous, first.next]).toEqual([undefined, 50]);
    const last = pagerState({ index: 50, count: 30, prev: 0, next: -1, total: 80 });
    expect([last.previous, last.next, last.range]).toEqual([0, undefined, { from: 51, to: 80 }]);
  });

  it('is not paged when one page holds everything, and has no range when empty', () => {
    const one = pagerState({ index: 0, count: 7, prev: -1, next: -1, total: 7 });
    expect(one.paged).toBe(false);
    const empty = pagerState({ index: 0, count: 0, prev: -1, next: -1, total: 0 });
    expect(empty.range).toBeUndefined();
  });

  it('keeps the total unknown where the service sends none', () => {
    expect(pagerState({ index: 0, count: 10, prev: -1, next: 10, total: undefined }).total).toBe(
      undefined,
    );
  });
});

describe('lastPageIndex', () => {
  it('is the Index of the page holding the last row', () => {
    const info = { index: 0, count: 100, prev: -1, next: 100, total: 100_006 };
    expect(lastPageIndex(info, 100)).toBe(100_000);
    expect(lastPageIndex({ ...info, total: 100_000 }, 100)).toBe(99_900);
    expect(lastPageIndex({ ...info, total: 0 }, 100)).toBe(0);
  });

  it('is unknown without a Total or a page size', () => {
    const info = { index: 0, count: 10, prev: -1, next: 10, total: undefined };
    expect(lastPageIndex(info, 50)).toBeUndefined();
    expect(lastPageIndex({ ...info, total: 20 }, undefined)).toBeUndefined();
  });
});
