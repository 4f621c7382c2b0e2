import { describe, expect, it } from 'vitest';
import type { Pipeline } from '../../../kit/index.ts';
import { matches } from './filter.ts';

const pipeline = {
  id: 'pl_3',
  name: 'Orders',
  description: 'Reads the orders inbox',
  args: [{ name: 'region', value: 'north' }],
} as unknown as Pipeline;

describe('matches', () => {
  it('finds the text in the id, name, description and Args, case aside', () => {
    for (const text of ['PL_3', 'orders', 'inbox', 'REGION', 'north', '  ']) {
      expect(matches(pipeline, text)).toBe(true);
    }
    expect(matches(pipeline, 'south')).toBe(false);
  });
});
