import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {
  AttemptAction,
  AttemptActor,
  RequestAttempts,
  RequestRange,
} from '../../kit/attempts.ts';
import { PIPELINE_ID_PATTERN, REQUEST_ID_PATTERN } from '../../kit/wire.ts';
import { field, merged } from '../auth/session-params.ts';
import type { ServiceContext } from '../context.ts';
import type { AttemptRecord } from '../db/index/attempt-record.ts';
import { daysOf, indexRange, RANGE_MAX_DAYS } from '../db/index/request-range.ts';
import { listAttempts } from '../db/status/attempts.ts';
import { statusRange } from '../db/status/request-range.ts';
import { queryAudit, type ReadAuditEntry } from '../db/system/audit.ts';
import { ApiError, McCode } from '../errors.ts';
import type { ServiceRoute } from '../gateway/directory.ts';
import { statusWords } from '../pipelineapi/request-filter.ts';
import { MISSING, send } from './respond.ts';

// Part A extensions of issue 25, for any signed-in person (a viewer reads everything):
// - GET /mcapi/requests/attempts: each attempt of a request, with who retried or cancelled
//   it through this server (from the audit log);
// - GET /mcapi/requests/range: requests over up to 31 days, a page and exact counts.
// Both answer for the embedded service (its status database) and for an upstream (the
// gateway's index), the same way.

/** How long after a retry through this server a poller may first see the attempt it began. */
const SEEN_WITHIN_MS = 10 * 60_000;
/** The engine writes a retry's new attempt a moment before the audit writes the call. */
const CLOCK_SLACK_MS = 5_000;
/** Retries and cancels of one request read from the audit at most. */
const ACTIONS_READ = 200;

/** Who retried or cancelled, when, as the audit log has it (the kit's answer type). */
type Actor = AttemptActor;
type Action = AttemptAction;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The successful retries and cancels of a request through this server, oldest first. */
async function actionsOf(
  ctx: ServiceContext,
  service: string,
  requestId: string,
): Promise<Action[]> {
  const read = async (operation: string, action: Action['action']) =>
    (
      await queryAudit(ctx.shared, {
        service,
        requestId,
        operation,
        index: 0,
        pageSize: ACTIONS_READ,
      })
    ).entries.flatMap((e: ReadAuditEntry): Action[] => {
      if (e.httpStatus !== 200 || e.status !== 'OK') return [];
      const job = e.parameters.bulkjob;
      return [
        {
          action,
          userName: e.userName,
          via: e.via,
          at: e.time,
          bulkJob: job !== undefined && /^\d{1,15}$/.test(job) ? Number(job) : null,
          reason: e.parameters.reason ?? null,
        },
      ];
    });
  const [retries, cancels] = await Promise.all([
    read('requestretry', 'retry'),
    read('requestcancel', 'cancel'),
  ]);
  return [...retries, ...cancels].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/**
 * Each attempt with the retry that began it and the cancel that ended it, when they went
 * through this server: a retry belongs to the first later attempt seen soon after it, a
 * cancel to the attempt under way when it was made.
 */
export function withActors(attempts: readonly AttemptRecord[], actions: readonly Action[]) {
  const retriedBy = new Map<number, Actor>();
  const cancelledBy = new Map<number, Actor>();
  for (const { action, ...actor } of actions) {
    const atMs = Date.parse(actor.at);
    if (action === 'retry') {
      const began = attempts.find(
        (a, i) =>
          i > 0 &&
          !retriedBy.has(a.attempt) &&
          a.startedMs !== null &&
          a.startedMs >= atMs - CLOCK_SLACK_MS &&
          a.startedMs - atMs <= SEEN_WITHIN_MS,
      );
      if (began) retriedBy.set(began.attempt, actor);
    } else {
      const under = [...attempts]
        .reverse()
        .find((a) => a.startedMs === null || a.startedMs <= atMs + CLOCK_SLACK_MS);
      if (under && !cancelledBy.has(under.attempt)) cancelledBy.set(under.attempt, actor);
    }
  }
  return attempts.map((a) => ({
    attempt: a.attempt,
    status: a.status,
    stage: a.stage,
    startedAt: iso(a.startedMs),
    endedAt: iso(a.endedMs),
    beginTime: a.beginTime,
    endTime: a.endTime,
    changes: a.changes.map((c) => ({ status: c.status, stage: c.stage, at: iso(c.atMs) })),
    failed: a.failed,
    message: a.message,
    log: a.log,
    evidence: a.evidence,
    retriedBy: retriedBy.get(a.attempt) ?? null,
    cancelledBy: cancelledBy.get(a.attempt) ?? null,
  }));
}

const badParameter = (name: string, what: string) =>
  new ApiError(400, McCode.WrongType, `Parameter ${name} ${what}.`);

/** The service asked for (the first when none is), or 404 naming it. */
function serviceOf(ctx: ServiceContext, params: Record<string, unknown>): ServiceRoute {
  const id = field(params, 'service', MISSING, false);
  const route = id === undefined ? ctx.services.routes[0] : ctx.services.route(id);
  if (!route)
    throw new ApiError(404, McCode.NotFound, `No service ${JSON.stringify(id ?? '')} here.`);
  return route;
}

const whole = (
  params: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
  max: number,
) => {
  const value = field(params, name, MISSING, false);
  if (value === undefined) return fallback;
  if (!/^\d{1,10}$/.test(value) || Number(value) < min || Number(value) > max)
    throw badParameter(name, `must be a whole number from ${min} to ${max}`);
  return Number(value);
};

/** The days of `from` and `to`, each checked, or 400 naming what is wrong. */
export function rangeDays(params: Record<string, unknown>): string[] {
  const from = field(params, 'from', MISSING, true);
  const to = field(params, 'to', MISSING, true);
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const)
    if (daysOf(value, value) === undefined)
      throw badParameter(name, `must be a day as yyyymmdd, not ${JSON.stringify(value)}`);
  if (to < from) throw badParameter('to', `(${to}) is before from (${from})`);
  const days = daysOf(from, to);
  if (days === undefined)
    throw badParameter(
      'to',
      `makes a range of more than ${RANGE_MAX_DAYS} days (from ${from} to ${to}); ask for ${RANGE_MAX_DAYS} days at most`,
    );
  return days;
}

/**
 * The requests' filters of a range: id, status (comma-separated words), q. The embedded
 * engine's ids and words have our shapes; an upstream's are its own, so behind the gateway
 * only what `field` refuses (missing, too long, not one line of text) and an empty word are.
 */
function rangeFilter(params: Record<string, unknown>, route: ServiceRoute) {
  const pipelineId = field(params, 'id', MISSING, false);
  if (!route.upstream && pipelineId !== undefined && !PIPELINE_ID_PATTERN.test(pipelineId))
    throw badParameter('id', 'must be a pipeline id');
  const status = field(params, 'status', MISSING, false);
  const asked = statusWords(status, route.upstream ? 'upstream' : 'embedded');
  if ('refused' in asked) throw badParameter('status', asked.refused);
  const statuses = asked.words;
  const text = field(params, 'q', MISSING, false);
  if (text !== undefined && text.length > 200)
    throw badParameter('q', 'must be at most 200 characters');
  return { pipelineId, statuses, text };
}

/** Registers the routes (called from the Part A routes). */
export function requestHistoryRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  requireSession: (request: FastifyRequest) => Promise<unknown>,
  prefix: string,
): void {
  app.get(`${prefix}/requests/attempts`, async (request, reply) => {
    await requireSession(request);
    const params = merged(request.query, request.body);
    const route = serviceOf(ctx, params);
    const requestId = field(params, 'requestid', MISSING, true);
    // An upstream's request ids are its own: looked up in its index as they came.
    if (!route.upstream && !REQUEST_ID_PATTERN.test(requestId))
      throw badParameter('requestid', 'must be a request id such as pl_1-20260101_09-000001');
    let attempts: AttemptRecord[] | undefined;
    if (route.upstream) {
      const poller = route.upstream.poller;
      const found = (await poller?.index.attempts.list(route.id, requestId)) ?? [];
      attempts = found.length > 0 ? found : undefined;
    } else attempts = listAttempts(ctx.dbs.status, requestId);
    if (!attempts)
      throw new ApiError(
        404,
        McCode.NotFound,
        route.upstream
          ? `Request ${requestId} is not in the index of service ${route.id} (it keeps the days it watched).`
          : `Request ${requestId} does not exist.`,
      );
    const actions = await actionsOf(ctx, route.id, requestId);
    return send<RequestAttempts>(reply, {
      service: route.id,
      requestId,
      attempts: withActors(attempts, actions),
      actions,
    });
  });

  app.get(`${prefix}/requests/range`, async (request, reply) => {
    await requireSession(request);
    const params = merged(request.query, request.body);
    const route = serviceOf(ctx, params);
    const days = rangeDays(params);
    const filter = rangeFilter(params, route);
    const index = whole(params, 'index', 0, 0, 1_000_000_000);
    const pageSize = whole(params, 'pagesize', 100, 1, 1000);
    let page;
    if (route.upstream) {
      const poller = route.upstream.poller;
      if (!poller)
        throw new ApiError(
          404,
          McCode.NotFound,
          `Service ${route.id} keeps no index of its requests here.`,
        );
      page = await indexRange(poller.index, route.id, days, filter, index, pageSize);
    } else page = statusRange(ctx.dbs.status, days, filter, index, pageSize);
    return send<RequestRange>(reply, {
      service: route.id,
      // rangeDays answers one day at least.
      from: days[0] as string,
      to: days.at(-1) as string,
      total: page.total,
      exact: page.exact,
      days: page.days,
      statuses: page.statuses,
      index,
      pageSize,
      next: index + page.rows.length < page.total ? index + page.rows.length : -1,
      requests: page.rows,
    });
  });
}
