import { DAY_PATTERN } from '../kit/wire.ts';
import { getOrInsertComputed } from './maps.ts';

/** Source of the current time; tests inject a controllable one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to, for tests of expiry. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | number = Date.UTC(2026, 10, 21, 9, 0, 0)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

interface LocalParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  millis: string;
  zone: string;
}

/**
 * Formats instants in the service's time zone (the process's TZ, or the one given).
 * Intl does the zone arithmetic; one formatter is cached per zone because building it is slow.
 */
export class ServiceTime {
  private readonly parts: Intl.DateTimeFormat;
  private readonly zoneName: Intl.DateTimeFormat;

  constructor(readonly timeZone: string = Intl.DateTimeFormat().resolvedOptions().timeZone) {
    this.parts = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    this.zoneName = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'short' });
  }

  private local(date: Date): LocalParts {
    const out: Record<string, string> = {};
    for (const part of this.parts.formatToParts(date)) out[part.type] = part.value;
    const zone =
      this.zoneName.formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? 'UTC';
    return {
      year: out.year ?? '0000',
      month: out.month ?? '00',
      day: out.day ?? '00',
      hour: out.hour ?? '00',
      minute: out.minute ?? '00',
      second: out.second ?? '00',
      millis: String(date.getUTCMilliseconds()).padStart(3, '0'),
      zone,
    };
  }

  private lastDay: { second: number; day: string } = { second: Number.NaN, day: '' };

  /** `yyyymmdd` of the local day. Asked on every request list, so the last second's answer is kept. */
  day(date: Date): string {
    const second = Math.floor(date.getTime() / 1000);
    if (second !== this.lastDay.second) {
      const p = this.local(date);
      this.lastDay = { second, day: `${p.year}${p.month}${p.day}` };
    }
    return this.lastDay.day;
  }

  /** The zone as `GET /mcapi/services` tells it: its name, offset now, and the abbreviation its dates carry. */
  zoneAt(date: Date): {
    timeZone: string;
    utcOffsetMinutes: number;
    utcOffsetEstimated: false;
    zoneName: string;
  } {
    return {
      timeZone: this.timeZone,
      utcOffsetMinutes: offsetAt(this.timeZone, date),
      utcOffsetEstimated: false,
      zoneName: this.local(date).zone,
    };
  }

  /** `hh` of the local hour. */
  hour(date: Date): string {
    return this.local(date).hour;
  }

  /** `YYYY-MM-DDThh:mm:ss.mmm ZZZ`, the pipeline list's date shape. */
  pipelineDate(date: Date): string {
    const p = this.local(date);
    return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${p.millis} ${p.zone}`;
  }

  /** `YYYY-MM-DD hh:mm:ss.mmm`, how timestamps are stored in the databases. */
  stamp(date: Date): string {
    const p = this.local(date);
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}.${p.millis}`;
  }

  /** `yyyymmddhhmmss`, the shape `since` takes (contract section 8). */
  sinceForm(date: Date): string {
    const p = this.local(date);
    return `${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}`;
  }

  /** `hh:mm:ss`, the application log's date shape. */
  clockTime(date: Date): string {
    const p = this.local(date);
    return `${p.hour}:${p.minute}:${p.second}`;
  }

  /** `YYYY/MM/DD hh:mm:ss`, the request log's date shape. */
  logDate(date: Date): string {
    const p = this.local(date);
    return `${p.year}/${p.month}/${p.day} ${p.hour}:${p.minute}:${p.second}`;
  }
}

/** True when Intl knows the zone (an IANA name such as Asia/Tokyo). */
export function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

// Building a formatter is slow and the services list asks on every call: one per zone.
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** Minutes a zone's clock is ahead of UTC at an instant (its daylight saving time included). */
export function offsetAt(timeZone: string, date: Date): number {
  const format = getOrInsertComputed(
    offsetFormats,
    timeZone,
    () => new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }),
  );
  const name = format.formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? '';
  // `GMT+09:00`, `GMT-03:30`, or plain `GMT` for UTC itself.
  const match = /([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** Drops the milliseconds of a stored stamp: `YYYY-MM-DD hh:mm:ss`. */
export function toSeconds(stamp: string | null | undefined): string {
  return stamp ? stamp.slice(0, 19) : '';
}

/** `mm:ss` of a duration, as the spec shows stage times; hours fold into minutes. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  const totalSeconds = Math.round(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  return `${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
}

/** True when `yyyymmdd` names a real calendar day. */
export function isCalendarDay(value: string): boolean {
  if (!DAY_PATTERN.test(value)) return false;
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(4, 6));
  const day = Number(value.slice(6, 8));
  if (year < 1970 || month < 1 || month > 12 || day < 1) return false;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= last;
}
