import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CANCELLABLE_STATUSES,
  DAY_PATTERN,
  DAY_SHAPE,
  ErrorCode,
  RETRYABLE_STATUSES,
  type OperationName,
} from '../../kit/wire.ts';
import type { AuditSubject } from '../audit/audit-log.ts';
import type { Caller, ExtraAuthenticator } from '../auth/session-auth.ts';
import { isCalendarDay } from '../clock.ts';
import type { ServiceContext } from '../context.ts';
import {
  acceptedRequestIds,
  bulkItemsPage,
  getBulkJob,
  listBulkJobs,
  type BulkAction,
  type BulkJobRow,
  type BulkSelection,
  type ItemOutcome,
} from '../db/system/bulk-jobs.ts';
import { ApiError, badParameter, missingParameter } from '../errors.ts';
import type { ServiceRoute, Services } from '../gateway/service-state.ts';
import type { StatusSemantics } from '../gateway/status-semantics.ts';
import { optionalPipelineIdParam } from '../pipelineapi/fields.ts';
import { pageInfo } from '../pipelineapi/paging.ts';
import { Params } from '../pipelineapi/params.ts';
import { requestFilter } from '../pipelineapi/request-filter.ts';
import { authenticate as authenticatePartC } from '../pipelineapi/authenticate.ts';
import type { Sql } from '../db/sql.ts';
import type { BulkBackend } from './backend.ts';
import { BulkJobs } from './jobs.ts';

// The bulk endpoints (an extension of ours; docs/api-extensions.md "Bulk retry and cancel"): a preview,
// a start, a job's progress with its requests one by one, and the recent jobs. JSON only.

const JSON_TYPE = 'text/javascript; charset=UTF-8';
const ELIGIBLE: Readonly<Record<BulkAction, readonly string[]>> = {
  retry: RETRYABLE_STATUSES,
  cancel: CANCELLABLE_STATUSES,
};
/**
 * What a bulk call without `status` selects, in the service's own words: for a retry, its
 * failed words it still retries (Error for our engine; Error and Abort for a vendor that
 * says so); for a cancel, its waiting words it cancels (Wait).
 */
export function defaultStatuses(action: BulkAction, words: StatusSemantics): readonly string[] {
  const [from, allowed] =
    action === 'retry' ? [words.failed, words.retryable] : [words.waiting, words.cancellable];
  const both = from.filter((s) => allowed.includes(s));
  if (both.length > 0) return both;
  // A service whose words leave nothing (a vendor with no waiting word): what it takes at all.
  return allowed.length > 0 ? allowed : from;
}
const OUTCOMES: readonly ItemOutcome[] = ['pending', 'started', 'ok', 'refused', 'failed'];

/**
 * Authenticates a call as Part C does, for the operation whose role rules apply on the
 * service (its id) the call reaches.
 */
export type BulkAuthenticate = (
  request: FastifyRequest,
  reply: FastifyReply,
  operation: OperationName,
  service: string,
  identified?: (caller: Caller) => void,
) => Promise<Caller>;

function actionParam(params: Params): BulkAction {
  const action = params.required('action', 16);
  if (action !== 'retry' && action !== 'cancel')
    throw badParameter('action', 'must be retry or cancel');
  return action;
}

/**
 * What a bulk call selects: validated as requestlist's filters are, and a day required. The
 * day is one of the request index's (yyyymmdd whoever answers); the pipeline id is held to
 * our shape on the embedded engine only, an upstream's being its own.
 */
async function selectionParams(
  route: ServiceRoute,
  backend: BulkBackend,
  params: Params,
  words: StatusSemantics,
): Promise<BulkSelection> {
  const action = actionParam(params);
  const day = params.matching('date', DAY_PATTERN, DAY_SHAPE, true);
  if (!isCalendarDay(day)) throw badParameter('date', `must be a calendar day as ${DAY_SHAPE}`);
  const pipelineId = optionalPipelineIdParam(params, route.upstream ? 'upstream' : 'embedded');
  const filter = requestFilter(params, route.upstream ? 'upstream' : 'embedded');
  if (filter.since !== undefined) throw badParameter('since', 'is not taken by bulk calls');
  const statuses = filter.statuses ?? defaultStatuses(action, words);
  const eligible = ELIGIBLE[action];
  if (!backend.ownStatusWords && statuses.some((s) => !eligible.includes(s)))
    throw badParameter('status', `of a bulk ${action} may only be ${eligible.join(', ')}`);
  if (pipelineId !== undefined) await backend.checkPipeline(pipelineId);
  return {
    service: route.id,
    action,
    day,
    pipelineId,
    statuses: [...new Set(statuses)],
    q: filter.text,
  };
}

function selectionFields(s: BulkSelection) {
  return {
    Service: s.service,
    Action: s.action,
    Date: s.day,
    Id: s.pipelineId ?? '',
    Status: s.statuses.join(','),
    Q: s.q ?? '',
  };
}

function jobFields(job: BulkJobRow) {
  return {
    JobId: job.id,
    ...selectionFields(job),
    Reason: job.reason,
    User: job.userName ?? job.via,
    Created: job.created,
    Resumed: job.resumed,
    Finished: job.finished,
    State: job.state,
    // Why a job stopped before its end (its starter lost the role it needs); only then.
    ...(job.stopped === null ? {} : { Stopped: job.stopped }),
    Total: job.total,
    Done: job.succeeded + job.refused + job.failed,
    Succeeded: job.succeeded,
    Refused: job.refused,
    Failed: job.failed,
  };
}

/**
 * What became of the requests a finished job's calls were accepted for: how many are in
 * each status now (a retried one may have finished or failed again, a cancelled one
 * stopped), and how many the service no longer knows; undefined, and left out of the answer,
 * when the service has no index to tell.
 */
async function statusesNow(shared: Sql, backend: BulkBackend, job: BulkJobRow) {
  const accepted = await acceptedRequestIds(shared, job.id);
  const counts = await backend.statusCounts(job.day, accepted);
  if (!counts) return undefined;
  const known = counts.reduce((sum, c) => sum + c.count, 0);
  return {
    Accepted: accepted.length,
    Unknown: accepted.length - known,
    Status: counts.map((c) => ({ Name: c.status, Count: c.count })),
  };
}

function send(reply: FastifyReply, body: object): FastifyReply {
  return reply.code(200).header('content-type', JSON_TYPE).send(JSON.stringify(body));
}

/** Registers the bulk endpoints under `/pipelineapi` and `/services/<id>/pipelineapi`. */
export function bulkRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  services: Services,
  jobs: BulkJobs,
  authenticate: BulkAuthenticate,
): void {
  const routeOf = (request: FastifyRequest): ServiceRoute => {
    const id = (request.params as { service?: string }).service;
    if (id === undefined) return services.routes[0] as ServiceRoute;
    const route = services.route(id);
    if (!route)
      throw new ApiError(404, ErrorCode.UnknownApi, `No service ${JSON.stringify(id)} here.`);
    return route;
  };
  const jsonOnly = (request: FastifyRequest) => {
    const type = (request.params as { type: string }).type;
    if (type !== 'json')
      throw new ApiError(
        400,
        ErrorCode.UnknownResponseType,
        `Bulk calls answer json only, not ${JSON.stringify(type)}.`,
      );
  };
  const paramsOf = (request: FastifyRequest) => new Params(request.query, request.body);
  // The role rules of the action asked for (those of a single retry or cancel); an unknown
  // action is refused after sign-in.
  const operationOf = (params: Params): OperationName =>
    params.optional('action', 16) === 'cancel' ? 'requestcancel' : 'requestretry';

  for (const prefix of ['/pipelineapi', '/services/:service/pipelineapi']) {
    app.get(`${prefix}/bulk/:type`, async (request, reply) => {
      jsonOnly(request);
      const params = paramsOf(request);
      const route = routeOf(request);
      await authenticate(request, reply, operationOf(params), route.id);
      const selection = await selectionParams(
        route,
        jobs.backend(route.id),
        params,
        services.statusesOf(route.id),
      );
      const preview = await jobs.preview(selection);
      return send(reply, {
        BulkPreview: {
          ...selectionFields(selection),
          Total: preview.total,
          RequestId: preview.first,
        },
      });
    });

    app.post(`${prefix}/bulk/:type`, async (request, reply) => {
      jsonOnly(request);
      const params = paramsOf(request);
      const subject: AuditSubject = { userName: null, via: 'none', requestId: null };
      const parameters = { ...(request.query as object), ...(request.body as object) };
      const action = params.optional('action', 16) === 'cancel' ? 'cancel' : 'retry';
      const job = await ctx.audit.around(
        request,
        { operation: `bulk${action}`, service: routeOf(request).id, parameters },
        subject,
        async () => {
          const route = routeOf(request);
          const caller = await authenticate(
            request,
            reply,
            operationOf(params),
            route.id,
            (who) => {
              subject.userName = who.userName ?? null;
              subject.via = who.via;
            },
          );
          subject.userName = caller.userName ?? null;
          subject.via = caller.via;
          const selection = await selectionParams(
            route,
            jobs.backend(route.id),
            params,
            services.statusesOf(route.id),
          );
          const reason = params.optional('reason', 500)?.trim();
          if (!reason) throw missingParameter('reason');
          const expected =
            params.optional('expect') === undefined
              ? undefined
              : params.integer('expect', 0, 0, 1_000_000_000);
          const id = await jobs.start(
            selection,
            { reason, address: request.ip, subject, credential: caller.credential },
            expected,
          );
          return (await getBulkJob(ctx.shared, id)) as BulkJobRow;
        },
        (started) => ({ status: 'OK', message: `Job ${started.id}: ${started.total} requests` }),
      );
      return send(reply, { BulkJob: jobFields(job) });
    });

    app.get(`${prefix}/bulkjob/:type`, async (request, reply) => {
      jsonOnly(request);
      const params = paramsOf(request);
      const route = routeOf(request);
      // A job is read as a request list is: whoever may read the service may follow it.
      await authenticate(request, reply, 'requestlist', route.id);
      if (params.optional('job') === undefined) throw missingParameter('job');
      const id = params.integer('job', 0, 1, 1_000_000_000);
      const job = await getBulkJob(ctx.shared, id);
      if (!job || job.service !== route.id)
        throw new ApiError(404, ErrorCode.UnknownApi, `Bulk job ${id} does not exist.`);
      const outcome = params.optional('outcome', 16);
      if (outcome !== undefined && !(OUTCOMES as readonly string[]).includes(outcome))
        throw badParameter('outcome', `must be one of ${OUTCOMES.join(', ')}`);
      const index = params.integer('index', 0, 0, 1_000_000_000);
      const pageSize = params.integer('pagesize', 100, 1, 1000);
      const page = await bulkItemsPage(
        ctx.shared,
        id,
        outcome as ItemOutcome | undefined,
        index,
        pageSize,
      );
      const info = pageInfo(index, pageSize, page.items.length, page.total);
      return send(reply, {
        BulkJob: {
          ...jobFields(job),
          Now:
            job.state !== 'running'
              ? await statusesNow(ctx.shared, jobs.backend(route.id), job)
              : undefined,
          Item: page.items.map((i) => ({
            RequestId: i.requestId,
            Outcome: i.outcome,
            Message: i.message,
            Time: i.time,
          })),
          Info: info,
        },
      });
    });

    app.get(`${prefix}/bulkjobs/:type`, async (request, reply) => {
      jsonOnly(request);
      const route = routeOf(request);
      await authenticate(request, reply, 'requestlist', route.id);
      const recent = (await listBulkJobs(ctx.shared, 50)).filter((j) => j.service === route.id);
      return send(reply, { BulkJobs: { BulkJob: recent.map(jobFields) } });
    });
  }
}

/**
 * The bulk endpoints with their jobs, for Part C's scope (pipelineapi/routes.ts `beside`):
 * each call is signed in as a single retry or cancel would be.
 */
export function bulkService(
  ctx: ServiceContext,
  services: Services,
  extraAuth?: ExtraAuthenticator,
): (app: FastifyInstance) => void {
  return (app) => {
    const bulk = new BulkJobs(ctx, (message, error) => app.log.error({ err: error }, message));
    bulkRoutes(app, ctx, services, bulk, (request, reply, operation, service, identified) =>
      authenticatePartC(ctx, request, reply, operation, service, extraAuth, identified),
    );
    // After the engine's recovery (the app readies the server last), and before it stops.
    app.addHook('onReady', async () => bulk.resume());
    app.addHook('onClose', async () => bulk.stop());
  };
}
