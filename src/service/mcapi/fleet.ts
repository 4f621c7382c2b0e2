import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  FLEET_CLASSES,
  trendJumps,
  type FleetClass,
  type FleetCounts,
  type FleetDayState,
  type FleetJump,
  type FleetWord,
  type TrendPoint,
} from '../../kit/fleet.ts';
import { PIPELINE_ID_PATTERN, ROLE_OPERATIONS, type Role } from '../../kit/wire.ts';
import { field, merged } from '../auth/session-params.ts';
import { roleOn } from '../auth/service-roles.ts';
import type { Session } from '../auth/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { indexDayStatusCounts, type WordCount } from '../db/index/fleet.ts';
import { indexDayDurations, indexDayOutcomes, type PipelineDurations } from '../db/index/trends.ts';
import { readRequestCounts } from '../db/status/request-counts.ts';
import { statusDayDurations, statusDayOutcomes } from '../db/status/trends.ts';
import { pipelineNames } from '../db/system/pipelines.ts';
import { ApiError, McCode } from '../errors.ts';
import type { ServiceState } from '../gateway/directory.ts';
import type { StatusSemantics } from '../gateway/status-semantics.ts';

// The fleet view and the trends (issue 25, items 3 and 6): Part A extensions that answer
// from what the server already holds (the gateway's request index, the embedded status
// database and the directory's last checks) and never call an upstream, so that a fleet of
// services costs one page load the same as one service, and a stopped upstream still shows.

const JSON_TYPE = 'application/json; charset=UTF-8';
const MISSING = { status: 400, missing: McCode.Missing };

/** Days a trend covers unless asked, and at most (a month of days, its today included). */
export const TREND_DAYS = 30;
export const MAX_TREND_DAYS = 31;

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
interface PipelineDay {
  name: string;
  words: Map<string, number>;
  durations: PipelineDurations | undefined;
}

/** What one service's source of counts answers: its index, or its status database. */
interface DaySource {
  today(): string | undefined;
  dayState(day: string): FleetDayState;
  watched(day: string): boolean;
  statusCounts(day: string): WordCount[];
  pipelines(day: string): Map<string, PipelineDay>;
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
    today: () => ctx.time.day(ctx.clock.now()),
    dayState: () => 'live',
    watched: () => true,
    statusCounts(day) {
      const counts = new Map<string, number>();
      for (const c of readRequestCounts(db, day))
        counts.set(c.status, (counts.get(c.status) ?? 0) + c.count);
      return [...counts].map(([status, count]) => ({ status, count }));
    },
    pipelines(day) {
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
    today: () => index.state(service).today ?? undefined,
    dayState: (day) => poller.dayState(day),
    watched: (day) => index.day(service, day) !== undefined,
    statusCounts: (day) => indexDayStatusCounts(index, service, day),
    pipelines(day) {
      const durations = new Map(
        indexDayDurations(index, service, day).map((d) => [d.pipelineId, d]),
      );
      return pipelineDays(indexDayOutcomes(index, service, day), (id) => durations.get(id));
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
 * A service's day per pipeline, read again once older than its TTL. Reading one is
 * synchronous (better-sqlite3) and a day of 100,000 requests takes a few hundred ms, so a
 * caller that reads many (a month, the first time) lets other calls through between them.
 */
async function cachedPipelines(
  ctx: ServiceContext,
  service: string,
  source: DaySource,
  day: string,
  today: string,
): Promise<Map<string, PipelineDay>> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map()));
  const key = `${service}\n${day}`;
  const now = ctx.clock.now().getTime();
  const hit = cache.get(key);
  const ttl = day === today ? TODAY_TTL_MS : PAST_DAY_TTL_MS;
  if (hit && now - hit.at < ttl) return hit.value;
  await nextTurn();
  if (cache.size >= CACHE_BOUND) cache.clear();
  const value = source.pipelines(day);
  cache.set(key, { at: now, value });
  return value;
}

function countsOf(words: readonly FleetWord[]): FleetCounts {
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
async function trendPoints(
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
      watched: source.watched(day),
      pipelines: await cachedPipelines(ctx, service, source, day, today),
    });
  }
  return (pipelineId) =>
    read.map((r) => pointOf(r.day, r.watched, r.pipelines.get(pipelineId), semantics));
}

function mayRead(role: Role): boolean {
  return ROLE_OPERATIONS[role].has('requeststats');
}

function sourceOf(ctx: ServiceContext, state: ServiceState): DaySource | undefined {
  return state.embedded ? embeddedSource(ctx) : upstreamSource(ctx, state.id);
}

/** One service of the fleet as the caller may see it; undefined when they may not. */
async function fleetService(ctx: ServiceContext, session: Session, state: ServiceState) {
  const role = roleOn(ctx.dbs.system, session, state.id);
  if (!mayRead(role)) return undefined;
  const semantics = ctx.services.statusesOf(state.id);
  const source = sourceOf(ctx, state);
  const day = source?.today();
  const words: FleetWord[] =
    source && day !== undefined
      ? source
          .statusCounts(day)
          .map(({ status, count }) => ({ status, class: fleetClassOf(semantics, status), count }))
      : [];
  const jumps: FleetJump[] = [];
  if (source && day !== undefined) {
    const points = await trendPoints(ctx, state.id, source, semantics, day, TREND_DAYS);
    const todays = await cachedPipelines(ctx, state.id, source, day, day);
    for (const [pipelineId, pipeline] of todays) {
      const list = points(pipelineId);
      const { baseline, jumps: jumped } = trendJumps(list);
      const last = list.at(-1);
      if (jumped.failureRate && baseline.failureRate !== null)
        jumps.push({
          pipelineId,
          name: pipeline.name,
          kind: 'failureRate',
          today: last?.failureRate ?? 0,
          median: baseline.failureRate,
        });
      if (jumped.p95 && baseline.p95Ms !== null)
        jumps.push({
          pipelineId,
          name: pipeline.name,
          kind: 'p95',
          today: last?.p95Ms ?? 0,
          median: baseline.p95Ms,
        });
    }
  }
  return {
    id: state.id,
    name: state.name,
    label: state.label,
    color: state.color,
    embedded: state.embedded,
    role,
    reachable: state.reachable,
    since: state.since,
    message: state.message,
    code: state.code,
    cause: state.cause,
    timeZone: state.timeZone,
    utcOffsetMinutes: state.utcOffsetMinutes,
    zoneName: state.zoneName,
    day: day ?? null,
    dayState: source && day !== undefined ? source.dayState(day) : 'unwatched',
    indexedAt: state.indexedAt ?? null,
    indexError: state.indexError ?? null,
    indexErrorCode: state.indexErrorCode ?? null,
    indexErrorCause: state.indexErrorCause ?? null,
    counts: countsOf(words),
    words: words.sort(
      (a, b) =>
        FLEET_CLASSES.indexOf(a.class) - FLEET_CLASSES.indexOf(b.class) ||
        a.status.localeCompare(b.status),
    ),
    jumps,
  };
}

/** The trend parameters of a call, each checked (400 naming it, 403, 404). */
function trendRequest(ctx: ServiceContext, session: Session, request: FastifyRequest) {
  const params = merged(request.query, request.body);
  const states = ctx.services.list();
  const serviceId = field(params, 'service', MISSING, false);
  const state = serviceId === undefined ? states[0] : states.find((s) => s.id === serviceId);
  if (!state)
    throw new ApiError(
      400,
      McCode.WrongType,
      `Parameter service names no service here: ${JSON.stringify(serviceId)}.`,
    );
  const role = roleOn(ctx.dbs.system, session, state.id);
  if (!mayRead(role))
    throw new ApiError(
      403,
      McCode.Forbidden,
      `Your role on service ${state.id} (${role}) may not read its requests.`,
    );
  const pipelineId = field(params, 'pipelineid', MISSING, true);
  const shape = state.embedded ? PIPELINE_ID_PATTERN : /^[^\s\p{Cc}]{1,64}$/u;
  if (!shape.test(pipelineId))
    throw new ApiError(
      400,
      McCode.WrongType,
      state.embedded
        ? 'Parameter pipelineid must be a pipeline id (pl_<number>).'
        : 'Parameter pipelineid must be 1 to 64 characters without spaces.',
    );
  if (state.embedded && !pipelineNames(ctx.dbs.system).has(pipelineId))
    throw new ApiError(404, McCode.NotFound, `Service ${state.id} has no pipeline ${pipelineId}.`);
  const daysText = field(params, 'days', MISSING, false);
  const days =
    daysText === undefined ? TREND_DAYS : /^\d{1,2}$/.test(daysText) ? Number(daysText) : 0;
  if (!(days >= 1 && days <= MAX_TREND_DAYS))
    throw new ApiError(
      400,
      McCode.WrongType,
      `Parameter days must be a whole number from 1 to ${MAX_TREND_DAYS}.`,
    );
  return { state, pipelineId, days };
}

async function trends(ctx: ServiceContext, session: Session, request: FastifyRequest) {
  const { state, pipelineId, days } = trendRequest(ctx, session, request);
  const semantics = ctx.services.statusesOf(state.id);
  const source = sourceOf(ctx, state);
  const today = source?.today();
  const zone = {
    timeZone: state.timeZone,
    utcOffsetMinutes: state.utcOffsetMinutes,
    zoneName: state.zoneName,
  };
  if (!source || today === undefined)
    return {
      service: state.id,
      pipelineId,
      name: '',
      days,
      today: null,
      ...zone,
      points: [],
      ...trendJumps([]),
    };
  const points = (await trendPoints(ctx, state.id, source, semantics, today, days))(pipelineId);
  let name = state.embedded ? (pipelineNames(ctx.dbs.system).get(pipelineId) ?? '') : '';
  for (let i = days - 1; i >= 0 && name === ''; i--)
    name =
      (await cachedPipelines(ctx, state.id, source, shiftDay(today, -i), today)).get(pipelineId)
        ?.name ?? '';
  return {
    service: state.id,
    pipelineId,
    name,
    days,
    today,
    ...zone,
    points,
    ...trendJumps(points),
  };
}

function send(reply: FastifyReply, data: object): FastifyReply {
  return reply
    .header('content-type', JSON_TYPE)
    .send(JSON.stringify({ result: { status: 'success', data } }));
}

/**
 * `GET /mcapi/fleet` (every service the caller may read, today's counts per class in its
 * own day, reachability and the index's freshness, pipelines whose today jumps) and
 * `GET /mcapi/trends` (a pipeline's last days by outcome and duration). Both need a
 * management console session, as `/mcapi/services` does.
 */
export function fleetRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  requireSession: (ctx: ServiceContext, request: FastifyRequest) => Session,
  prefix: string,
): void {
  app.get(`${prefix}/fleet`, async (request, reply) => {
    const session = requireSession(ctx, request);
    const services = [];
    for (const state of ctx.services.list()) {
      const service = await fleetService(ctx, session, state);
      if (service) services.push(service);
    }
    return send(reply, { generatedAt: ctx.clock.now().toISOString(), services });
  });
  app.get(`${prefix}/trends`, async (request, reply) => {
    const session = requireSession(ctx, request);
    return send(reply, await trends(ctx, session, request));
  });
}
