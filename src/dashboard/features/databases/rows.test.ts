import { describe, expect, it } from 'vitest';
import { arrangeRows, sortFrom, sortParam } from './rows.ts';

const data = {
  columns: [
    { name: 'ID', type: 'INTEGER', key: true },
    { name: 'NAME', type: 'VARCHAR', key: false },
  ],
  rows: [
    ['10', 'Radia'],
    ['9', null],
    ['100', 'ada'],
    [null, 'Linus'],
  ],
};

describe('arrangeRows', () => {
  it('sorts numbers by value, not as text, with NULL first', () => {
    const ids = arrangeRows(data, '', { column: 'ID', descending: false }).map((r) => r[0]);
    expect(ids).toEqual([null, '9', '10', '100']);
  });

  it('sorts down, NULL last', () => {
    const ids = arrangeRows(data, '', { column: 'ID', descending: true }).map((r) => r[0]);
    expect(ids).toEqual(['100', '10', '9', null]);
  });

  it('sorts text by collation, so case does not split the names', () => {
    const names = arrangeRows(data, '', { column: 'NAME', descending: false }).map((r) => r[1]);
    expect(names).toEqual([null, 'ada', 'Linus', 'Radia']);
  });

  it('keeps the rows holding the filter in any value, never matching NULL', () => {
    expect(arrangeRows(data, ' RAD ', undefined)).toEqual([['10', 'Radia']]);
    expect(arrangeRows(data, 'null', undefined)).toEqual([]);
  });

  it('leaves the order alone for a column the page does not have', () => {
    expect(arrangeRows(data, '', { column: 'GONE', descending: true })).toEqual(data.rows);
  });
});

describe('sort in the URL', () => {
  it('reads NAME as up and -NAME as down, and writes them back', () => {
    expect(sortFrom('NAME')).toEqual({ column: 'NAME', descending: false });
    expect(sortFrom('-NAME')).toEqual({ column: 'NAME', descending: true });
    expect(sortFrom(null)).toBeUndefined();
    expect(sortFrom('-')).toBeUndefined();
    for (const value of ['ID', '-ID']) expect(sortParam(sortFrom(value))).toBe(value);
    expect(sortParam(undefined)).toBeUndefined();
  });
});
