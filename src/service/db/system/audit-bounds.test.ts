import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundEntry, COMPACT, ENTRY_BYTES, TRUNCATION_NOTE } from './audit-bounds.ts';

// Nothing a request sends can make an audit entry larger than its bound (issue 24, "Bad
// input"): any fields, any parameters, any characters (JSON escapes a control character in
// six bytes), and the entry stays within 4 KB (1 KB for a stranger's refusal), saying
// when it lost anything.

const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ maxLength, unit: 'binary', size: 'max' }),
    fc.string({
      maxLength,
      size: 'max',
      unit: fc.constantFrom('\u0000', '\u001f', '"', '\\', 'é', '😀', 'a'),
    }),
  );

const parameterValue = fc.oneof(
  text(3000),
  fc.array(text(200), { maxLength: 20, size: 'max' }),
  fc.integer(),
  fc.constant(null),
);

const entry = fc.record({
  time: fc.constant('2026-11-22T09:00:00.000Z'),
  day: fc.constant('20261122'),
  userName: fc.option(text(1100)),
  via: fc.constantFrom('session', 'key', 'cookie', 'none') as fc.Arbitrary<
    'session' | 'key' | 'cookie' | 'none'
  >,
  address: fc.constantFrom('127.0.0.1', '2001:db8::1'),
  service: fc.option(text(100)),
  operation: fc.constantFrom('exec', 'mc.login'),
  parameters: fc.dictionary(text(300), parameterValue, { maxKeys: 60, size: 'max' }),
  httpStatus: fc.integer({ min: 100, max: 599 }),
  status: text(100),
  message: text(2000),
  requestId: fc.option(text(300)),
});

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('an audit entry', () => {
  it('is at most 4 KB (1 KB compact) whatever it is given, and marked when it lost anything', () => {
    let truncated = 0;
    fc.assert(
      fc.property(entry, fc.boolean(), (given, compact) => {
        const bounded = boundEntry(given, { compact });
        if (bounded.truncated) truncated += 1;
        expect(bytes(bounded)).toBeLessThanOrEqual(compact ? COMPACT.bytes : ENTRY_BYTES);
        expect(bounded.truncated).toBe(Object.hasOwn(bounded.parameters, TRUNCATION_NOTE));
        // Read back, it stays as it is.
        const again = boundEntry(bounded, { stored: true, compact });
        expect(again).toEqual(bounded);
      }),
      { numRuns: 300 },
    );
    expect(truncated).toBeGreaterThan(100);
  });

  it('halves a field whose every character needs escaping until the entry fits', () => {
    const escaped = '\u0001'.repeat(5000);
    const given = {
      time: '2026-11-22T09:00:00.000Z',
      day: '20261122',
      userName: escaped,
      via: 'none' as const,
      address: '127.0.0.1',
      service: escaped,
      operation: 'mc.login',
      parameters: { [escaped]: escaped },
      httpStatus: 403,
      status: escaped,
      message: escaped,
      requestId: escaped,
    };
    for (const compact of [false, true]) {
      const bounded = boundEntry(given, { compact });
      expect(bytes(bounded)).toBeLessThanOrEqual(compact ? COMPACT.bytes : ENTRY_BYTES);
      expect(bounded.truncated).toBe(true);
      expect(bounded.message.length).toBeLessThanOrEqual(compact ? COMPACT.message : 512);
      // Control characters are kept written out (db/text.ts), within the same bounds.
      expect(bounded.message.startsWith('\\u0001\\u0001')).toBe(true);
      expect(bounded.userName?.startsWith('\\u0001')).toBe(true);
    }
  });

  it('keeps a small entry whole, secrets by name redacted', () => {
    const bounded = boundEntry({
      time: '2026-11-22T09:00:00.000Z',
      day: '20261122',
      userName: 'ada',
      via: 'session',
      address: '127.0.0.1',
      service: 'local',
      operation: 'exec',
      parameters: {
        pipelineid: 'pl_1',
        Args: ['a', 'b'],
        myApiKey: 'k',
        refresh_TOKEN: 't',
        Secret: 's',
        passwd: 'p',
        JSESSIONID: 'j',
      },
      httpStatus: 200,
      status: 'OK',
      message: 'Success',
      requestId: null,
    });
    expect(bounded.truncated).toBe(false);
    expect(bounded.parameters).toEqual({
      pipelineid: 'pl_1',
      Args: 'a,b',
      myApiKey: '[redacted]',
      refresh_TOKEN: '[redacted]',
      Secret: '[redacted]',
      passwd: '[redacted]',
      JSESSIONID: '[redacted]',
    });
  });
});
