import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { databaseKeys, tableChangeKeys } from './queries.ts';

// auth.ts reads the browser's storage as it loads; the keys need none of it.
vi.mock('../../app/auth.ts', () => ({ useClients: () => ({}) }));

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
