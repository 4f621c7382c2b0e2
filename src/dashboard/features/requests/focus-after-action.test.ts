import { describe, expect, it } from 'vitest';
import { focusCandidates } from './focus-after-action.ts';

describe('focusCandidates', () => {
  it('tries the rows acted on, then the ones after the first, then the ones before, nearest first', () => {
    expect(focusCandidates(['a', 'b', 'c', 'd', 'e'], ['c'])).toEqual(['c', 'd', 'e', 'b', 'a']);
    // The last row: the one above took its place.
    expect(focusCandidates(['a', 'b', 'c'], ['c'])).toEqual(['c', 'b', 'a']);
    // A selection: its rows in the order given, then the others after its first row.
    expect(focusCandidates(['a', 'b', 'c', 'd', 'e'], ['d', 'b'])).toEqual([
      'd',
      'b',
      'c',
      'e',
      'a',
    ]);
  });

  it('keeps the rows acted on when the list no longer shows them', () => {
    expect(focusCandidates(['a', 'b'], ['x'])).toEqual(['x']);
    expect(focusCandidates([], ['x', 'y'])).toEqual(['x', 'y']);
  });
});
