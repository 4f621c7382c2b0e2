import type {
  FleetClass,
  FleetCounts,
  FleetDayState,
  FleetWord,
  TrendPoint,
} from '../../kit/fleet.ts';
import type { ServiceContext } from '../context.ts';
import { indexDayStatusCounts, type WordCount } from '../db/index/fleet.ts';
import { indexDayDurations, indexDayOutcomes, type PipelineDurations } from '../db/index/trends.ts';
import { readRequestCounts } from '../db/status/request-counts.ts';
import { statusDayDurations, statusDayOutcomes } from '../db/status/trends.ts';
import { pipelineNames } from '../db/system/pipelines.ts';
import type { ServiceState } from '../gateway/directory.ts';
import type { StatusSemantics } from '../gateway/status-semantics.ts';
import { getOrInsertComputed } from '../maps.ts';

// What the fleet view and the trends (issue 25, items 3 and 6; fleet-routes.ts) read: a
// service's days from what the server already holds (the gateway's request index, the
// embedded status database) and never from an upstream, so that a fleet of services costs
// one page load the same as one service, and a stopped upstream still shows.

/** A past day's per-pipeline figures are read again after this long (late settles move them). */
const PAST_DAY_TTL_MS = 10 * 60_000;
/** Today's are read again after this long: the pollers' interval is seconds too. */
const TODAY_TTL_MS = 15_000;
/** Days held per server at most: 31 days of 100 services. */
const CACHE_BOUND = 3100;

/**
 * The class of a status word for one service, from that service's own words (its
 * `statuses`, settled by gateway/status-semantics.ts: our contract's for the embedded
 * service, the configured ones or interfaces.md's defaults for an upstream). A word in no
 * class is `other` and is shown as it is.
 */
export function fleetClassOf(semantics: StatusSemantics, status: string): FleetClass {
  if (semantics.failed.includes(status)) return 'failed';
  if (semantics.waiting.includes(status)) return 'waiting';
  if (semantics.running.includes(status)) return 'running';
  if (semantics.final.includes(status)) return 'done';
  return 'other';
}

/** The day `by` days from a yyyymmdd day, as yyyymmdd (calendar days, no zone involved). */
export function shiftDay(day: string, by: number): string {
  const date = new Date(
    Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)) + by),
  );
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

/** One pipeline's day: requests per status word, and its durations when any are known. */
export interface PipelineDay {
  name: string;
  words: Map<string, number>;
  durations: PipelineDurations | undefined;
}

/** What one service's source of counts answers: its index, or its status database. */
export interface DaySource {
  today(): Promise<string | undefined>;
  dayState(day: string): Promise<FleetDayState>;
  watched(day: string): Promise<boolean>;
  statusCounts(day: string): Promise<WordCount[]>;
  pipelines(day: string): Promise<Map<string, PipelineDay>>;
}

function pipelineDays(
  outcomes: readonly { pipelineId: string; name: string; status: string; count: number }[],
  durations: (pipelineId: string) => PipelineDurations | undefined,
): Map<string, PipelineDay> {
  const days = new Map<string, PipelineDay>();
  for (const row of outcomes) {
    const day = days.get(row.pipelineId) ?? {
      name: row.name,
      words: new Map<string, number>(),
      durations: undefined,
    };
    day.words.set(row.status, (day.words.get(row.status) ?? 0) + row.count);
    days.set(row.pipelineId, day);
  }
  for (const [id, day] of days) day.durations = durations(id);
  return days;
}

function embeddedSource(ctx: ServiceContext): DaySource {
  const db = ctx.dbs.status;
  return {
    today: () => Promise.resolve(ctx.time.day(ctx.clock.now())),
    dayState: () => Promise.resolve('live'),
    watched: () => Promise.resolve(true),
    async statusCounts(day) {
      const counts = new Map<string, number>();
      for (const c of readRequestCounts(db, day))
        counts.set(c.status, (counts.get(c.status) ?? 0) + c.count);
      return [...counts].map(([status, count]) => ({ status, count }));
    },
    async pipelines(day) {
      const names = pipelineNames(ctx.dbs.system);
      return pipelineDays(
        statusDayOutcomes(db, day).map((r) => ({ ...r, name: names.get(r.pipelineId) ?? '' })),
        (id) => statusDayDurations(db, day, id),
      );
    },
  };
}

function upstreamSource(ctx: ServiceContext, service: string): DaySource | undefined {
  const poller = ctx.services.route(service)?.upstream?.poller;
  if (!poller) return undefined;
  const index = poller.index;
  return {
    today: async () => (await index.state(service)).today ?? undefined,
    dayState: (day) => poller.dayState(day),
    watched: async (day) => (await index.day(service, day)) !== undefined,
    statusCounts: (day) => indexDayStatusCounts(index, service, day),
    async pipelines(day) {
      const durations = new Map(
        (await indexDayDurations(index, service, day)).map((d) => [d.pipelineId, d]),
      );
      return pipelineDays(await indexDayOutcomes(index, service, day), (id) => durations.get(id));
    },
  };
}

/** Each server's days already read, per service and day (see PAST_DAY_TTL_MS). */
const caches = new WeakMap<
  ServiceContext,
  Map<string, { at: number; value: Map<string, PipelineDay> }>
>();

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A service's day per pipeline, read again once older than its TTL. Reading one from SQLite
 * is synchronous (better-sqlite3) and a day of 100,000 requests takes a few hundred ms, so a
 * caller that reads many (a month, the first time) lets other calls through between them.
 */
export async function cachedPipelines(
  ctx: ServiceContext,
  service: string,
  source: DaySource,
  day: string,
  today: string,
): Promise<Map<string, PipelineDay>> {
  const cache = getOrInsertComputed(caches, ctx, () => new Map());
  const key = `${service}\n${day}`;
  const now = ctx.clock.now().getTime();
  const hit = cache.get(key);
  const ttl = day === today ? TODAY_TTL_MS : PAST_DAY_TTL_MS;
  if (hit && now - hit.at < ttl) return hit.value;
  await nextTurn();
  if (cache.size >= CACHE_BOUND) cache.clear();
  const value = await source.pipelines(day);
  cache.set(key, { at: now, value });
  return value;
}

export function countsOf(words: readonly FleetWord[]): FleetCounts {
  const counts: Record<FleetClass | 'total', number> = {
    failed: 0,
    running: 0,
    waiting: 0,
    done: 0,
    other: 0,
    total: 0,
  };
  for (const w of words) {
    counts[w.class] += w.count;
    counts.total += w.count;
  }
  return counts;
}

function pointOf(
  day: string,
  watched: boolean,
  pipeline: PipelineDay | undefined,
  semantics: StatusSemantics,
): TrendPoint {
  const words = [...(pipeline?.words ?? [])].map(([status, count]) => ({
    status,
    count,
    class: fleetClassOf(semantics, status),
  }));
  const counts = countsOf(words);
  const ended = counts.failed + counts.done;
  const durations = pipeline?.durations;
  return {
    day,
    watched,
    counts,
    failureRate: ended > 0 ? counts.failed / ended : null,
    durations: durations?.count ?? 0,
    p50Ms: durations ? durations.p50 : null,
    p95Ms: durations ? durations.p95 : null,
  };
}

/** A pipeline's points over `days` days ending with the service's today, oldest first. */
export async function trendPoints(
  ctx: ServiceContext,
  service: string,
  source: DaySource,
  semantics: StatusSemantics,
  today: string,
  days: number,
): Promise<(pipelineId: string) => TrendPoint[]> {
  const read: { day: string; watched: boolean; pipelines: Map<string, PipelineDay> }[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const day = shiftDay(today, -i);
    read.push({
      day,
      watched: await source.watched(day),
      pipelines: await cachedPipelines(ctx, service, source, day, today),
    });
  }
  return (pipelineId) =>
    read.map((r) => pointOf(r.day, r.watched, r.pipelines.get(pipelineId), semantics));
}

/** Where a service's days are read: its status database, or the gateway's index of it. */
export function sourceOf(ctx: ServiceContext, state: ServiceState): DaySource | undefined {
  return state.embedded ? embeddedSource(ctx) : upstreamSource(ctx, state.id);
}

/** One service of the fleet as the caller may see it; undefined when they may not. */
