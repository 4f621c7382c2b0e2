import { EXECUTE_SUCCESS, ErrorCode } from '../../kit/wire.ts';
import type { ServiceContext } from '../context.ts';
import type { BulkAction, BulkSelection } from '../db/system/bulk-jobs.ts';
import { listRequests, matchingRequestIds, statusCountsOf } from '../db/status/request-list.ts';
import { getRequest } from '../db/status/requests.ts';
import { ApiError } from '../errors.ts';
import type { IndexPoller } from '../gateway/poller.ts';
import type { Upstream } from '../gateway/upstream.ts';
import { knownPipeline, pipelineNotFound } from '../pipelineapi/fields.ts';
import { OPERATION_MODULES } from '../pipelineapi/operations/index.ts';
import { Params } from '../pipelineapi/params.ts';

// What a bulk job needs of the service it acts on, so that one runner (jobs.ts) serves the
// embedded engine and a service behind the gateway alike: the exact selection, one call
// per request, and a request's current status to settle calls a restart interrupted.

/** Request ids a preview shows. */
export const PREVIEW_IDS = 20;

/** How one call ended, as the job records it. */
export interface CallOutcome {
  readonly outcome: 'ok' | 'refused' | 'failed';
  readonly httpStatus: number;
  readonly message: string;
}

export interface BulkBackend {
  /**
   * Whether a job may select by these statuses: our contract's words for the engine; any
   * word for an upstream, whose status words are its own (it refuses what it cannot do).
   */
  readonly ownStatusWords: boolean;
  /** Throws a 404 naming the pipeline when the service has no such pipeline. */
  checkPipeline(pipelineId: string): Promise<void>;
  /** The exact count of a selection and its first requests, newest first. */
  preview(selection: BulkSelection): Promise<{ total: number; first: string[] }>;
  /** Every request of a selection, newest first. */
  select(selection: BulkSelection): Promise<string[]>;
  /** Retries or cancels one request; only an unexpected (non-API) error is thrown. */
  call(action: BulkAction, requestId: string): Promise<CallOutcome>;
  /** The request's status now, `gone` when the service no longer knows it. */
  currentStatus(requestId: string): Promise<string | 'gone'>;
  /**
   * How many of a day's requests are in each status now, in the service's words; those it
   * no longer knows are left out. Behind the gateway, as its index last saw them; undefined
   * when there is no index to tell.
   */
  statusCounts(day: string, requestIds: readonly string[]): Promise<StatusCount[] | undefined>;
}

export interface StatusCount {
  readonly status: string;
  readonly count: number;
}

const OPERATION = { retry: 'requestretry', cancel: 'requestcancel' } as const;

/** An API refusal as an outcome: the service's own words, failed when it could not answer. */
function outcomeOf(error: unknown): CallOutcome {
  if (!(error instanceof ApiError)) throw error;
  return {
    outcome: error.httpStatus >= 500 ? 'failed' : 'refused',
    httpStatus: error.httpStatus,
    message: error.message,
  };
}

const SUCCESS: CallOutcome = { outcome: 'ok', httpStatus: 200, message: EXECUTE_SUCCESS.Message };

/** The embedded engine: its status database, and the operations of a single retry or cancel. */
export function embeddedBackend(ctx: ServiceContext): BulkBackend {
  const filter = (s: BulkSelection) => ({ statuses: s.statuses, text: s.q });
  return {
    ownStatusWords: false,
    checkPipeline(pipelineId) {
      knownPipeline(ctx, pipelineId);
      return Promise.resolve();
    },
    preview(s) {
      const page = listRequests(ctx.dbs.status, s.day, s.pipelineId, 0, PREVIEW_IDS, filter(s));
      return Promise.resolve({ total: page.total, first: page.rows.map((r) => r.REQUESTID) });
    },
    select(s) {
      return Promise.resolve(matchingRequestIds(ctx.dbs.status, s.day, s.pipelineId, filter(s)));
    },
    async call(action, requestId) {
      try {
        await OPERATION_MODULES[OPERATION[action]].embedded(
          ctx,
          new Params({ requestid: requestId }, undefined),
        );
        return SUCCESS;
      } catch (error) {
        return outcomeOf(error);
      }
    },
    currentStatus(requestId) {
      return Promise.resolve(getRequest(ctx.dbs.status, requestId)?.status ?? 'gone');
    },
    statusCounts(day, requestIds) {
      return Promise.resolve(statusCountsOf(ctx.dbs.status, day, requestIds));
    },
  };
}

/**
 * A service behind the gateway: the selection from the gateway's index of its requests,
 * exact only for a day the index watched whole (refused otherwise, naming the day), and
 * each call through the gateway's Part C operations, which speak the upstream's terms.
 */
export function upstreamBackend(upstream: Upstream): BulkBackend {
  const watched = async (day: string): Promise<IndexPoller> => {
    const poller = upstream.poller;
    const seen = await poller?.index.day(poller.service, day);
    if (!poller || !seen)
      throw new ApiError(
        404,
        ErrorCode.UnknownApi,
        `Bulk retry and cancel of ${day} are not available for service ${upstream.name}: its request index did not watch that day, so its requests cannot be selected exactly.`,
      );
    if (!seen.complete)
      throw new ApiError(
        404,
        ErrorCode.UnknownApi,
        `Bulk retry and cancel of ${day} are not available for service ${upstream.name}: its request index may miss some of that day's requests (more arrived at once than the service lists).`,
      );
    return poller;
  };
  const page = async (s: BulkSelection, pageSize: number) => {
    const poller = await watched(s.day);
    const filter = { pipelineId: s.pipelineId, statuses: s.statuses, text: s.q };
    // pageSize 0 would ask for nothing: the count alone then comes back.
    return poller.index.list(poller.service, s.day, filter, 0, pageSize);
  };
  const params = (requestId: string) => new Params({ requestid: requestId }, undefined);
  return {
    ownStatusWords: true,
    async checkPipeline(pipelineId) {
      const answer = await OPERATION_MODULES.list.upstream(upstream, new Params({}, undefined));
      const pipelines = (answer.body as { PipeLine: { Id: unknown }[] }).PipeLine;
      if (!pipelines.some((p) => p.Id === pipelineId)) throw pipelineNotFound(pipelineId);
    },
    async preview(s) {
      const { rows, total } = await page(s, PREVIEW_IDS);
      return { total, first: rows.map((r) => r.requestId) };
    },
    async select(s) {
      const { total } = await page(s, 0);
      return (await page(s, Math.max(total, 1))).rows.map((r) => r.requestId);
    },
    async call(action, requestId) {
      try {
        // Nudges the poller too: the index asks about the request again.
        const answer = await OPERATION_MODULES[OPERATION[action]].upstream(
          upstream,
          params(requestId),
        );
        // The service's own words on what it did (a retry it runs as a new request says so).
        const said = (answer.body as { Message?: unknown }).Message;
        return typeof said === 'string' && said !== '' ? { ...SUCCESS, message: said } : SUCCESS;
      } catch (error) {
        return outcomeOf(error);
      }
    },
    async currentStatus(requestId) {
      // The upstream's word, not the index's, which may be a round behind; it feeds the index.
      try {
        const detail = await OPERATION_MODULES.requestdetail.upstream(upstream, params(requestId));
        return String((detail.body as { Status: unknown }).Status);
      } catch (error) {
        if (error instanceof ApiError && error.httpStatus === 404) return 'gone';
        throw error;
      }
    },
    async statusCounts(_day, requestIds) {
      const poller = upstream.poller;
      return poller?.index.statusCounts(poller.service, requestIds);
    },
  };
}

/** The backend of a service this server answers for, undefined for an unknown one. */
export function backendOf(ctx: ServiceContext, service: string): BulkBackend | undefined {
  const route = ctx.services.route(service);
  if (!route) return undefined;
  return route.upstream ? upstreamBackend(route.upstream) : embeddedBackend(ctx);
}
