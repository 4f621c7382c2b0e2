import { describe, expect, it } from 'vitest';
import { attemptTime } from './attempt-time.ts';

// The vendor's requestdetail said BeginTime 08:19:18 and EndTime 08:20:46 (JST); the gateway
// first saw the request at 09:04:25 JST (issue 38).
const SEEN = '2026-11-21T00:04:25.000Z';
const vendor = {
  startedAt: SEEN,
  endedAt: SEEN,
  beginTime: '2026-11-21 08:19:18',
  endTime: '2026-11-21 08:20:46',
  observed: true,
};

describe('attemptTime', () => {
  it('shows a vendor’s own times, not when the gateway saw them', () => {
    expect(attemptTime(vendor, 'begin')).toEqual({ kind: 'stated', stamp: vendor.beginTime });
    expect(attemptTime(vendor, 'end')).toEqual({ kind: 'stated', stamp: vendor.endTime });
  });

  it('falls back to the gateway’s sighting, marked as one, only where the vendor states none', () => {
    const silent = { ...vendor, beginTime: '', endTime: ' ' };
    expect(attemptTime(silent, 'begin')).toEqual({ kind: 'seen', iso: SEEN });
    expect(attemptTime(silent, 'end')).toEqual({ kind: 'seen', iso: SEEN });
    expect(attemptTime({ ...silent, startedAt: null }, 'begin')).toEqual({ kind: 'unknown' });
  });

  it('says an attempt begun and not ended is running', () => {
    const running = { ...vendor, endedAt: null, endTime: '' };
    expect(attemptTime(running, 'end')).toEqual({ kind: 'running' });
    expect(attemptTime(running, 'begin')).toEqual({ kind: 'stated', stamp: vendor.beginTime });
  });

  it('keeps the embedded service’s own record as it was', () => {
    const embedded = { ...vendor, observed: false };
    expect(attemptTime(embedded, 'begin')).toEqual({ kind: 'recorded', iso: SEEN });
    expect(attemptTime(embedded, 'end')).toEqual({ kind: 'recorded', iso: SEEN });
    expect(attemptTime({ ...embedded, endedAt: null }, 'end')).toEqual({ kind: 'running' });
    // A request from before attempts were kept: its row's stamps are not shown as its own.
    const older = { ...embedded, startedAt: null, endedAt: null };
    expect(attemptTime(older, 'begin')).toEqual({ kind: 'unknown' });
    expect(attemptTime(older, 'end')).toEqual({ kind: 'unknown' });
  });
});
