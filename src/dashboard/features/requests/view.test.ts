import { describe, expect, it } from 'vitest';
import { readRequestsView, searchWith } from './view.ts';

describe('readRequestsView', () => {
  it('reads date, pipeline, status, index and size from the URL', () => {
    const search = new URLSearchParams(
      'date=20261121&pipeline=pl_2&status=Error&index=100&size=500',
    );
    expect(readRequestsView(search, 100)).toEqual({
      date: '20261121',
      pipeline: 'pl_2',
      status: 'Error',
      index: 100,
      size: 500,
    });
  });

  it('takes the preferred size when the URL has none, and leaves empty filters out', () => {
    const view = readRequestsView(new URLSearchParams('pipeline=&status='), 50);
    expect([view.pipeline, view.status, view.index, view.size]).toEqual([
      undefined,
      undefined,
      0,
      50,
    ]);
    expect(view.date).toMatch(/^\d{8}$/);
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
