import { describe, expect, it } from 'vitest';
import { CastError, compileFilter } from './filter.ts';
import type { Row } from './values.ts';

const rows = (): Row[] => [
  { id: '1', region: 'EU', amount: '5', note: null },
  { id: '2', region: 'US', amount: '50', note: 'x' },
  { id: '3', region: 'EU', amount: '500', note: '' },
];

describe('filter actions', () => {
  it('keep: comparisons are numeric when both sides are numbers, text otherwise', () => {
    expect(
      compileFilter({ keep: { field: 'amount', op: '>', value: 20 } }, {})
        .apply(rows())
        .map((r) => r.id),
    ).toEqual(['2', '3']);
    expect(
      compileFilter({ keep: { field: 'region', op: '!=', value: 'EU' } }, {})
        .apply(rows())
        .map((r) => r.id),
    ).toEqual(['2']);
    expect(
      compileFilter({ keep: { field: 'region', op: 'in', value: ['US', 'APAC'] } }, {})
        .apply(rows())
        .map((r) => r.id),
    ).toEqual(['2']);
    expect(
      compileFilter({ keep: { field: 'note', op: 'isNull' } }, {})
        .apply(rows())
        .map((r) => r.id),
    ).toEqual(['1']);
  });

  it('keep: all, any and not combine; ${arg} takes the request value', () => {
    const all = compileFilter(
      {
        keep: {
          all: [
            { field: 'region', op: '=', value: '${region}' },
            { field: 'amount', op: '>=', value: '${min}' },
          ],
        },
      },
      { region: 'EU', min: '100' },
    );
    expect(all.apply(rows()).map((r) => r.id)).toEqual(['3']);
    const any = compileFilter(
      {
        keep: {
          any: [
            { field: 'id', op: '=', value: 1 },
            { field: 'id', op: '=', value: 3 },
          ],
        },
      },
      {},
    );
    expect(any.apply(rows()).map((r) => r.id)).toEqual(['1', '3']);
    const not = compileFilter(
      { keep: { not: { field: 'region', op: 'startsWith', value: 'E' } } },
      {},
    );
    expect(not.apply(rows()).map((r) => r.id)).toEqual(['2']);
  });

  it('select, rename, cast and derive reshape rows', () => {
    const select = compileFilter({ select: ['id', 'missing'] }, {}).apply(rows());
    expect(select[0]).toEqual({ id: '1', missing: null });
    const renamed = compileFilter({ rename: { id: 'order_id' } }, {}).apply(rows());
    expect(Object.keys(renamed[0] as Row)).toEqual(['order_id', 'region', 'amount', 'note']);
    const cast = compileFilter(
      { cast: { id: 'integer', amount: 'double', note: 'string' } },
      {},
    ).apply(rows());
    expect(cast[0]).toEqual({ id: 1, region: 'EU', amount: 5, note: null });
    const derived = compileFilter({ derive: { twice: 'amount * 2' } }, {}).apply(rows());
    expect(derived.map((r) => r.twice)).toEqual([10, 100, 1000]);
  });

  it('cast refuses values that are not of the type, naming field and value', () => {
    const cast = compileFilter({ cast: { region: 'integer' } }, {});
    expect(() => cast.apply(rows())).toThrow(CastError);
    expect(() => cast.apply(rows())).toThrow('cast: region value "EU" is not an integer');
  });
});
