import { describe, expect, it } from 'vitest';
import { runmodeState } from './index.ts';

describe('runmodeState', () => {
  it("reads interfaces.md's run and stop, and other products' spellings of them", () => {
    expect(runmodeState('run')).toBe('run');
    expect(runmodeState('stop')).toBe('stop');
    expect(runmodeState(' RUN ')).toBe('run');
    expect(runmodeState('Running')).toBe('run');
    expect(runmodeState('SUSPENDED')).toBe('stop');
    expect(runmodeState('Paused')).toBe('stop');
  });

  it('tells words it does not know as unknown, never as stopped', () => {
    expect(runmodeState('稼働中')).toBe('unknown');
    expect(runmodeState('')).toBe('unknown');
    expect(runmodeState('runner')).toBe('unknown');
  });
});
