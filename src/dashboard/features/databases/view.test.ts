import { describe, expect, it } from 'vitest';
import { paths } from '../../paths.ts';
import {
  DEFAULT_ROWS,
  filterTables,
  readDatabaseView,
  TABLE_PAGE_SIZES,
  tablePageSizeFrom,
} from './view.ts';

describe('readDatabaseView', () => {
  it('reads the list of tables’ page and filter from the URL, like the table’s own page', () => {
    const search = new URLSearchParams(
      'listIndex=50&filter=stat&table=STATUS20261122&index=100&size=500&rows=err&sort=-ID',
    );
    expect(readDatabaseView('status', search)).toEqual({
      database: 'status',
      listIndex: 50,
      filter: 'stat',
      table: 'STATUS20261122',
      index: 100,
      size: 500,
      rows: 'err',
      sort: { column: 'ID', descending: true },
    });
  });

  it('falls back to the first pages and the default size, and knows only three databases', () => {
    expect(readDatabaseView('users', new URLSearchParams('size=7'))).toEqual({
      database: undefined,
      listIndex: 0,
      filter: '',
      table: undefined,
      index: 0,
      size: DEFAULT_ROWS,
      rows: '',
      sort: undefined,
    });
  });

  it('reads back what paths.database writes', () => {
    const url = new URL(
      paths.database('action', 'ORDERS', { index: 50, size: 100 }, { listIndex: 50, filter: 'or' }),
      'http://dashboard',
    );
    expect(readDatabaseView(url.pathname.split('/')[2], url.searchParams)).toEqual({
      database: 'action',
      listIndex: 50,
      filter: 'or',
      table: 'ORDERS',
      index: 50,
      size: 100,
      rows: '',
      sort: undefined,
    });
  });
});

describe('filterTables', () => {
  it('keeps the names holding the text, case aside', () => {
    expect(filterTables(['ORDERS', 'CUSTOMERS', 'READINGS'], ' ord ')).toEqual(['ORDERS']);
    expect(filterTables(['ORDERS', 'CUSTOMERS'], '')).toEqual(['ORDERS', 'CUSTOMERS']);
  });
});

describe('tablePageSizeFrom', () => {
  it('takes the sizes up to the service’s 10,000 rows and nothing else', () => {
    expect(TABLE_PAGE_SIZES.at(-1)).toBe(10_000);
    expect(tablePageSizeFrom('10000')).toBe(10_000);
    expect(tablePageSizeFrom('5000')).toBe(5000);
    expect(tablePageSizeFrom('50')).toBe(50);
    expect(tablePageSizeFrom('10001')).toBe(DEFAULT_ROWS);
    expect(tablePageSizeFrom('abc')).toBe(DEFAULT_ROWS);
    expect(tablePageSizeFrom(null)).toBe(DEFAULT_ROWS);
  });
});
