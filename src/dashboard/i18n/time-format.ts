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

function zoneNameIn(instant: Date, timeZone: string | undefined, language: string): string {
  const parts = new Intl.DateTimeFormat(language, {
    timeZone,
    timeZoneName: 'short',
  }).formatToParts(instant);
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? '';
}

/** `UTC+09:00` for 540 minutes. */
export function offsetLabel(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
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
    return compose(
      fieldsIn(instant, zone.timeZone),
      settings,
      zone.zoneName || zoneNameIn(instant, zone.timeZone, settings.language),
    );
  }
  if (zone.utcOffsetMinutes === undefined) return undefined;
  const shifted = new Date(instant.getTime() + zone.utcOffsetMinutes * 60_000);
  const label = zone.zoneName || offsetLabel(zone.utcOffsetMinutes);
  return compose(
    fieldsIn(shifted, 'UTC'),
    settings,
    offsetEstimated(zone) ? settings.estimated(label) : label,
  );
}

/** An instant (an ISO string with its zone, as our own server writes) on the chosen clock. */
export function formatInstant(iso: string, settings: TimeSettings): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return iso;
  if (settings.choice === 'service') {
    const shown = onServiceClock(instant, settings);
    if (shown !== undefined) return shown;
  }
  const timeZone = settings.choice === 'utc' ? 'UTC' : undefined;
  return compose(
    fieldsIn(instant, timeZone),
    settings,
    settings.choice === 'utc' ? 'UTC' : zoneNameIn(instant, undefined, settings.language),
  );
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
  // On an offset only estimated: as written on the service's own clock (its zone's name, when
  // its dates carry one, is no estimate), or moved to another clock and marked as estimated.
  if (settings.choice === 'service')
    return compose(
      fields,
      settings,
      zone.zoneName || settings.estimated(offsetLabel(zone.utcOffsetMinutes as number)),
    );
  const timeZone = settings.choice === 'utc' ? 'UTC' : undefined;
  const label = timeZone ?? zoneNameIn(instant, undefined, settings.language);
  return compose(fieldsIn(instant, timeZone), settings, settings.estimated(label));
}
