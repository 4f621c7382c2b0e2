import { describe, expect, it } from 'vitest';
import type { RequestSummary } from '../../../kit/index.ts';
import { advance, fresh, view, type Shown } from './stable-rows.ts';

const row = (id: string, status = 'Wait'): RequestSummary => ({
  requestId: id,
  pipelineId: 'pl_1',
  name: 'P',
  status,
  stage: 'Sensor',
  beginDate: '2026-11-21 09:00:00',
  begin: null,
});

describe('stable rows of the requests page', () => {
  const empty: Shown = { key: '', ids: [], known: new Map(), from: undefined };

  it('pins the first rows of a view, updates them in place and counts newer ones', () => {
    const first = [row('b'), row('a')];
    let shown = advance(empty, 'v1', first);
    expect(view(shown, 'v1', first)).toEqual({ rows: first, newCount: 0 });
    const refreshed = [row('d'), row('c'), row('b', 'Finish'), row('a', 'Error')];
    shown = advance(shown, 'v1', refreshed);
    const seen = view(shown, 'v1', refreshed);
    expect(seen.rows.map((r) => `${r.requestId}:${r.status}`)).toEqual(['b:Finish', 'a:Error']);
    expect(seen.newCount).toBe(2);
  });

  it('keeps a pinned row that a newer page pushed out, with its last known state', () => {
    let shown = advance(empty, 'v1', [row('b'), row('a')]);
    shown = advance(shown, 'v1', [row('b'), row('a', 'Process')]);
    const pushed = [row('c'), row('b')];
    shown = advance(shown, 'v1', pushed);
    expect(view(shown, 'v1', pushed).rows.map((r) => `${r.requestId}:${r.status}`)).toEqual([
      'b:Wait',
      'a:Process',
    ]);
  });

  it('starts over when the view changes, and shows everything after showNew', () => {
    const shown = advance(advance(empty, 'v1', [row('a')]), 'v2', [row('x'), row('y')]);
    expect(view(shown, 'v2', [row('x'), row('y')]).rows.map((r) => r.requestId)).toEqual([
      'x',
      'y',
    ]);
    expect(view(shown, 'v1', [row('a')])).toEqual({ rows: [], newCount: 0 });
    const all = [row('z'), row('x'), row('y')];
    expect(view(fresh('v2', all), 'v2', all)).toEqual({ rows: all, newCount: 0 });
  });

  it('returns the same state when the rows did not change', () => {
    const rows = [row('a')];
    const shown = advance(empty, 'v1', rows);
    expect(advance(shown, 'v1', rows)).toBe(shown);
  });
});
