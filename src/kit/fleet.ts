// The fleet view and the trends of the server's own Part A extensions (`GET /mcapi/fleet`,
// `GET /mcapi/trends`): their wire types, liberal decoders (a field missing or of another
// type reads as unknown, never as a made-up value) and the one rule of a "jump", which
// the server applies and the dashboard states.

import { fieldsOf, numberOf, type Unread } from './liberal.ts';
import type { ServiceAnswer, ServiceInfo } from './services.ts';
import { decodeUpstreamCause } from './upstream-failure.ts';

/** How a status word reads across services: its class by that service's own words. */
export const FLEET_CLASSES = ['failed', 'running', 'waiting', 'done', 'other'] as const;
export type FleetClass = (typeof FLEET_CLASSES)[number];

/** A day's requests per class, and all of them. */
export type FleetCounts = Readonly<Record<FleetClass | 'total', number>>;

/** A status word of a day, its class and its count. */
export interface FleetWord {
  readonly status: string;
  readonly class: FleetClass;
  readonly count: number;
}

/** Today against the median of the days before, when it jumps (see JUMP_RULES). */
export interface FleetJump {
  readonly pipelineId: string;
  readonly name: string;
  readonly kind: 'failureRate' | 'p95';
  /** Today's failure rate (0..1) or p95 (ms). */
  readonly today: number;
  /** The median of the days before, in the same unit. */
  readonly median: number;
}

/**
 * Whether a service's today is counted whole: `complete` (exact), `missed` (the index could
 * not list the whole day: the counts are a lower bound), `unwatched` (no round yet), `live`
 * (the embedded service: its own status database).
 */
export type FleetDayState = 'complete' | 'missed' | 'unwatched' | 'live';

/**
 * The fields of a service's entry in `GET /mcapi/services` that the fleet repeats: who and
 * where it is and how its last check went.
 */
type ServiceFacts =
  | 'id'
  | 'name'
  | 'label'
  | 'color'
  | 'embedded'
  | 'reachable'
  | 'since'
  | 'message'
  | 'code'
  | 'cause'
  | 'timeZone'
  | 'utcOffsetMinutes'
  | 'utcOffsetEstimated'
  | 'zoneName';

/** How the last round of a service's request index went (the embedded one has none). */
type IndexRound = 'indexedAt' | 'indexError' | 'indexErrorCode' | 'indexErrorCause';

/**
 * One service of `GET /mcapi/fleet` as the server writes it (null: not known): its facts as
 * the services list writes them, the caller's role there, and its day.
 */
export interface FleetServiceAnswer
  extends
    Pick<ServiceAnswer, ServiceFacts | 'role'>,
    // Optional in the services list (the embedded service leaves them out); always written here.
    Required<Pick<ServiceAnswer, IndexRound>> {
  /** The service's own today (yyyymmdd), null while unknown. */
  readonly day: string | null;
  readonly dayState: FleetDayState;
  readonly counts: FleetCounts;
  readonly words: readonly FleetWord[];
  readonly jumps: readonly FleetJump[];
}

/** The data of `GET /mcapi/fleet` as the server writes it. */
export interface FleetAnswer {
  /** When the answer was made (ISO). */
  readonly generatedAt: string;
  readonly services: readonly FleetServiceAnswer[];
}

/**
 * One service of the fleet, as the caller may see it: read as the services list is (texts ''
 * and numbers undefined when unknown; the index's time '' for the embedded service, always
 * current), with its day.
 */
export interface FleetService
  extends
    Pick<ServiceInfo, ServiceFacts | IndexRound>,
    Pick<FleetServiceAnswer, 'dayState' | 'counts' | 'words' | 'jumps'> {
  /** The caller's role there (a word this kit does not know passes as it is). */
  readonly role: string;
  /** The service's own today (yyyymmdd), '' while unknown. */
  readonly day: string;
}

/** The data of `GET /mcapi/fleet` as a client reads it. */
export interface Fleet extends Omit<FleetAnswer, 'services'> {
  readonly services: readonly FleetService[];
}

/** One day of a pipeline's trend. */
export interface TrendPoint {
  readonly day: string;
  /** False for a day before the gateway's index watched the service: nothing is known. */
  readonly watched: boolean;
  readonly counts: FleetCounts;
  /** Failed among the ended (failed + done), 0..1; null without an ended request. */
  readonly failureRate: number | null;
  /** Durations known (ended requests whose begin and end are both known). */
  readonly durations: number;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
}

export interface Trends {
  readonly service: string;
  readonly pipelineId: string;
  readonly name: string;
  /** Days asked for; `points` holds as many, oldest first, the service's today last. */
  readonly days: number;
  readonly today: string;
  readonly timeZone: string;
  readonly utcOffsetMinutes: number | undefined;
  /** Whether that offset is only an estimate (see ServiceAnswer). */
  readonly utcOffsetEstimated: boolean;
  readonly zoneName: string;
  readonly points: readonly TrendPoint[];
  /** The medians of the days before today, null with fewer than JUMP_RULES.minDays. */
  readonly baseline: { readonly failureRate: number | null; readonly p95Ms: number | null };
  readonly jumps: { readonly failureRate: boolean; readonly p95: boolean };
}

/** The data of `GET /mcapi/trends` as the server writes it (`today` null while unknown). */
export type TrendsAnswer = Omit<Trends, 'today' | 'utcOffsetMinutes'> & {
  readonly today: string | null;
  readonly utcOffsetMinutes: number | null;
};

/**
 * When today "jumps", stated on screen as it is applied: today's failure rate is at least
 * `factor` times the median of the days before and at least `points` percentage points
 * above it; or today's p95 is at least `factor` times the median of the days' p95s. Today
 * needs `minToday` ended requests (or durations) and the days before `minDays` days with
 * any, so that one request or one day does not make a jump.
 */
export const JUMP_RULES = { factor: 2, points: 5, minToday: 5, minDays: 3 } as const;

/** The median (the mean of the middle two of an even count), or null of nothing. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The baseline of a trend (the days before its last) and whether its last day jumps.
 *
 * @example
 * const { jumps } = trendJumps(points);
 * if (jumps.failureRate) console.log('failure rate jumped today');
 */
export function trendJumps(points: readonly TrendPoint[]): Pick<Trends, 'baseline' | 'jumps'> {
  const today = points.at(-1);
  const before = points.slice(0, -1).filter((p) => p.watched);
  const rates = before.flatMap((p) => (p.failureRate === null ? [] : [p.failureRate]));
  const p95s = before.flatMap((p) => (p.p95Ms === null ? [] : [p.p95Ms]));
  const rate = rates.length >= JUMP_RULES.minDays ? median(rates) : null;
  const p95 = p95s.length >= JUMP_RULES.minDays ? median(p95s) : null;
  const ended = today ? today.counts.failed + today.counts.done : 0;
  return {
    baseline: { failureRate: rate, p95Ms: p95 },
    jumps: {
      failureRate:
        today?.failureRate != null &&
        rate !== null &&
        ended >= JUMP_RULES.minToday &&
        today.failureRate >= JUMP_RULES.factor * rate &&
        today.failureRate - rate >= JUMP_RULES.points / 100,
      p95:
        today?.p95Ms != null &&
        p95 !== null &&
        today.durations >= JUMP_RULES.minToday &&
        today.p95Ms > p95 &&
        today.p95Ms >= JUMP_RULES.factor * p95,
    },
  };
}

// liberal.ts's readers where they agree; where they do not, the fleet's own: a list that is
// no list reads as none rather than a ParseError, and a text field holding an object as String().
const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
const count = (v: unknown): number => numberOf(v) ?? 0;
const nullableNum = (v: unknown): number | null => numberOf(v) ?? null;
const obj = <T>(v: unknown): Unread<T> => fieldsOf<T>(v) ?? {};
const list = <T>(v: unknown): Unread<T>[] => (Array.isArray(v) ? v.map((o) => obj<T>(o)) : []);
const oneOf = <T extends string>(v: unknown, values: readonly T[], fallback: T): T =>
  values.find((value) => value === v) ?? fallback;

function decodeCounts(v: unknown): FleetCounts {
  const c = obj<FleetCounts>(v);
  return {
    failed: count(c.failed),
    running: count(c.running),
    waiting: count(c.waiting),
    done: count(c.done),
    other: count(c.other),
    total: count(c.total),
  };
}

function decodeWord(w: Unread<FleetWord>): FleetWord {
  return {
    status: str(w.status),
    class: oneOf(w.class, FLEET_CLASSES, 'other'),
    count: count(w.count),
  };
}

/** `GET /mcapi/fleet`'s `data`, decoded liberally. */
export function decodeFleet(answer: Readonly<Record<string, unknown>>): Fleet {
  const data = answer as Unread<FleetAnswer>;
  return {
    generatedAt: str(data.generatedAt),
    services: list<FleetServiceAnswer>(data.services).flatMap((s) => {
      const id = str(s.id);
      if (!id) return [];
      return [
        {
          id,
          name: str(s.name) || id,
          label: str(s.label),
          color: str(s.color),
          embedded: s.embedded === true,
          role: str(s.role),
          reachable: s.reachable !== false,
          since: str(s.since),
          message: str(s.message),
          code: numberOf(s.code),
          cause: decodeUpstreamCause(s.cause),
          timeZone: str(s.timeZone),
          utcOffsetMinutes: numberOf(s.utcOffsetMinutes),
          utcOffsetEstimated: s.utcOffsetEstimated === true,
          zoneName: str(s.zoneName),
          day: str(s.day),
          dayState: oneOf(s.dayState, ['complete', 'missed', 'unwatched', 'live'], 'unwatched'),
          indexedAt: str(s.indexedAt),
          indexError: str(s.indexError),
          indexErrorCode: numberOf(s.indexErrorCode),
          indexErrorCause: decodeUpstreamCause(s.indexErrorCause),
          counts: decodeCounts(s.counts),
          words: list<FleetWord>(s.words).map(decodeWord),
          jumps: list<FleetJump>(s.jumps).map((j) => ({
            pipelineId: str(j.pipelineId),
            name: str(j.name),
            kind: oneOf(j.kind, ['failureRate', 'p95'] as const, 'failureRate'),
            today: count(j.today),
            median: count(j.median),
          })),
        },
      ];
    }),
  };
}

/** `GET /mcapi/trends`'s `data`, decoded liberally. */
export function decodeTrends(answer: Readonly<Record<string, unknown>>): Trends {
  const data = answer as Unread<TrendsAnswer>;
  const baseline = obj<Trends['baseline']>(data.baseline);
  const jumps = obj<Trends['jumps']>(data.jumps);
  return {
    service: str(data.service),
    pipelineId: str(data.pipelineId),
    name: str(data.name),
    days: count(data.days),
    today: str(data.today),
    timeZone: str(data.timeZone),
    utcOffsetMinutes: numberOf(data.utcOffsetMinutes),
    utcOffsetEstimated: data.utcOffsetEstimated === true,
    zoneName: str(data.zoneName),
    points: list<TrendPoint>(data.points).map((p) => ({
      day: str(p.day),
      watched: p.watched !== false,
      counts: decodeCounts(p.counts),
      failureRate: nullableNum(p.failureRate),
      durations: count(p.durations),
      p50Ms: nullableNum(p.p50Ms),
      p95Ms: nullableNum(p.p95Ms),
    })),
    baseline: {
      failureRate: nullableNum(baseline.failureRate),
      p95Ms: nullableNum(baseline.p95Ms),
    },
    jumps: { failureRate: jumps.failureRate === true, p95: jumps.p95 === true },
  };
}
