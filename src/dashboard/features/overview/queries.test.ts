import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { failuresOf } from './summary.ts';
import {
  HttpError,
  type PipelineClient,
  type RequestList,
  type RequestStats,
} from '../../../kit/index.ts';
import {
  dayCountsQuery,
  dayRefetchInterval,
  latestErrorsQuery,
  OVERVIEW_LIMIT,
} from './queries.ts';

// auth.ts reads the browser's storage as it loads; the factories need none of it.
vi.mock('../../core/auth.ts', () => ({ useClients: () => ({}) }));

const STATS: RequestStats = {
  date: '20261122',
  total: 100_006,
  pipelines: [
    {
      id: 'pl_10',
      name: 'Ten',
      counts: [
        { status: 'Finish', value: 99_960 },
        { status: 'Error', value: 39 },
        { status: 'Running', value: 4 },
      ],
    },
    { id: 'pl_2', name: 'Two', counts: [{ status: 'Wait', value: 3 }] },
    { id: 'pl_3', name: 'Quiet', counts: [] },
  ],
  hours: [
    { hour: 9, counts: [{ status: 'Finish', value: 100_000 }] },
    { hour: 23, counts: [{ status: 'Error', value: 6 }] },
  ],
};

/**
 * A client whose day holds `total` requests, answered in pages as the service does, and
 * whose requeststats answers `stats` or is unknown (a vendor service) when there is none.
 */
function clientOf(total: number, stats?: RequestStats) {
  const asked: string[] = [];
  const client = {
    requestStats: () => {
      asked.push('stats');
      if (stats) return Promise.resolve(stats);
      return Promise.reject(
        new HttpError(404, 'GET', '/pipelineapi/requeststats/json', 1204, 'Unknown API', ''),
      );
    },
    requestList: ({
      index = 0,
      pageSize = 50,
      status,
    }: {
      index?: number;
      pageSize?: number;
      status?: readonly string[];
    }) => {
      asked.push(`list:${index}:${pageSize}${status ? `:${status.join(',')}` : ''}`);
      const count = Math.max(0, Math.min(pageSize, total - index));
      const list = {
        requests: Array.from({ length: count }, (_, i) => ({
          requestId: `r${index + i}`,
          pipelineId: 'pl_1',
          name: 'One',
          status: 'Finish',
          beginDate: '',
        })),
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

describe('dayCountsQuery', () => {
  it('reads the day’s exact counts in one requeststats call, whatever its size', async () => {
    const { client, asked } = clientOf(100_006, STATS);
    const day = await new QueryClient().fetchQuery(dayCountsQuery(client, '20261122', 0));
    expect(asked).toEqual(['stats']);
    expect([day.exact, day.total, failuresOf(day.byPipeline, ['Error'])]).toEqual([
      true,
      100_006,
      39,
    ]);
    // In pipeline number order, without the pipeline that had no request that day.
    expect(day.byPipeline.map((p) => [p.id, p.total])).toEqual([
      ['pl_2', 3],
      ['pl_10', 100_003],
    ]);
    expect(day.byPipeline[1]?.counts).toEqual({ Finish: 99_960, Error: 39, Running: 4 });
    expect([day.hourly[9], day.hourly[23], day.hourly.length]).toEqual([100_000, 6, 24]);
  });

  it('reads a service without requeststats page by page, up to OVERVIEW_LIMIT, and says so', async () => {
    const { client, asked } = clientOf(OVERVIEW_LIMIT + 5000);
    const day = await new QueryClient().fetchQuery(dayCountsQuery(client, '20261122', 0));
    expect(asked[0]).toBe('stats');
    expect(asked.slice(1)).toHaveLength(OVERVIEW_LIMIT / 1000);
    expect([day.exact, day.counted, day.total]).toEqual([
      false,
      OVERVIEW_LIMIT,
      OVERVIEW_LIMIT + 5000,
    ]);
  });

  it('sits under the request lists, so whatever refreshes them refreshes it', () => {
    expect(dayCountsQuery({} as PipelineClient, '20261122', 0).queryKey).toEqual([
      'requests',
      'list',
      'stats',
      '20261122',
    ]);
  });
});

describe('latestErrorsQuery', () => {
  it('asks the service for the newest errors only, and nothing on a day without', async () => {
    const { client, asked } = clientOf(100, STATS);
    await new QueryClient().fetchQuery(latestErrorsQuery(client, '20261122', 39, ['Error']));
    expect(asked).toEqual(['list:0:5:Error']);
    const none = clientOf(100, STATS);
    expect(
      await new QueryClient().fetchQuery(latestErrorsQuery(none.client, '20261122', 0, ['Error'])),
    ).toEqual([]);
    expect(none.asked).toEqual([]);
  });

  it('is keyed by the count of errors, so a changed count reads it again', () => {
    const key = (n: number, failed = ['Error']) =>
      latestErrorsQuery({} as PipelineClient, '20261122', n, failed).queryKey;
    expect(key(3)).not.toEqual(key(4));
    // A vendor's failed words told later read the list again, in those words.
    expect(key(3)).not.toEqual(key(3, ['Error', 'Abort']));
  });
});

describe('dayRefetchInterval', () => {
  it('is off with auto-refresh off and never shorter than 5 s', () => {
    expect(dayRefetchInterval(0)).toBe(false);
    expect(dayRefetchInterval(2)).toBe(5000);
    expect(dayRefetchInterval(60)).toBe(60_000);
  });
});
