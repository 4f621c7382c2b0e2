import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import type { PipelineClient, RequestList } from '../../../kit/index.ts';
import { dayRefetchInterval, dayRequestsQuery, OVERVIEW_LIMIT } from './queries.ts';

// auth.ts reads the browser's storage as it loads; the factories need none of it.
vi.mock('../../app/auth.ts', () => ({ useClients: () => ({}) }));

/** A client whose day holds `total` requests, answered in pages as the service does. */
function clientOf(total: number) {
  const asked: number[] = [];
  const client = {
    requestList: ({ index = 0, pageSize = 50 }: { index?: number; pageSize?: number }) => {
      asked.push(index);
      const count = Math.max(0, Math.min(pageSize, total - index));
      const list = {
        requests: Array.from({ length: count }, (_, i) => ({ requestId: `r${index + i}` })),
        info: {
          index,
          count,
          prev: index > 0 ? Math.max(0, index - pageSize) : -1,
          next: index + count < total ? index + count : -1,
          total,
        },
      };
      return Promise.resolve(list as unknown as RequestList);
    },
  };
  return { client: client as unknown as PipelineClient, asked };
}

describe('dayRequestsQuery', () => {
  it('reads a day page by page until the service says there is no next', async () => {
    const { client, asked } = clientOf(2500);
    const day = await new QueryClient().fetchQuery(dayRequestsQuery(client, '20261122', 0));
    expect(asked).toEqual([0, 1000, 2000]);
    expect([day.requests.length, day.total, day.truncated]).toEqual([2500, 2500, false]);
  });

  it('stops at OVERVIEW_LIMIT and says it did', async () => {
    const { client, asked } = clientOf(OVERVIEW_LIMIT + 5000);
    const day = await new QueryClient().fetchQuery(dayRequestsQuery(client, '20261122', 0));
    expect(asked).toHaveLength(OVERVIEW_LIMIT / 1000);
    expect([day.requests.length, day.truncated]).toEqual([OVERVIEW_LIMIT, true]);
  });

  it('sits under the request lists, so whatever refreshes them refreshes it', () => {
    expect(dayRequestsQuery({} as PipelineClient, '20261122', 0).queryKey).toEqual([
      'requests',
      'list',
      'day',
      '20261122',
    ]);
  });
});

describe('dayRefetchInterval', () => {
  it('is off with auto-refresh off and never shorter than 5 s', () => {
    expect(dayRefetchInterval(0)).toBe(false);
    expect(dayRefetchInterval(2)).toBe(5000);
    expect(dayRefetchInterval(60)).toBe(60_000);
  });
});
