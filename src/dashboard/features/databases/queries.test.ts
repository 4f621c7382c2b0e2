import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { databaseKeys, rowCountOf, tableChangeKeys } from './queries.ts';

// auth.ts reads the browser's storage as it loads; the keys need none of it.
vi.mock('../../core/auth.ts', () => ({ useClients: () => ({}) }));

const cached = [
  databaseKeys.tableList('action', 0),
  databaseKeys.tableList('action', 50),
  databaseKeys.page('action', 'ORDERS', 0, 100),
  databaseKeys.count('action', 'ORDERS'),
  databaseKeys.page('action', 'CUSTOMERS', 0, 100),
  databaseKeys.count('action', 'CUSTOMERS'),
  databaseKeys.tableList('status', 0),
  databaseKeys.count('status', 'ORDERS'),
];

async function invalidatedBy(keys: readonly QueryKey[]): Promise<QueryKey[]> {
  const client = new QueryClient();
  for (const key of cached) client.setQueryData(key, 'cached');
  await Promise.all(keys.map((queryKey) => client.invalidateQueries({ queryKey })));
  return client
    .getQueryCache()
    .getAll()
    .filter((query) => query.state.isInvalidated)
    .map((query) => query.queryKey);
}

describe('databaseKeys', () => {
  it('nest a table’s pages and count under the table, and the table under its database', () => {
    expect(databaseKeys.page('action', 'ORDERS', 100, 50)).toEqual([
      'databases',
      'action',
      'table',
      'ORDERS',
      'page',
      { index: 100, size: 50 },
    ]);
    expect(databaseKeys.tableList('system', 50)).toEqual([
      'databases',
      'system',
      'tables',
      { index: 50 },
    ]);
  });
});

describe('tableChangeKeys', () => {
  it('after a delete refresh the emptied table’s rows and count, and nothing else', async () => {
    expect(await invalidatedBy(tableChangeKeys('ORDERS', false))).toEqual([
      databaseKeys.page('action', 'ORDERS', 0, 100),
      databaseKeys.count('action', 'ORDERS'),
    ]);
  });

  it('after a drop refresh the action lists and the count, but not the gone table’s rows', async () => {
    expect(await invalidatedBy(tableChangeKeys('ORDERS', true))).toEqual([
      databaseKeys.tableList('action', 0),
      databaseKeys.tableList('action', 50),
      databaseKeys.count('action', 'ORDERS'),
    ]);
  });
});

describe('rowCountOf', () => {
  const page = { index: 0, prev: -1, next: 100, count: 100 };
  it('is exact with a Total, “at least” with a Bound, and unknown with neither', () => {
    expect(rowCountOf({ ...page, total: 1250, bound: undefined })).toEqual({
      count: 1250,
      atLeast: false,
    });
    expect(rowCountOf({ ...page, total: undefined, bound: 1000 })).toEqual({
      count: 1000,
      atLeast: true,
    });
    expect(rowCountOf({ ...page, total: undefined, bound: undefined })).toBeUndefined();
  });

  it('never calls a count exact beside a Bound', () => {
    expect(rowCountOf({ ...page, total: 1000, bound: 1000 })?.atLeast).toBe(true);
  });
});
