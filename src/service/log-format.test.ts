import { describe, expect, it } from 'vitest';
import { prettyLine, prettyStream } from './log-format.ts';

describe('--log-format pretty', () => {
  it('shows an access line as time, level, method, URL, status, duration, user and request id', () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.UTC(2025, 4, 1, 3, 0, 1, 123),
      pid: 1,
      hostname: 'h',
      reqId: 'req-7',
      msg: 'request',
      method: 'GET',
      route: '/mcapi/services',
      url: '/pipelines/mcapi/services',
      status: 200,
      durationMs: 1.4,
      user: 'alice',
      via: 'session',
      ip: '203.0.113.9',
    });
    expect(prettyLine(line)).toBe(
      '2025-05-01T03:00:01.123Z INFO  request GET /pipelines/mcapi/services 200 1.4 ms alice req-7 ip=203.0.113.9\n',
    );
  });

  it('names how an anonymous or keyed caller came when there is no person', () => {
    const base = {
      level: 30,
      time: 0,
      msg: 'request',
      method: 'GET',
      url: '/x',
      status: 401,
      durationMs: 0.2,
    };
    expect(prettyLine(JSON.stringify({ ...base, user: null, via: 'key' }))).toContain(' (key)');
    expect(prettyLine(JSON.stringify({ ...base, user: null, via: null }))).toContain(
      ' (anonymous)',
    );
  });

  it('shows other lines with their fields as name=value and an error with its stack', () => {
    const line = prettyLine(
      JSON.stringify({
        level: 50,
        time: 0,
        msg: 'audit entry not written',
        service: 'prod',
        detail: 'two words',
        err: { type: 'Error', message: 'disk full', stack: 'Error: disk full\n    at x' },
      }),
    );
    expect(line).toMatch(
      /^1970-01-01T00:00:00.000Z ERROR audit entry not written service=prod detail="two words" /,
    );
    expect(line).toContain('\n    Error: disk full\n        at x');
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(prettyLine('plain words')).toBe('plain words\n');
  });

  it('writes each line pino gives it to its output', () => {
    const written: string[] = [];
    const stream = prettyStream({
      write: (text: string) => written.push(text),
    } as unknown as NodeJS.WritableStream);
    stream.write(`${JSON.stringify({ level: 40, time: 0, msg: 'a' })}\n`);
    expect(written).toEqual(['1970-01-01T00:00:00.000Z WARN  a\n']);
  });
});
