import { describe, expect, it } from 'vitest';
import { toCsv } from './csv.ts';

describe('toCsv', () => {
  it('neutralises formulas but leaves negative numbers alone', () => {
    expect(
      toCsv(
        ['A', 'B'],
        [
          ['=SUM(1)', '-3.5'],
          ['@cmd', null],
        ],
      ),
    ).toBe(`A,B\n"'=SUM(1)",-3.5\n"'@cmd",`);
  });
});
