import { describe, expect, it } from 'vitest';
import { autoRefresh, chosenInterval, POLL_MS } from './auto-refresh.ts';

describe('chosenInterval', () => {
  it('is off at 0 and in milliseconds otherwise, never below its floor', () => {
    expect(chosenInterval(0)).toBe(false);
    expect(chosenInterval(2)).toBe(2000);
    expect(chosenInterval(2, 5)).toBe(5000);
    expect(chosenInterval(60, 5)).toBe(60_000);
  });
});

describe('autoRefresh', () => {
  it('polls a fixed interval only in a visible tab unless asked', () => {
    expect(autoRefresh(POLL_MS.services)).toEqual({
      refetchInterval: 10_000,
      refetchIntervalInBackground: false,
    });
    expect(autoRefresh(false, { inBackground: true })).toEqual({
      refetchInterval: false,
      refetchIntervalInBackground: true,
    });
  });

  it('reads an interval from the data as last fetched', () => {
    const { refetchInterval } = autoRefresh<{ done: boolean }>((data) =>
      data?.done ? false : 2000,
    );
    expect(refetchInterval({ state: { data: undefined } })).toBe(2000);
    expect(refetchInterval({ state: { data: { done: false } } })).toBe(2000);
    expect(refetchInterval({ state: { data: { done: true } } })).toBe(false);
  });
});
