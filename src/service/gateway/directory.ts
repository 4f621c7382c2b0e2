import { offsetAt, type ServiceTime } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { RequestIndex } from '../db/index/request-index.ts';
import type { FailedRequest } from '../db/index/request-index.ts';
import { IndexPoller, type PollerState } from './poller.ts';
import type { ServiceEntry } from './services.ts';
import { CallLimiter } from './limiter.ts';
import { Redactor } from './redactor.ts';
import {
  EMBEDDED_STATUSES,
  effectiveStatuses,
  LearnedRefusals,
  learnRefusalsOf,
  resolveStatuses,
  type StatusesState,
  type StatusSemantics,
} from './status-semantics.ts';
import { DAY_LIST } from './paging.ts';
import { Upstream, upstreamFailureOf } from './upstream.ts';
import type { Capabilities, ServiceRoute, Services, ServiceState } from './service-state.ts';

export type { Capabilities, ServiceRoute, Services, ServiceState } from './service-state.ts';

/** The gateway's request index and how often its pollers ask (contract section 8). */
export interface IndexOptions {
  readonly index: RequestIndex;
  /** Default seconds between rounds, for services that do not give pollSeconds. */
  readonly pollSeconds: number;
  /** False in tests that drive the rounds themselves. */
  readonly scheduled?: boolean;
  readonly log?: (message: string) => void;
  /** Told of each request an upstream's index sees failing (notifications). */
  readonly onFailed?: (service: string, request: FailedRequest & { message: string }) => void;
}

export const DEFAULT_POLL_SECONDS = 5;

const CHECK_EVERY_MS = 30_000;

/** Poller rounds that run at once across all upstreams. */
const ROUNDS_AT_ONCE = 2;

/**
 * The services of this server in their order (the first answers plain /pipelineapi), and
 * a check of each upstream's version every 30 s: one per service, whatever the number of
 * browsers.
 */
export class ServiceDirectory implements Services {
  readonly routes: readonly ServiceRoute[];
  private readonly states = new Map<string, ServiceState>();
  /** Each service's status words as configured (or its contract's), by id. */
  private readonly semantics = new Map<string, StatusSemantics>();
  /** What each upstream refused to retry or cancel, by id. */
  private readonly refusals = new Map<string, LearnedRefusals>();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly entries: readonly ServiceEntry[],
    embeddedVersion: string,
    /** The embedded service's zone: the server's own. */
    private readonly embeddedTime: ServiceTime,
    private readonly now: () => Date,
    upstreamLimits: {
      timeoutMs: number;
      maxBytes: number;
      maxValueChars: number;
      concurrency: number;
    },
    /** Told of each check's time and outcome (metrics). */
    private readonly onCheck?: (service: string, seconds: number, ok: boolean) => void,
    indexing?: IndexOptions,
  ) {
    // Every upstream's key is cut out of every upstream's text: one vendor may echo another's.
    const redactor = new Redactor(entries.flatMap((e) => (e.embedded ? [] : [e.apiKey])));
    // Two rounds at once, one per core: each may hold a whole day while it reads it.
    const rounds = new CallLimiter(ROUNDS_AT_ONCE);
    for (const e of entries)
      this.semantics.set(
        e.id,
        // Checked when the list was read; a list made in code is checked here.
        e.embedded ? EMBEDDED_STATUSES : resolveStatuses(e.statuses, e.failedStatuses, e.id),
      );
    this.routes = entries.map((e) => {
      if (e.embedded) return { id: e.id, upstream: undefined };
      const upstream = new Upstream(e, { ...upstreamLimits, redactor });
      const refusals = new LearnedRefusals();
      this.refusals.set(e.id, refusals);
      learnRefusalsOf(upstream, refusals);
      // Any call (a browser's, a poller round) that finds it stopped says so at once.
      upstream.onReach = (reachable, message, failure) =>
        this.learnReach(e.id, reachable, {
          message,
          code: failure?.code ?? null,
          cause: failure?.cause ?? null,
        });
      if (indexing)
        upstream.poller = new IndexPoller(upstream, indexing.index, {
          intervalMs: (e.pollSeconds ?? indexing.pollSeconds) * 1000,
          now,
          log: indexing.log,
          scheduled: indexing.scheduled,
          failedStatuses: this.semantics.get(e.id)?.failed,
          // Finished requests' file names, for a search by file, unless the entry says not.
          evidence: { files: e.fileNames ?? true },
          zone: e.zone,
          rounds,
          onFailed: indexing.onFailed && ((request) => indexing.onFailed?.(e.id, request)),
        });
      return { id: e.id, upstream };
    });
    for (const e of entries) {
      this.states.set(e.id, {
        id: e.id,
        name: e.name,
        label: e.label ?? null,
        color: e.color ?? null,
        embedded: e.embedded === true,
        reachable: e.embedded === true,
        version: e.embedded ? embeddedVersion : null,
        checkedAt: e.embedded ? now().toISOString() : null,
        since: e.embedded ? now().toISOString() : null,
        message: null,
        code: null,
        cause: null,
        timeZone: '',
        utcOffsetMinutes: null,
        utcOffsetEstimated: false,
        zoneName: '',
        statuses: this.statusesState(e),
      });
    }
  }

  /**
   * The status words the server acts on for a service (Retry all's default selection,
   * notifications): as configured, less the actions its upstream refused.
   */
  statusesOf(id: string): StatusSemantics {
    return effectiveStatuses(this.semantics.get(id) ?? EMBEDDED_STATUSES, this.refusals.get(id));
  }

  private statusesState(e: ServiceEntry): StatusesState {
    return {
      ...(this.semantics.get(e.id) ?? EMBEDDED_STATUSES),
      from: e.embedded
        ? 'contract'
        : e.statuses !== undefined || e.failedStatuses !== undefined
          ? 'configured'
          : 'defaults',
      learned: this.refusals.get(e.id)?.list() ?? [],
    };
  }

  get hasEmbedded(): boolean {
    return this.entries.some((e) => e.embedded);
  }

  route(id: string): ServiceRoute | undefined {
    return this.routes.find((r) => r.id === id);
  }

  list(): ServiceState[] {
    const now = this.now();
    return this.entries.map((e) => {
      const state = { ...(this.states.get(e.id) as ServiceState), statuses: this.statusesState(e) };
      if (e.embedded) return { ...state, ...this.embeddedTime.zoneAt(now) };
      const poller = this.route(e.id)?.upstream?.poller;
      const polled = poller?.state();
      // A configured zone says its offset today (daylight saving time included); without
      // one, the offset the upstream's own dates showed.
      const zone = {
        timeZone: e.zone ?? '',
        utcOffsetMinutes: e.zone ? offsetAt(e.zone, now) : (polled?.offsetMinutes ?? null),
        utcOffsetEstimated: !e.zone && polled?.offsetEstimated === true,
        zoneName: polled?.zoneName ?? '',
      };
      const upstream = this.route(e.id)?.upstream;
      const capabilities = upstream && this.capabilitiesOf(e.zone, upstream, polled);
      if (!polled) return { ...state, ...zone, ...(capabilities ? { capabilities } : {}) };
      const { indexedAt, indexError, indexFailure } = polled;
      return {
        ...state,
        indexedAt,
        indexError,
        indexErrorCode: indexError === null ? null : (indexFailure?.code ?? null),
        indexErrorCause: indexFailure?.cause ?? null,
        ...zone,
        ...(capabilities ? { capabilities } : {}),
      };
    });
  }

  private capabilitiesOf(
    configuredZone: string | undefined,
    upstream: Upstream,
    polled: PollerState | undefined,
  ): Capabilities {
    const datesZone = upstream.datesZone ?? null;
    return {
      // The day's list's facts over the probe's (what it learnt of its own answers, its
      // cap); each list's own in `lists`.
      ...upstream.pagingOf(DAY_LIST),
      lists: upstream.learntLists().map((learnt) => ({
        list: learnt.list,
        cap: learnt.cap ?? null,
        index: learnt.index ?? null,
        pagesize: learnt.pagesize ?? null,
        learnedAt: learnt.learnedAt,
        evidence: learnt.evidence,
      })),
      ...upstream.wireFacts(),
      datesZone,
      zoneFrom: configuredZone
        ? 'configured'
        : datesZone !== null || polled?.zoneName
          ? 'dates'
          : 'none',
      pollSeconds: polled ? polled.pollDelayMs / 1000 : null,
      lastRoundMs: polled?.lastRoundMs ?? null,
    };
  }

  /** Every poller of an upstream's request index. */
  pollers(): IndexPoller[] {
    return this.routes.flatMap((r) => (r.upstream?.poller ? [r.upstream.poller] : []));
  }

  /** Checks every upstream once now (awaited), then every 30 s in the background. */
  async start(): Promise<void> {
    await this.checkAll();
    this.timer = setInterval(() => void this.checkAll(), CHECK_EVERY_MS);
    this.timer.unref();
    for (const poller of this.pollers()) poller.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    // A check under way ends before the databases its callbacks read are closed.
    await this.checking;
    for (const poller of this.pollers()) poller.stop();
    await Promise.all(this.pollers().map((p) => p.settled()));
    // A clean stop gives the pollers' leases up: another gateway polls at once.
    await Promise.all(this.pollers().map((p) => p.release()));
  }

  /**
   * What a call just showed: a change of reachability is recorded now (since now), so that
   * a stopped upstream is told within the upstream timeout, not at the next check.
   */
  private learnReach(
    id: string,
    reachable: boolean,
    why: Pick<ServiceState, 'message' | 'code' | 'cause'>,
  ): void {
    const before = this.states.get(id);
    if (!before || this.stopped || before.reachable === reachable) return;
    const at = this.now().toISOString();
    this.states.set(id, { ...before, reachable, ...why, checkedAt: at, since: at });
    if (reachable) this.answeredAgain(id);
  }

  /** An upstream seen back: its poller, maybe backing off, polls now. */
  private answeredAgain(id: string): void {
    this.route(id)?.upstream?.poller?.answeredAgain();
  }

  checkAll(): Promise<void> {
    const run = this.checkEach();
    this.checking = run;
    return run;
  }

  private async checkEach(): Promise<void> {
    await Promise.all(
      this.routes.map(async ({ id, upstream }) => {
        if (!upstream) return;
        const before = this.states.get(id) as ServiceState;
        let result: Pick<ServiceState, 'reachable' | 'version' | 'message' | 'code' | 'cause'>;
        const started = performance.now();
        try {
          const tree = await upstream.call('version', {});
          const response = tree.Response;
          const version =
            response && typeof response === 'object' && !Array.isArray(response)
              ? String(response.Version ?? '')
              : '';
          result = { reachable: true, version, message: null, code: null, cause: null };
        } catch (error) {
          const failure = upstreamFailureOf(error);
          result = {
            reachable: false,
            version: before.version,
            message: (error as Error).message,
            code: failure?.code ?? (error instanceof ApiError ? error.code : null),
            cause: failure?.cause ?? null,
          };
        }
        if (this.stopped) return;
        this.onCheck?.(id, (performance.now() - started) / 1000, result.reachable);
        const at = this.now().toISOString();
        this.states.set(id, {
          ...before,
          ...result,
          checkedAt: at,
          since: before.reachable === result.reachable && before.since ? before.since : at,
        });
        if (result.reachable && !before.reachable) this.answeredAgain(id);
      }),
    );
  }
}
