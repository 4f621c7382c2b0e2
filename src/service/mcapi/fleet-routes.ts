import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  FLEET_CLASSES,
  trendJumps,
  type FleetAnswer,
  type FleetJump,
  type FleetServiceAnswer,
  type FleetWord,
  type TrendsAnswer,
} from '../../kit/fleet.ts';
import { PIPELINE_ID_PATTERN, ROLE_OPERATIONS, type Role } from '../../kit/wire.ts';
import { field, merged } from '../auth/session-params.ts';
import { roleOn } from '../auth/service-roles.ts';
import type { Session } from '../auth/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { pipelineNames } from '../db/system/pipelines.ts';
import { ApiError, McCode } from '../errors.ts';
import type { ServiceState } from '../gateway/directory.ts';
import {
  cachedPipelines,
  countsOf,
  fleetClassOf,
  shiftDay,
  sourceOf,
  trendPoints,
} from './fleet.ts';
import { MISSING, send } from './respond.ts';

// The fleet view and the trends (issue 25, items 3 and 6): Part A extensions that answer
// from what the server already holds (fleet.ts reads it) and never call an upstream.

/** Days a trend covers unless asked, and at most (a month of days, its today included). */
export const TREND_DAYS = 30;
export const MAX_TREND_DAYS = 31;

function mayRead(role: Role): boolean {
  return ROLE_OPERATIONS[role].has('requeststats');
}

async function fleetService(
  ctx: ServiceContext,
  session: Session,
  state: ServiceState,
): Promise<FleetServiceAnswer | undefined> {
  const role = await roleOn(ctx.shared, session, state.id);
  if (!mayRead(role)) return undefined;
  const semantics = ctx.services.statusesOf(state.id);
  const source = sourceOf(ctx, state);
  const day = await source?.today();
  const words: FleetWord[] =
    source && day !== undefined
      ? (await source.statusCounts(day)).map(({ status, count }) => ({
          status,
          class: fleetClassOf(semantics, status),
          count,
        }))
      : [];
  const jumps: FleetJump[] = [];
  if (source && day !== undefined) {
    const points = await trendPoints(ctx, state.id, source, semantics, day, TREND_DAYS);
    const todays = await cachedPipelines(ctx, state.id, source, day, day);
    for (const [pipelineId, pipeline] of todays) {
      const list = points(pipelineId);
      const { baseline, jumps: jumped } = trendJumps(list);
      const last = list.at(-1);
      // Each measure that jumped against a known baseline, failure rate first.
      for (const [kind, jumpedToday, median, today] of [
        ['failureRate', jumped.failureRate, baseline.failureRate, last?.failureRate],
        ['p95', jumped.p95, baseline.p95Ms, last?.p95Ms],
      ] as const)
        if (jumpedToday && median !== null)
          jumps.push({ pipelineId, name: pipeline.name, kind, today: today ?? 0, median });
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
    utcOffsetEstimated: state.utcOffsetEstimated,
    zoneName: state.zoneName,
    day: day ?? null,
    dayState: source && day !== undefined ? await source.dayState(day) : 'unwatched',
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
async function trendRequest(ctx: ServiceContext, session: Session, request: FastifyRequest) {
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
  const role = await roleOn(ctx.shared, session, state.id);
  if (!mayRead(role))
    throw new ApiError(
      403,
      McCode.Forbidden,
      `Your role on service ${state.id} (${role}) may not read its requests.`,
    );
  // `field` refuses a missing, overlong or multi-line id; an upstream's ids are its own in
  // every other way (spaces, slashes, any script), only the embedded engine's have a shape.
  const pipelineId = field(params, 'pipelineid', MISSING, true);
  if (state.embedded && !PIPELINE_ID_PATTERN.test(pipelineId))
    throw new ApiError(
      400,
      McCode.WrongType,
      'Parameter pipelineid must be a pipeline id (pl_<number>).',
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

async function trends(
  ctx: ServiceContext,
  session: Session,
  request: FastifyRequest,
): Promise<TrendsAnswer> {
  const { state, pipelineId, days } = await trendRequest(ctx, session, request);
  const semantics = ctx.services.statusesOf(state.id);
  const source = sourceOf(ctx, state);
  const today = await source?.today();
  const zone = {
    timeZone: state.timeZone,
    utcOffsetMinutes: state.utcOffsetMinutes,
    utcOffsetEstimated: state.utcOffsetEstimated,
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

/**
 * `GET /mcapi/fleet` (every service the caller may read, today's counts per class in its
 * own day, reachability and the index's freshness, pipelines whose today jumps) and
 * `GET /mcapi/trends` (a pipeline's last days by outcome and duration). Both need a
 * management console session, as `/mcapi/services` does.
 */
export function fleetRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  requireSession: (ctx: ServiceContext, request: FastifyRequest) => Promise<Session>,
  prefix: string,
): void {
  app.get(`${prefix}/fleet`, async (request, reply) => {
    const session = await requireSession(ctx, request);
    const services: FleetServiceAnswer[] = [];
    for (const state of ctx.services.list()) {
      const service = await fleetService(ctx, session, state);
      if (service) services.push(service);
    }
    return send<FleetAnswer>(reply, { generatedAt: ctx.clock.now().toISOString(), services });
  });
  app.get(`${prefix}/trends`, async (request, reply) => {
    const session = await requireSession(ctx, request);
    return send<TrendsAnswer>(reply, await trends(ctx, session, request));
  });
}
