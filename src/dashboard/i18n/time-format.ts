import { TZDate } from '@date-fns/tz';

/** Whose clock timestamps are shown on: the service's (its own day), the browser's, or UTC. */
export type ZoneChoice = 'service' | 'browser' | 'utc';
/** `auto` follows the language (24-hour in Japanese, 12-hour in English). */
export type ClockChoice = 'auto' | 'h23' | 'h12';

/** What the dashboard knows of a service's clock (see ServiceInfo). */
export interface ServiceZone {
  readonly timeZone: string;
  readonly utcOffsetMinutes: number | undefined;
  /** The offset is a gateway's first guess (ServiceInfo): what depends on it says so. */
  readonly utcOffsetEstimated?: boolean | undefined;
  readonly zoneName: string;
}

export interface TimeSettings {
  readonly language: string;
  readonly choice: ZoneChoice;
  readonly clock: ClockChoice;
  readonly service: ServiceZone;
  /** Said after a service time whose zone nobody told us, e.g. "service time". */
  readonly unknownZoneLabel: string;
  /** A zone's label marked as resting on an estimated offset, e.g. "UTC+09:00, estimated". */
  readonly estimated: (zoneLabel: string) => string;
}

const STAMP = /^(\d{4})[-/]?(\d{2})[-/]?(\d{2})[ T]?(\d{2}):?(\d{2}):?(\d{2})/;

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** A service's own wall-clock stamp (`YYYY-MM-DD hh:mm:ss` and its kin) as fields, or undefined. */
function stampFields(stamp: string): Fields | undefined {
  const m = STAMP.exec(stamp.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { year, month, day, hour, minute, second };
}

function validZone(timeZone: string): boolean {
  if (!timeZone) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The instant a service's wall-clock stamp stands for, when the service's zone is known. */
export function stampInstant(stamp: string, zone: ServiceZone): Date | undefined {
  const f = stampFields(stamp);
  if (!f) return undefined;
  if (validZone(zone.timeZone)) {
    const local = new TZDate(f.year, f.month - 1, f.day, f.hour, f.minute, f.second, zone.timeZone);
    return new Date(local.getTime());
  }
  if (zone.utcOffsetMinutes === undefined) return undefined;
  const asUtc = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second);
  return new Date(asUtc - zone.utcOffsetMinutes * 60_000);
}

function hourCycle(settings: TimeSettings): 'h23' | 'h12' {
  if (settings.clock !== 'auto') return settings.clock;
  const cycle = new Intl.DateTimeFormat(settings.language, { hour: 'numeric' }).resolvedOptions()
    .hourCycle;
  return cycle === 'h11' || cycle === 'h12' ? 'h12' : 'h23';
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Date as YYYY-MM-DD in every language (unambiguous for people on several continents), the
 * time in the language's words on the chosen clock, then the zone: `2026-11-22 15:04:05 JST`.
 */
function compose(f: Fields, settings: TimeSettings, zoneLabel: string): string {
  const time = new Intl.DateTimeFormat(settings.language, {
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: hourCycle(settings),
    timeZone: 'UTC',
  }).format(new Date(Date.UTC(2000, 0, 1, f.hour, f.minute, f.second)));
  return `${f.year}-${pad(f.month)}-${pad(f.day)} ${time} ${zoneLabel}`;
}

function fieldsIn(instant: Date, timeZone: string | undefined): Fields {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const get = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((p) => p.type === type)?.value ?? 0);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
}

/**
 * Minutes a zone's clock is ahead of UTC at an instant (daylight saving time included), from
 * the instant's fields on that clock (fieldsIn's, asked once for both).
 */
function offsetOf(instant: Date, f: Fields): number {
  const wall = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second);
  return Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/** `UTC+09:00` for 540 minutes. */
export function offsetLabel(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * The offsets one abbreviation names for every reader of the dashboard, in English and in
 * Japanese alike. No other: an offset alone cannot tell EST from CDT (both -05:00 at some time
 * of the year) nor CET from BST, and a service told by its offset must read as one told by
 * its zone's name. JST only where nothing says the clock is another country's: a service
 * told Asia/Seoul reads UTC+09:00, never a zone it did not name.
 */
const ABBREVIATIONS: ReadonlyMap<number, string> = new Map([
  [0, 'UTC'],
  [540, 'JST'],
]);

/**
 * The one way every page writes a zone (issue 38): by its offset at that moment, so that the
 * same +09:00 reads the same whether a service told its zone by an IANA name, an offset or the
 * abbreviation of its dates: `JST` and `UTC` for the offsets of ABBREVIATIONS, else
 * `UTC±hh:mm`. Daylight saving time shows as the offset it moves to (New York: UTC-05:00 in
 * January, UTC-04:00 in July). Intl's own names are never used: they differ by language and
 * by zone for the same offset ("GMT+9" in English, "JST" in Japanese, for Asia/Tokyo alone).
 */
export function zoneLabelOf(minutes: number, timeZone?: string): string {
  const named = ABBREVIATIONS.get(minutes);
  if (named === undefined) return offsetLabel(minutes);
  const only = ZONES_OF_ABBREVIATION.get(named);
  return timeZone === undefined || only === undefined || only.has(timeZone)
    ? named
    : offsetLabel(minutes);
}

/**
 * The IANA zones an abbreviation names, where it is one country's: another zone of the same
 * offset is not it. `UTC` is an offset's name (UTC+00:00), whichever zone is at it.
 */
const ZONES_OF_ABBREVIATION: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['JST', new Set(['Asia/Tokyo', 'Japan'])],
]);

const WRITTEN_OFFSET = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/i;

/**
 * The zone a service's own dates carry (`JST`, `+09:00`, `GMT+9`), written by the same rule
 * when it names an offset the dashboard can read; any other word as the service wrote it.
 */
export function writtenZoneLabel(word: string): string {
  const trimmed = word.trim();
  if (/^(?:UTC|GMT|Z)$/i.test(trimmed)) return zoneLabelOf(0);
  const offset = WRITTEN_OFFSET.exec(trimmed);
  if (offset) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3] ?? 0);
    return zoneLabelOf(offset[1] === '-' ? -minutes : minutes);
  }
  for (const [minutes, abbreviation] of ABBREVIATIONS)
    if (abbreviation === trimmed.toUpperCase()) return zoneLabelOf(minutes);
  return trimmed;
}

/**
 * A service's zone as the rule writes it at an instant (now, for "today" of the service), or
 * '' when nothing tells it; `estimated` marks an offset only a gateway's first guess tells.
 */
export function serviceZoneLabel(
  zone: ServiceZone,
  at: Date,
  estimated: (label: string) => string,
): string {
  if (validZone(zone.timeZone))
    return zoneLabelOf(offsetOf(at, fieldsIn(at, zone.timeZone)), zone.timeZone);
  if (zone.utcOffsetMinutes !== undefined) {
    const label = zoneLabelOf(zone.utcOffsetMinutes);
    return zone.utcOffsetEstimated ? estimated(label) : label;
  }
  return zone.zoneName ? writtenZoneLabel(zone.zoneName) : '';
}

/** Whether times of this service shown on another clock rest on an offset only estimated. */
function offsetEstimated(zone: ServiceZone): boolean {
  return (
    !validZone(zone.timeZone) &&
    zone.utcOffsetMinutes !== undefined &&
    zone.utcOffsetEstimated === true
  );
}

/** How an instant reads on the service's clock, when its zone is known. */
function onServiceClock(instant: Date, settings: TimeSettings): string | undefined {
  const zone = settings.service;
  if (validZone(zone.timeZone)) {
    const fields = fieldsIn(instant, zone.timeZone);
    return compose(fields, settings, zoneLabelOf(offsetOf(instant, fields), zone.timeZone));
  }
  if (zone.utcOffsetMinutes === undefined) return undefined;
  const shifted = new Date(instant.getTime() + zone.utcOffsetMinutes * 60_000);
  return compose(
    fieldsIn(shifted, 'UTC'),
    settings,
    serviceZoneLabel(zone, instant, settings.estimated),
  );
}

/** An instant on the browser's clock or on UTC (`choice`), its zone named by the one rule. */
function onOtherClock(instant: Date, settings: TimeSettings): { fields: Fields; zone: string } {
  const timeZone = settings.choice === 'utc' ? 'UTC' : undefined;
  const fields = fieldsIn(instant, timeZone);
  const named = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return { fields, zone: zoneLabelOf(offsetOf(instant, fields), named) };
}

/** An instant (an ISO string with its zone, as our own server writes) on the chosen clock. */
export function formatInstant(iso: string, settings: TimeSettings): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return iso;
  if (settings.choice === 'service') {
    const shown = onServiceClock(instant, settings);
    if (shown !== undefined) return shown;
  }
  const other = onOtherClock(instant, settings);
  return compose(other.fields, settings, other.zone);
}

/**
 * A stamp the service wrote on its own wall clock, with no zone (BeginTime, EndTime, …),
 * on the chosen clock. Where the service's zone is unknown it can only be shown as written,
 * and says so rather than pretend to be the browser's or UTC.
 */
export function formatServiceStamp(stamp: string, settings: TimeSettings): string {
  const fields = stampFields(stamp);
  if (!fields) return stamp;
  const zone = settings.service;
  const instant = stampInstant(stamp, zone);
  if (!instant) return compose(fields, settings, settings.unknownZoneLabel);
  if (!offsetEstimated(zone)) return formatInstant(instant.toISOString(), settings);
  // On an offset only estimated: as written on the service's own clock (the zone its dates
  // carry, when they carry one, is no estimate), or moved to another clock and marked so.
  if (settings.choice === 'service')
    return compose(
      fields,
      settings,
      zone.zoneName
        ? writtenZoneLabel(zone.zoneName)
        : serviceZoneLabel(zone, instant, settings.estimated),
    );
  const other = onOtherClock(instant, settings);
  return compose(other.fields, settings, settings.estimated(other.zone));
}
