import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import type { PipelineClient, RequestDetail } from '../../../kit/index.ts';
import { isLive, isTerminal, rawDetailQuery, requestDetailQuery } from './queries.ts';

// auth.ts reads the browser's storage as it loads; the factories need none of it.
vi.mock('../../core/auth.ts', () => ({ useClients: () => ({}) }));

const ID = 'pl_1-20261122_09-000001';

/** The detail query's poll interval once the cache holds a request in `status`. */
function intervalAt(status: string, endTime = ''): number | false | undefined {
  const client = new QueryClient();
  const options = requestDetailQuery({} as PipelineClient, ID);
  client.setQueryData(options.queryKey, { status, endTime } as RequestDetail);
  const query = client.getQueryCache().find<RequestDetail>({ queryKey: options.queryKey });
  const interval = options.refetchInterval;
  return typeof interval === 'function' && query ? interval(query) : undefined;
}

describe('requestDetailQuery', () => {
  it('polls while the request can change and stops once it is terminal', () => {
    expect(intervalAt('Process')).toBe(2000);
    expect(intervalAt('Wait')).toBe(2000);
    expect(intervalAt('Finish')).toBe(false);
    expect(intervalAt('Error')).toBe(false);
  });

  it('polls a status word it does not know until the request has an EndTime', () => {
    expect(intervalAt('Running')).toBe(2000);
    expect(intervalAt('Running', '2026-11-22 10:00:00 CET')).toBe(false);
  });

  it('keeps the raw answer under the detail, one entry per format', () => {
    const detail = requestDetailQuery({} as PipelineClient, ID).queryKey;
    const raw = rawDetailQuery({} as PipelineClient, ID, 'json').queryKey;
    expect(raw.slice(0, detail.length)).toEqual([...detail]);
    expect(raw.at(-1)).toBe('json');
  });
});

describe('isTerminal', () => {
  it('knows the statuses that no longer change', () => {
    expect(['Finish', 'Error', 'Stop'].map(isTerminal)).toEqual([true, true, true]);
    expect(['Wait', 'Start', 'Process'].map(isTerminal)).toEqual([false, false, false]);
  });
});

describe('isLive', () => {
  it('is false once EndTime is set, whatever the status word', () => {
    expect(isLive({ status: 'Running', endTime: '' })).toBe(true);
    expect(isLive({ status: 'Running', endTime: '2026-11-22 10:00:00 UTC' })).toBe(false);
    expect(isLive({ status: 'Finish', endTime: '' })).toBe(false);
  });
});
