import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {
  AttemptAction,
  AttemptActor,
  RequestAttempts,
  RequestRange,
} from '../../kit/attempts.ts';
import { elementOf, elementsOf, leafText, type TreeObject } from '../../kit/index.ts';
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
import type { IndexPoller } from '../gateway/poller.ts';
import { normalDate } from '../gateway/zone.ts';
import { statusWords } from '../pipelineapi/request-filter.ts';
import { MISSING, send } from './respond.ts';

// Part A extensions of issue 25, for any signed-in person (a viewer reads everything):
// - GET /mcapi/requests/attempts: each attempt of a request, with who retried or cancelled
//   it through this server (from the audit log);
// - GET /mcapi/requests/range: requests over up to 31 days, a page and exact counts.
// Both answer for the embedded service (its status database) and for an upstream (the
// gateway's index), the same way. Behind the gateway an attempt's begin and end are the
// vendor's own (issue 38): its index knows only when it saw each, minutes or hours off on a
// vendor polled slowly or a request older than the index, so the vendor's requestdetail is
// read for them, and the index's sightings are told as such (`observed`).

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
export function withActors(
  attempts: readonly AttemptRecord[],
  actions: readonly Action[],
  observed: boolean,
) {
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
    observed,
    changes: a.changes.map((c) => ({ status: c.status, stage: c.stage, at: iso(c.atMs) })),
    failed: a.failed,
    message: a.message,
    log: a.log,
    evidence: a.evidence,
    retriedBy: retriedBy.get(a.attempt) ?? null,
    cancelledBy: cancelledBy.get(a.attempt) ?? null,
  }));
}

/** What a vendor's requestdetail states of a request's times, each on the vendor's clock. */
export interface VendorTimes {
  /** BeginTime and EndTime as `YYYY-MM-DD hh:mm:ss`; '' where it states none. */
  readonly beginTime: string;
  readonly endTime: string;
  /** Its request log's lines, in its order, their Date in the same form ('' none). */
  readonly log: readonly {
    readonly date: string;
    readonly stage: string;
    readonly event: string;
  }[];
}

const STAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/**
 * A vendor's date in our one form (gateway/zone.ts reads its forms, as every answer passed
 * on does), or '' for text that is no date: a time is only ever the vendor's own.
 */
const stamp = (text: string): string => {
  const { date } = normalDate(text);
  return STAMP.test(date) ? date : '';
};

/** The times a requestdetail answer (with its request log) states. */
export function vendorTimesOf(tree: TreeObject): VendorTimes {
  const d = elementOf(tree.RequestDetail);
  return {
    beginTime: stamp(leafText(d.BeginTime)),
    endTime: stamp(leafText(d.EndTime)),
    log: elementsOf(elementOf(d.RequestLog).Log).map((l) => ({
      date: stamp(leafText(l.Date)),
      stage: leafText(l.Stage).trim(),
      event: leafText(l.Event).trim(),
    })),
  };
}

/** One run of a request as its log tells it; end '' while it runs (or was never closed). */
interface Run {
  readonly begin: string;
  end: string;
}

/**
 * The runs a request log tells, oldest first. interfaces.md's log opens a request with a
 * Start line and closes it with an End line, both of no stage: a run ends at such an End,
 * and the next begins at the next dated line (a vendor that keeps its log on retry may write
 * no Start for it) or at such a Start.
 */
export function runsOf(log: VendorTimes['log']): Run[] {
  const runs: Run[] = [];
  let open: Run | undefined;
  for (const line of log) {
    if (line.date === '') continue;
    const own = line.stage === '';
    const event = line.event.toLowerCase();
    if (own && event === 'start' && open) {
      runs.push(open);
      open = undefined;
    }
    open ??= { begin: line.date, end: '' };
    if (own && event === 'end') {
      open.end = line.date;
      runs.push(open);
      open = undefined;
    }
  }
  if (open) runs.push(open);
  return runs;
}

/**
 * Each attempt's begin and end as the vendor states them, on its clock; '' where it states
 * none. Whence: the requestdetail's BeginTime and EndTime, for the latest attempt; what a
 * failure's requestdetail stated when it was kept; the runs of the request log, the latest
 * run the latest attempt's (a vendor that starts its log again on retry keeps that one
 * alone). A vendor's BeginTime may stay its first run's after a retry or be its latest's,
 * so a time is taken only where it keeps the attempts in order (each begins after the one
 * before ended, and ends after it began), and a BeginTime is given to the latest attempt of
 * several only after a known end of the one before, to the first only before what follows.
 */
export function statedTimes(
  attempts: readonly AttemptRecord[],
  vendor: VendorTimes | undefined,
): { beginTime: string; endTime: string }[] {
  const count = attempts.length;
  const runs = vendor ? runsOf(vendor.log) : [];
  const runOf = new Map<number, Run>();
  let slot = count - 1;
  // A latest attempt begun again may have logged nothing yet: the ended run is the one before's.
  if (runs.at(-1)?.end && attempts[slot]?.endedMs === null) slot--;
  for (let j = runs.length - 1; j >= 0 && slot >= 0; j--, slot--) {
    const run = runs[j] as Run;
    // A log of fewer runs than attempts whose run begins at the request's BeginTime: several
    // runs told as one (a cancel closed by no End, the log kept on retry), or the latest
    // alone (a vendor that began both again)? Which cannot be told: only the first takes it.
    if (runs.length < count && slot > 0 && run.begin === vendor?.beginTime) continue;
    runOf.set(slot, run);
  }

  const placed: { beginTime: string; endTime: string }[] = [];
  // The latest time stated of the attempts before: none of this one's is earlier.
  let floor = '';
  const first = (candidates: readonly (string | undefined)[], atLeast: string) =>
    candidates.find((c): c is string => c !== undefined && c !== '' && c >= atLeast) ?? '';
  attempts.forEach((a, k) => {
    const latest = k === count - 1;
    const run = runOf.get(k);
    const kept = { begin: stamp(a.beginTime), end: stamp(a.endTime) };
    const endBefore = placed[k - 1]?.endTime ?? '';
    const own = (time: string) => (k === 0 || (endBefore !== '' && time >= endBefore) ? time : '');
    const begin = first(
      [latest && vendor ? own(vendor.beginTime) : '', own(kept.begin), run?.begin],
      floor,
    );
    const end =
      a.endedMs === null
        ? ''
        : first([latest ? vendor?.endTime : '', kept.end, run?.end], begin || floor);
    placed.push({ beginTime: begin, endTime: end });
    floor = end || begin || floor;
  });
  // The first of several begins at the request's BeginTime when that comes before every time
  // stated after it and is earlier than one of them other than the latest end: a BeginTime
  // the vendor set again at a retry is the latest begin, no earlier than any of those.
  const opening = placed[0];
  const beginTime = vendor?.beginTime ?? '';
  if (count > 1 && opening?.beginTime === '' && beginTime !== '') {
    const after = placed.flatMap((p, k) => (k === 0 ? [p.endTime] : [p.beginTime, p.endTime]));
    const stated = after.filter((t) => t !== '');
    const telling = after.slice(0, -1).filter((t) => t !== '');
    if (stated.every((t) => beginTime <= t) && telling.some((t) => beginTime < t))
      opening.beginTime = beginTime;
  }
  return placed;
}

/**
 * The vendor's own times of a request: its requestdetail with both logs, read as the request
 * page reads it, so that one read of an ended request serves both (gateway/shared-details.ts),
 * and told to the index as every detail passed on is. Undefined when it cannot be had now (the
 * service failing, the request gone from it, another request answered): the attempts are then
 * told from what the index kept.
 */
async function vendorTimes(
  poller: IndexPoller,
  requestId: string,
): Promise<VendorTimes | undefined> {
  // A service the last round could not reach is not waited on again for each reader.
  if (poller.state().indexError !== null) return undefined;
  let tree: TreeObject;
  try {
    tree = await poller.details.read({ requestid: requestId, requestlog: 'true', applog: 'true' });
  } catch {
    return undefined;
  }
  const d = elementOf(tree.RequestDetail);
  const answered = leafText(d.RequestId);
  if (answered !== requestId) return undefined;
  await poller.observed(answered, {
    status: leafText(d.Status),
    stage: leafText(d.Stage),
    endTime: normalDate(leafText(d.EndTime)).date,
    sensorFile: leafText(d.SensorFile),
  });
  return vendorTimesOf(tree);
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
    const poller = route.upstream?.poller;
    if (route.upstream) {
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
    if (poller) {
      const vendor = await vendorTimes(poller, requestId);
      // What the detail told the index may have begun or ended an attempt: read them again.
      if (vendor) attempts = await poller.index.attempts.list(route.id, requestId);
      const times = statedTimes(attempts, vendor);
      attempts = attempts.map((a, i) => ({ ...a, ...times[i] }));
    }
    const actions = await actionsOf(ctx, route.id, requestId);
    return send<RequestAttempts>(reply, {
      service: route.id,
      requestId,
      // The embedded engine's instants are its own record; an upstream's, the index's sightings.
      attempts: withActors(attempts, actions, route.upstream !== undefined),
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
