import { describe, expect, it } from 'vitest';
import { decodeCapabilities, decodeServices } from './services.ts';

// An answer of GET /mcapi/services as a gateway in front of a whole-day Shift_JIS vendor
// writes it (contract section 12); the e2e specs read the same through a running gateway.
const upstream = {
  id: 'tokai',
  name: 'Tokai',
  label: null,
  color: null,
  embedded: false,
  reachable: true,
  version: '5.2.1',
  checkedAt: '2026-11-22T00:00:01.000Z',
  since: '2026-11-22T00:00:01.000Z',
  message: null,
  timeZone: '',
  utcOffsetMinutes: 540,
  zoneName: '',
  capabilities: {
    pagesize: 'ignored',
    index: 'unknown',
    next: 'absent',
    total: 'absent',
    cap: null,
    probedAt: '2026-11-22T00:00:01.500Z',
    probeError: null,
    charset: 'shift_jis',
    charsetFrom: 'content-type',
    setsSessionId: true,
    concurrency: 4,
    concurrencyLimit: null,
    largestAnswerBytes: 7_654_321,
    compressed: false,
    datesZone: null,
    zoneFrom: 'none',
    pollSeconds: 2.5,
    lastRoundMs: 812,
  },
};

describe('decodeServices', () => {
  it('reads an upstream’s capabilities, nulls as unknown', () => {
    const [service] = decodeServices({ services: [upstream] });
    expect(service?.capabilities).toEqual({
      pagesize: 'ignored',
      index: 'unknown',
      next: 'absent',
      total: 'absent',
      cap: undefined,
      probedAt: '2026-11-22T00:00:01.500Z',
      probeError: '',
      probeErrorCode: undefined,
      probeErrorCause: undefined,
      charset: 'shift_jis',
      charsetFrom: 'content-type',
      setsSessionId: true,
      concurrency: 4,
      concurrencyLimit: undefined,
      largestAnswerBytes: 7_654_321,
      compressed: false,
      datesZone: '',
      zoneFrom: 'none',
      pollSeconds: 2.5,
      lastRoundMs: 812,
    });
  });

  it('gives the embedded service none, and an upstream not yet heard from none either', () => {
    const services = decodeServices({
      services: [
        { ...upstream, id: 'local', embedded: true, capabilities: upstream.capabilities },
        { ...upstream, id: 'new', capabilities: undefined },
      ],
    });
    expect(services.map((s) => s.capabilities)).toEqual([undefined, undefined]);
  });

  it('reads why it is unreachable in data: a cause it knows, else none (its message is words)', () => {
    const down = {
      ...upstream,
      reachable: false,
      message: 'Service Tokai did not answer within 3 s.',
      code: 5004,
      cause: { kind: 'timeout', seconds: 3 },
      indexError: 'Service Tokai failed (HTTP 500): DB down',
      indexErrorCode: 5002,
      indexErrorCause: { kind: 'failed', httpStatus: 500, words: 'DB down' },
    };
    const [service, unknown, torn, said] = decodeServices({
      services: [
        down,
        { ...down, id: 'b', cause: { kind: 'solarFlare' } },
        { ...down, id: 'c', cause: { kind: 'timeout', seconds: '3' }, indexErrorCause: 'x' },
        { ...down, id: 'd', code: 5001, cause: null, indexErrorCode: null },
      ],
    });
    expect(service).toMatchObject({
      code: 5004,
      cause: { kind: 'timeout', seconds: 3 },
      indexErrorCode: 5002,
      indexErrorCause: { kind: 'failed', httpStatus: 500, words: 'DB down' },
    });
    expect(unknown?.cause).toBeUndefined();
    expect([torn?.cause, torn?.indexErrorCause]).toEqual([undefined, undefined]);
    expect(said).toMatchObject({ code: 5001, cause: undefined, indexErrorCode: undefined });
  });
});

describe('decodeCapabilities', () => {
  it('reads a word it does not know, or a value of another type, as unknown', () => {
    const c = decodeCapabilities({
      pagesize: 'sometimes',
      next: 'always -1',
      cap: '500',
      charsetFrom: 'guess',
      zoneFrom: 42,
      setsSessionId: 'yes',
      pollSeconds: Number.NaN,
    });
    expect(c).toMatchObject({
      pagesize: 'unknown',
      next: 'always -1',
      cap: undefined,
      charsetFrom: 'unknown',
      zoneFrom: 'unknown',
      setsSessionId: false,
      pollSeconds: undefined,
    });
    expect(decodeCapabilities(null)).toBeUndefined();
    expect(decodeCapabilities(['ignored'])).toBeUndefined();
  });
});
