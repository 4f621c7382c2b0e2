import { afterEach, describe, expect, it, vi } from 'vitest';
import { i18n } from './index.ts';
import {
  formatInstant,
  formatServiceStamp,
  serviceZoneLabel,
  stampInstant,
  writtenZoneLabel,
  type ServiceZone,
  type TimeSettings,
} from './time-format.ts';

const tokyo = { timeZone: 'Asia/Tokyo', utcOffsetMinutes: undefined, zoneName: 'JST' };
const settings = (over: Partial<TimeSettings> = {}): TimeSettings => ({
  language: 'en',
  choice: 'service',
  clock: 'h23',
  service: tokyo,
  unknownZoneLabel: 'service time',
  estimated: (zone) => `${zone}, estimated`,
  ...over,
});

describe('timestamps with their zone', () => {
  it('reads a service stamp on its own clock with the zone the service writes', () => {
    expect(formatServiceStamp('2026-11-22 09:04:05', settings())).toBe('2026-11-22 09:04:05 JST');
  });

  it('moves a service stamp to UTC and to another clock, across the day boundary', () => {
    expect(formatServiceStamp('2026-11-22 08:04:05', settings({ choice: 'utc' }))).toBe(
      '2026-11-21 23:04:05 UTC',
    );
    expect(stampInstant('2026-11-22 08:04:05', tokyo)?.toISOString()).toBe(
      '2026-11-21T23:04:05.000Z',
    );
  });

  it('keeps a zone known only by its offset (an upstream that told no zone name)', () => {
    const pacific = { timeZone: '', utcOffsetMinutes: -480, zoneName: '' };
    expect(
      formatServiceStamp('2026-11-22 16:00:00', settings({ service: pacific, choice: 'utc' })),
    ).toBe('2026-11-23 00:00:00 UTC');
    expect(formatInstant('2026-11-23T00:00:00Z', settings({ service: pacific }))).toBe(
      '2026-11-22 16:00:00 UTC-08:00',
    );
  });

  it('marks what rests on an offset only estimated, and nothing the service wrote itself', () => {
    const guessed = { timeZone: '', utcOffsetMinutes: 420, utcOffsetEstimated: true, zoneName: '' };
    const stamp = '2026-11-22 16:00:00';
    // On the service's own clock the stamp is as written; only the offset named is a guess.
    expect(formatServiceStamp(stamp, settings({ service: guessed }))).toBe(
      '2026-11-22 16:00:00 UTC+07:00, estimated',
    );
    // On another clock the time itself is moved by the guess.
    expect(formatServiceStamp(stamp, settings({ service: guessed, choice: 'utc' }))).toBe(
      '2026-11-22 09:00:00 UTC, estimated',
    );
    expect(formatInstant('2026-11-22T09:00:00Z', settings({ service: guessed }))).toBe(
      '2026-11-22 16:00:00 UTC+07:00, estimated',
    );
    // Our own instants on UTC need no offset of the service's.
    expect(
      formatInstant('2026-11-22T09:00:00Z', settings({ service: guessed, choice: 'utc' })),
    ).toBe('2026-11-22 09:00:00 UTC');
    // The zone its dates carry is the service's own word: the stamp as written is exact, and
    // its zone written by the one rule (+09:00 as JST); an instant moved onto its clock by a
    // guessed offset is not, and names the offset it was moved by.
    const named = { ...guessed, utcOffsetMinutes: 480, zoneName: '+09:00' };
    expect(formatServiceStamp(stamp, settings({ service: named }))).toBe('2026-11-22 16:00:00 JST');
    expect(formatInstant('2026-11-22T09:00:00Z', settings({ service: named }))).toBe(
      '2026-11-22 17:00:00 UTC+08:00, estimated',
    );
  });

  it('says "service time" rather than pretend a zone nobody told', () => {
    const unknown = { timeZone: '', utcOffsetMinutes: undefined, zoneName: '' };
    expect(
      formatServiceStamp('2026-11-22 16:00:00', settings({ service: unknown, choice: 'utc' })),
    ).toBe('2026-11-22 16:00:00 service time');
  });

  it('writes the 12-hour clock in English and the 24-hour clock in Japanese by default', () => {
    expect(formatServiceStamp('2026-11-22 15:04:05', settings({ clock: 'auto' }))).toBe(
      '2026-11-22 3:04:05 PM JST',
    );
    expect(
      formatServiceStamp('2026-11-22 15:04:05', settings({ clock: 'auto', language: 'ja' })),
    ).toBe('2026-11-22 15:04:05 JST');
  });

  it('leaves what is not a stamp as it is', () => {
    expect(formatServiceStamp('soon', settings())).toBe('soon');
    expect(formatInstant('', settings())).toBe('');
  });
});

// Issue 38: the same +09:00 read "GMT+9" on one service and "JST" on another, as each had
// told its zone (an IANA name, an offset, the abbreviation of its dates) and Intl named it.
describe('one way to write a zone, however a service told it', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** Tokyo's +09:00, told in each of the ways a service may tell its zone. */
  const nineHoursAhead: Record<string, ServiceZone> = {
    // A gateway's upstream whose dates carry JST, its offset inferred from its requests.
    abbreviation: { timeZone: '', utcOffsetMinutes: 540, zoneName: 'JST' },
    // A services file's `zone: Asia/Tokyo`.
    iana: { timeZone: 'Asia/Tokyo', utcOffsetMinutes: 540, zoneName: '' },
    // The embedded service in a process whose TZ is Asia/Tokyo: Intl's en-US name of it.
    embedded: { timeZone: 'Asia/Tokyo', utcOffsetMinutes: 540, zoneName: 'GMT+9' },
    // An upstream whose dates carry an offset, or none.
    offset: { timeZone: '', utcOffsetMinutes: 540, zoneName: '+09:00' },
    offsetOnly: { timeZone: '', utcOffsetMinutes: 540, zoneName: '' },
  };

  it('writes +09:00 as JST on every service, in English and Japanese, on every clock', () => {
    for (const language of ['en', 'ja'])
      for (const [how, service] of Object.entries(nineHoursAhead)) {
        const on = settings({ language, service });
        expect(formatServiceStamp('2026-11-22 19:04:05', on), how).toBe('2026-11-22 19:04:05 JST');
        expect(formatInstant('2026-11-22T10:04:05Z', on), how).toBe('2026-11-22 19:04:05 JST');
        expect(
          serviceZoneLabel(service, new Date(), (z) => `${z}?`),
          how,
        ).toBe('JST');
        expect(
          formatServiceStamp('2026-11-22 19:04:05', settings({ language, service, choice: 'utc' })),
          how,
        ).toBe('2026-11-22 10:04:05 UTC');
      }
  });

  it('names no zone a service did not tell: Asia/Seoul’s +09:00 is UTC+09:00, not JST', () => {
    const seoul: ServiceZone = { timeZone: 'Asia/Seoul', utcOffsetMinutes: 540, zoneName: '' };
    const on = settings({ language: 'en', service: seoul });
    expect(formatServiceStamp('2026-11-22 19:04:05', on)).toBe('2026-11-22 19:04:05 UTC+09:00');
    expect(serviceZoneLabel(seoul, new Date(), (z) => z)).toBe('UTC+09:00');
  });

  it('writes the browser’s clock by the same rule, not by Intl’s name of it', () => {
    vi.stubEnv('TZ', 'Asia/Tokyo');
    const browser = (language: string) =>
      formatInstant('2026-11-22T10:04:05Z', settings({ language, choice: 'browser' }));
    // Intl alone says "GMT+9" in English and "JST" in Japanese for this zone.
    expect(browser('en')).toBe('2026-11-22 19:04:05 JST');
    expect(browser('ja')).toBe('2026-11-22 19:04:05 JST');
    vi.stubEnv('TZ', 'Asia/Kolkata');
    expect(browser('en')).toBe('2026-11-22 15:34:05 UTC+05:30');
    vi.stubEnv('TZ', 'America/New_York');
    // Intl alone says "EST" in English and "GMT-5" in Japanese.
    expect(browser('en')).toBe('2026-11-22 05:04:05 UTC-05:00');
    expect(browser('ja')).toBe('2026-11-22 5:04:05 UTC-05:00');
  });

  it('follows daylight saving time: the offset of the day, not of today', () => {
    const newYork: ServiceZone = {
      timeZone: 'America/New_York',
      utcOffsetMinutes: -240,
      zoneName: 'EDT',
    };
    const on = settings({ service: newYork });
    expect(formatServiceStamp('2026-01-15 09:00:00', on)).toBe('2026-01-15 09:00:00 UTC-05:00');
    expect(formatServiceStamp('2026-07-15 09:00:00', on)).toBe('2026-07-15 09:00:00 UTC-04:00');
    expect(formatInstant('2026-01-15T14:00:00Z', on)).toBe('2026-01-15 09:00:00 UTC-05:00');
    expect(formatInstant('2026-07-15T13:00:00Z', on)).toBe('2026-07-15 09:00:00 UTC-04:00');
    // Across the change (8 March 2026, 2:00 → 3:00): an hour apart on the clock and in UTC.
    expect(stampInstant('2026-03-08 01:30:00', newYork)?.toISOString()).toBe(
      '2026-03-08T06:30:00.000Z',
    );
    expect(formatInstant('2026-03-08T07:30:00Z', on)).toBe('2026-03-08 03:30:00 UTC-04:00');
    // A service told by its offset alone reads the same as its zone, at that offset.
    const winterOffset: ServiceZone = { timeZone: '', utcOffsetMinutes: -300, zoneName: 'EST' };
    expect(formatServiceStamp('2026-01-15 09:00:00', settings({ service: winterOffset }))).toBe(
      '2026-01-15 09:00:00 UTC-05:00',
    );
    // London: UTC in winter, UTC+01:00 in summer.
    const london = settings({
      service: { timeZone: 'Europe/London', utcOffsetMinutes: 0, zoneName: 'GMT' },
    });
    expect(formatServiceStamp('2026-01-15 09:00:00', london)).toBe('2026-01-15 09:00:00 UTC');
    expect(formatServiceStamp('2026-07-15 09:00:00', london)).toBe('2026-07-15 09:00:00 UTC+01:00');
  });

  it('reads the words a service’s dates carry as offsets, and keeps any other as written', () => {
    expect(writtenZoneLabel('JST')).toBe('JST');
    expect(writtenZoneLabel('GMT+9')).toBe('JST');
    expect(writtenZoneLabel('+0900')).toBe('JST');
    expect(writtenZoneLabel('UTC+5:30')).toBe('UTC+05:30');
    expect(writtenZoneLabel('-05:00')).toBe('UTC-05:00');
    expect(writtenZoneLabel('GMT')).toBe('UTC');
    expect(writtenZoneLabel('Z')).toBe('UTC');
    // A word the dashboard cannot read as an offset: the service's own, as written.
    expect(writtenZoneLabel('CEST')).toBe('CEST');
    const unknownOffset: ServiceZone = {
      timeZone: '',
      utcOffsetMinutes: undefined,
      zoneName: 'KST',
    };
    expect(serviceZoneLabel(unknownOffset, new Date(), (z) => z)).toBe('KST');
    expect(
      serviceZoneLabel(
        { timeZone: '', utcOffsetMinutes: 420, utcOffsetEstimated: true, zoneName: '' },
        new Date(),
        (z) => `${z}, estimated`,
      ),
    ).toBe('UTC+07:00, estimated');
  });
});

describe('the catalogue in Node (unit tests render components)', () => {
  it('is initialised with English, and loads Japanese when asked', async () => {
    expect(i18n.t('nav.overview')).toBe('Overview');
    expect(i18n.hasResourceBundle('ja', 'common')).toBe(false);
    await i18n.loadLanguages('ja');
    expect(i18n.getFixedT('ja')('nav.overview')).toBe('概要');
  });
});
