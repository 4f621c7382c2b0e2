import { describe, expect, it } from 'vitest';
import type { RequestSummary } from '../../../kit/index.ts';
import { failuresOf, summarizeDay } from './summary.ts';

const request = (pipelineId: string, status: string, beginDate: string): RequestSummary => ({
  requestId: `${pipelineId}-20261122_09-000001`,
  pipelineId,
  name: `Name of ${pipelineId}`,
  status,
  stage: 'Joint',
  beginDate,
  begin: null,
});

describe('summarizeDay', () => {
  const summary = summarizeDay([
    request('pl_10', 'Finish', '2026/11/22 09:15:00'),
    request('pl_2', 'Error', '2026/11/22 09:20:00'),
    request('pl_2', 'Finish', '2026/11/22 23:59:59'),
    request('pl_2', 'Finish', ''),
  ]);

  it('counts each pipeline’s requests by status, in pipeline number order', () => {
    expect(summary.byPipeline).toEqual([
      { id: 'pl_2', name: 'Name of pl_2', counts: { Error: 1, Finish: 2 }, total: 3 },
      { id: 'pl_10', name: 'Name of pl_10', counts: { Finish: 1 }, total: 1 },
    ]);
  });

  it('counts requests per hour of their begin, skipping those without one', () => {
    expect(summary.hourly).toHaveLength(24);
    expect(summary.hourly[9]).toBe(2);
    expect(summary.hourly[23]).toBe(1);
    expect(summary.hourly.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('counts failures in the words asked for, from the counts', () => {
    expect(failuresOf(summary.byPipeline, ['Error'])).toBe(1);
    expect(failuresOf(summary.byPipeline, ['Error', 'Finish'])).toBe(4);
    expect(failuresOf(summary.byPipeline, ['Abort'])).toBe(0);
  });
});
