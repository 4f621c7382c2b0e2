import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CAST_TYPES,
  COMPARISONS,
  type FilterAction,
  type Predicate,
} from '../pipelines/definition.ts';
import { CastError, compileFilter } from './filter.ts';
import { toObjects, type Batch, type Row, type Value } from './values.ts';

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

describe('derive bounds in a filter', () => {
  it('stops a derive chain that doubles its text, naming the field and the limit', () => {
    // a0 = x twice, a1 = a0 twice, ...: 8 · 2^40 characters if nothing stopped it.
    const chain: Record<string, string> = { a0: 'concat(x, x)' };
    for (let i = 1; i <= 40; i++) chain[`a${i}`] = `concat(a${i - 1}, a${i - 1})`;
    const derive = compileFilter({ derive: chain }, {});
    // 8 · 2^17 = 1,048,576 is still allowed; a17 would be twice that.
    expect(() => derive.apply([{ x: 'abcdefgh' }])).toThrow(
      'derive a17: the value would be longer than 1,048,576 characters',
    );
    const plus: Record<string, string> = { b0: 'x + x' };
    for (let i = 1; i <= 40; i++) plus[`b${i}`] = `b${i - 1} + b${i - 1}`;
    expect(() => compileFilter({ derive: plus }, {}).apply([{ x: 'abcdefgh' }])).toThrow(
      'derive b17: the value would be longer than 1,048,576 characters',
    );
  });

  it('bounds what all derive expressions produce for one row, 16 MiB by default', () => {
    const big = 'x'.repeat(1_000_000);
    const many: Record<string, string> = {};
    for (let i = 0; i < 20; i++) many[`f${i}`] = 'concat(big)';
    // 16 fields of 1,000,000 characters fit in 16,777,216; the 17th does not.
    expect(() => compileFilter({ derive: many }, {}).apply([{ big }])).toThrow(
      'derive f16: the derive expressions of one row would produce more than 16,777,216 characters',
    );
    // The budget is per row: two rows of ten such fields each pass.
    const ten = Object.fromEntries(Object.entries(many).slice(0, 10));
    const rows = compileFilter({ derive: ten }, {}).apply([{ big }, { big }]);
    expect(rows.map((r) => r.f9)).toEqual([big, big]);
  });

  it('takes other limits as an option', () => {
    const derive = compileFilter({ derive: { total: 'concat(x, x)' } }, {}, { maxValueChars: 7 });
    expect(() => derive.apply([{ x: 'abcd' }])).toThrow(
      'derive total: the value would be longer than 7 characters',
    );
    const row = compileFilter({ derive: { a: 'x', b: 'x + x' } }, {}, { maxRowChars: 7 });
    expect(() => row.apply([{ x: 'abcd' }])).toThrow(
      'derive b: the derive expressions of one row would produce more than 7 characters',
    );
  });
});

describe('field names that Object.prototype also has', () => {
  it('keep, select, cast and derive see null, never an inherited member', () => {
    const input = (): Row[] => [{ id: '1' }, { id: '2' }];
    for (const field of ['constructor', '__proto__', 'toString']) {
      expect(
        compileFilter({ keep: { field, op: 'notNull' } }, {})
          .apply(input())
          .map((r) => r.id),
      ).toEqual([]);
      expect(
        compileFilter({ keep: { field, op: 'isNull' } }, {})
          .apply(input())
          .map((r) => r.id),
      ).toEqual(['1', '2']);
      expect(
        compileFilter({ keep: { field, op: 'contains', value: 'function' } }, {}).apply(input()),
      ).toEqual([]);
      const [selected] = compileFilter({ select: ['id', field] }, {}).apply(input());
      expect(Object.getPrototypeOf(selected)).toBe(Object.prototype);
      expect(Object.entries(selected as Row)).toEqual([
        ['id', '1'],
        [field, null],
      ]);
      const [cast] = compileFilter({ cast: { [field]: 'string' } }, {}).apply(input());
      expect(Object.entries(cast as Row)).toEqual([['id', '1']]);
      const [derived] = compileFilter({ derive: { d: field } }, {}).apply(input());
      expect((derived as Row).d).toBeNull();
    }
  });

  it('keeps columns named __proto__ and constructor as own fields through every action', () => {
    // As a reader builds them (JSON.parse, like setField, defines own properties).
    const input = (): Row[] => [JSON.parse('{"__proto__":"7","constructor":"c","x":"1"}') as Row];
    expect(
      compileFilter({ keep: { field: '__proto__', op: '=', value: 7 } }, {}).apply(input()),
    ).toHaveLength(1);
    // Definitions come from YAML or JSON, which make `__proto__` an own key too.
    const action = (json: string): FilterAction => JSON.parse(json) as FilterAction;
    const [cast] = compileFilter(action('{"cast":{"__proto__":"integer"}}'), {}).apply(input());
    expect(Object.getPrototypeOf(cast)).toBe(Object.prototype);
    expect((cast as Row)['__proto__']).toBe(7);
    const rename = action('{"rename":{"__proto__":"p","x":"__proto__"}}');
    const [renamed] = compileFilter(rename, {}).apply(input());
    expect(Object.getPrototypeOf(renamed)).toBe(Object.prototype);
    expect(Object.entries(renamed as Row)).toEqual([
      ['p', '7'],
      ['constructor', 'c'],
      ['__proto__', '1'],
    ]);
    const derive = action('{"derive":{"__proto__":"concat(constructor, \'!\')"}}');
    const [derived] = compileFilter(derive, {}).apply(input());
    expect(Object.getPrototypeOf(derived)).toBe(Object.prototype);
    expect((derived as Row)['__proto__']).toBe('c!');
  });
});

/** What a run of actions makes of a batch: its rows as objects, or the error's message. */
function outcome(actions: readonly FilterAction[], batch: () => Batch, onBatch: boolean) {
  try {
    const filters = actions.map((action) => compileFilter(action, {}));
    if (!onBatch)
      return { rows: filters.reduce((rows, filter) => filter.apply(rows), toObjects(batch())) };
    const out = filters.reduce((b, filter) => filter.applyBatch(b), batch());
    return { rows: toObjects(out), cells: 'cells' in out };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe("rows as cells (a CSV reader's batches)", () => {
  const fields = ['id', 'amount', 'name', '__proto__', 'constructor', '7'];
  const cell = fc.constantFrom(
    '',
    '0',
    '12',
    '-3.5',
    '1e3',
    ' 4 ',
    'EU',
    'true',
    'n',
    '2026-11-01 10:00',
  );
  const field = fc.constantFrom(...fields, 'missing');
  const scalar = fc.oneof(cell, fc.integer({ min: -5, max: 20 }), fc.constant(null));
  const leaf = fc.record({
    field,
    op: fc.constantFrom(...COMPARISONS),
    value: fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })),
  });
  const predicate: fc.Arbitrary<Predicate> = fc.oneof(
    leaf,
    fc.record({ all: fc.array(leaf, { minLength: 1, maxLength: 2 }) }),
    fc.record({ any: fc.array(leaf, { minLength: 1, maxLength: 2 }) }),
    fc.record({ not: leaf }),
  );
  const action: fc.Arbitrary<FilterAction> = fc.oneof(
    fc.record({ keep: predicate }),
    fc.record({ cast: fc.dictionary(field, fc.constantFrom(...CAST_TYPES), { maxKeys: 3 }) }),
    fc.record({ select: fc.uniqueArray(field, { minLength: 1, maxLength: 3 }) }),
    fc.record({ rename: fc.dictionary(field, field, { maxKeys: 2 }) }),
    fc.record({
      derive: fc.dictionary(field, fc.constantFrom('amount * 2', 'concat(name, id)'), {
        maxKeys: 1,
      }),
    }),
  );
  const batch = fc
    .uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: fields.length })
    .chain((names) =>
      fc.record({
        names: fc.constant(names),
        cells: fc.array(fc.array(cell, { minLength: names.length, maxLength: names.length }), {
          maxLength: 6,
        }),
      }),
    );

  it('every run of actions gives the rows, or the error, that it gives the same rows as objects', () => {
    fc.assert(
      fc.property(batch, fc.array(action, { minLength: 1, maxLength: 3 }), (data, actions) => {
        // Each side gets its own copy: cast changes the cells it is given.
        const copy = (): Batch => ({ names: data.names, cells: data.cells.map((c) => [...c]) });
        const asObjects = outcome(actions, copy, false);
        const { cells: _, ...asCells } = outcome(actions, copy, true);
        expect(asCells).toEqual(asObjects);
      }),
      { numRuns: 500 },
    );
  });

  it('stay cells through keep and cast, and become objects at the first action that reshapes them', () => {
    const names = ['id', 'amount'];
    const cells = (): Value[][] => [
      ['1', '5'],
      ['2', '50'],
    ];
    const keep: FilterAction = { keep: { field: 'amount', op: '>', value: 20 } };
    const cast: FilterAction = { cast: { amount: 'double', missing: 'integer' } };
    expect(outcome([keep, cast], () => ({ names, cells: cells() }), true)).toEqual({
      rows: [{ id: '2', amount: 50 }],
      cells: true,
    });
    expect(outcome([cast, { select: ['id'] }], () => ({ names, cells: cells() }), true)).toEqual({
      rows: [{ id: '1' }, { id: '2' }],
      cells: false,
    });
  });
});
