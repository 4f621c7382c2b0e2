import { describe, expect, it } from 'vitest';
import { dayFrom, indexFrom, pageSizeFrom, searchWith, withParams } from './url-state.ts';

describe('URL state readers', () => {
  it('reads an index as a whole number of at least 0', () => {
    expect(indexFrom('150')).toBe(150);
    expect(indexFrom(null)).toBe(0);
    expect(indexFrom('-50')).toBe(0);
    expect(indexFrom('abc')).toBe(0);
  });

  it('reads a day as yyyymmdd, else the fallback', () => {
    const today = () => '20261122';
    expect(dayFrom('20261121', today)).toBe('20261121');
    expect(dayFrom('2026-11-21', today)).toBe('20261122');
    expect(dayFrom(null, today)).toBe('20261122');
  });

  it('reads only the offered page sizes', () => {
    expect(pageSizeFrom('500', 100)).toBe(500);
    expect(pageSizeFrom('7', 100)).toBe(100);
    expect(pageSizeFrom(null, 50)).toBe(50);
  });
});

describe('withParams', () => {
  it('changes only the named parameters and leaves out empty ones and Index 0', () => {
    const search = new URLSearchParams('table=ORDERS&index=100&rows=ada');
    expect(withParams(search, { index: 0, sort: '-ID' }).toString()).toBe(
      'table=ORDERS&rows=ada&sort=-ID',
    );
    expect(withParams(search, { rows: '' }).toString()).toBe('table=ORDERS&index=100');
    expect(search.toString()).toBe('table=ORDERS&index=100&rows=ada');
  });
});

describe('searchWith', () => {
  it('goes back to the first page on any change but paging', () => {
    const search = new URLSearchParams('date=20261121&index=100');
    expect(searchWith(search, { pipeline: 'pl_1' }).toString()).toBe('date=20261121&pipeline=pl_1');
  });

  it('pages, and leaves out Index 0 and empty values', () => {
    const search = new URLSearchParams('date=20261121&pipeline=pl_1');
    expect(searchWith(search, { index: 50 }).toString()).toBe(
      'date=20261121&pipeline=pl_1&index=50',
    );
    expect(searchWith(search, { index: 0, pipeline: '' }).toString()).toBe('date=20261121');
  });
});
