import { describe, expect, it } from 'vitest';
import { i18n } from './index.ts';
import {
  formatInstant,
  formatServiceStamp,
  stampInstant,
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
    // The zone's name its dates carry is the service's own word: the stamp as written is exact,
    // an instant moved onto its clock by a guessed offset is not.
    const named = { ...guessed, zoneName: 'JST' };
    expect(formatServiceStamp(stamp, settings({ service: named }))).toBe('2026-11-22 16:00:00 JST');
    expect(formatInstant('2026-11-22T09:00:00Z', settings({ service: named }))).toBe(
      '2026-11-22 16:00:00 JST, estimated',
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

describe('the catalogue in Node (unit tests render components)', () => {
  it('is initialised with English, and loads Japanese when asked', async () => {
    expect(i18n.t('nav.overview')).toBe('Overview');
    expect(i18n.hasResourceBundle('ja', 'common')).toBe(false);
    await i18n.loadLanguages('ja');
    expect(i18n.getFixedT('ja')('nav.overview')).toBe('概要');
  });
});
