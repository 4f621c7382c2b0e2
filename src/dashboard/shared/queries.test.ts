import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import type { PipelineClient } from '../../kit/index.ts';
import { pipelineKeys, requestKeys, serviceKeys, versionQuery } from './queries.ts';

// auth.ts reads the browser's storage as it loads; the keys and factories need none of it.
vi.mock('../core/auth.ts', () => ({ useClients: () => ({}) }));

/** The keys a prefix invalidates, out of a cache holding every one of `keys`. */
async function invalidated(keys: readonly QueryKey[], prefix: QueryKey): Promise<QueryKey[]> {
  const client = new QueryClient();
  for (const key of keys) client.setQueryData(key, 'cached');
  await client.invalidateQueries({ queryKey: prefix });
  return client
    .getQueryCache()
    .getAll()
    .filter((query) => query.state.isInvalidated)
    .map((query) => query.queryKey);
}

const list = requestKeys.list({
  date: '20261122',
  id: undefined,
  index: 0,
  size: 50,
  status: [],
  q: undefined,
});
const day = requestKeys.day('20261122');
const detail = requestKeys.detail('pl_1-20261122_09-000001');
const raw = requestKeys.raw('pl_1-20261122_09-000001', 'xml');
const message = requestKeys.errorMessage('pl_1-20261122_09-000001');
const other = requestKeys.detail('pl_1-20261122_09-000002');
const everything = [
  list,
  day,
  detail,
  raw,
  message,
  other,
  pipelineKeys.list(),
  serviceKeys.version(),
];

describe('request keys', () => {
  it('are hierarchical: a list holds its date, pipeline, index, size and filters', () => {
    expect(list).toEqual([
      'requests',
      'list',
      { date: '20261122', id: undefined, index: 0, size: 50, status: [], q: undefined },
    ]);
  });

  it('refresh every list, the requests page’s and the overview’s day, through lists()', async () => {
    expect(await invalidated(everything, requestKeys.lists())).toEqual([list, day]);
  });

  it('refresh a request’s detail with its raw answer and error message, and no other', async () => {
    expect(await invalidated(everything, detail)).toEqual([detail, raw, message]);
  });
});

describe('shared query options', () => {
  it('ask for the version once under one key, for the shell and the settings alike', () => {
    const options = versionQuery({} as PipelineClient);
    expect(options.queryKey).toEqual(['service', 'version']);
    expect(options.staleTime).toBe(60_000);
  });
});
