import type { TreeObject, UpstreamFailure } from '../../kit/index.ts';
import { VENDOR_DEFAULT_WORDS } from '../../kit/status-semantics.ts';
import type { FailedRequest, IndexState, RequestIndex } from '../db/index/request-index.ts';
import { offsetAt } from '../clock.ts';
import { AS_OF_MARGIN_MS } from './as-of.ts';
import type { EvidenceBudget } from './evidence.ts';
import { IndexReads } from './index-reads.ts';
import { IndexRound } from './index-round.ts';
import type { CallLimiter } from './limiter.ts';
import { PollerLease, type LeaseTimings } from './poller-lease.ts';
import { upstreamFailureOf, type Upstream } from './upstream.ts';
import { SharedDetails } from './shared-details.ts';
import { ZONE_ASK_MS, zoneNameOf } from './zone.ts';

// One poller per upstream service keeps the gateway's index of its requests (contract
// section 8), whatever the number of browsers: they read the index, never the upstream.
// A round asks interfaces.md's requestlist for the service's today (one call: the new
// requests and the status of every request of the day it lists), once more for the day
// before when the service's day has just turned, and requestdetail for a few requests not
// known to have ended that no list showed (earlier days, or beyond the page bound). When
// the day's list is full and its oldest request is new, requests may be missing between
// two rounds: each pipeline's list of the day is then asked for too.
//
// The poller schedules rounds and keeps their outcome, and answers from the index (lists,
// counts, a day's state) on the service's clock; what a round reads is index-round.ts's.
// Several gateways on one store poll each upstream once: rounds run only under the
// service's lease (poller-lease.ts); the others answer from the index all the same.

/**
 * A round waits at least this many times as long as the last one took, so that reading a
 * large day costs the upstream (and this process) at most a third of the time.
 */
const COST_FACTOR = 2;

// An upstream's poller, as its callers reach it (directory.ts sets it): declared here, not in
// upstream.ts, so that the client does not import the poller that stands above it.
declare module './upstream.ts' {
  interface Upstream {
    /** The poller keeping this service's request index, when the server keeps one. */
    poller: IndexPoller | undefined;
  }
}

export interface PollerOptions {
  readonly intervalMs: number;
  /** Longest wait between rounds while the upstream fails or is slow. */
  readonly maxDelayMs?: number;
  readonly now: () => Date;
  readonly log?: (message: string) => void;
  /** Tests drive rounds themselves with pollNow(). */
  readonly scheduled?: boolean;
  /** The service's words for a request that ended failing (contract's `Error` by default). */
  readonly failedStatuses?: readonly string[];
  /** The service's configured time zone (IANA name): its offset wins over the one inferred. */
  readonly zone?: string | undefined;
  /**
   * Rounds of all pollers that may run at once: a whole day of 100,000 requests is held while
   * it is read, so ten services' rounds at once would hold ten.
   */
  readonly rounds?: CallLimiter | undefined;
  /** Told once a round of each request seen failing since the round before (notifications). */
  readonly onFailed?: (request: FailedRequest & { message: string }) => void;
  /** requestdetail reads of failures' evidence per round and per minute (issue 25). */
  readonly evidence?: EvidenceBudget | undefined;
  /** The lease's times (poller-lease.ts's by default; shorter in tests). */
  readonly lease?: LeaseTimings | undefined;
}

/** The index's state (as of when, the clock's offset) and the poller's own. */
export interface PollerState extends Pick<
  IndexState,
  'indexedAt' | 'offsetMinutes' | 'offsetEstimated'
> {
  readonly indexError: string | null;
  /** The code and cause of that error when it is a failure of the upstream (upstream.ts). */
  readonly indexFailure: UpstreamFailure | null;
  /** The wait before the next round: the interval, longer while backing off. */
  readonly pollDelayMs: number;
  /** The zone abbreviation its pipelines' Createdate carries (e.g. JST), once seen. */
  readonly zoneName: string | null;
  /** How long the last successful round took (ms): what the wait is adapted to. */
  readonly lastRoundMs: number | null;
}

export class IndexPoller extends IndexReads {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The round that follows the one under way, once a caller asked for a fresh one. */
  private following: Promise<void> | undefined;
  private delayMs: number;
  private error: string | null = null;
  private failure: UpstreamFailure | null = null;
  private stopped = false;
  /** A change was made through this server during a round. */
  private again = false;
  /** When the round under way began (our clock), while one is. */
  private roundStartedMs: number | undefined;
  private readonly shared = new Map<string, { at: number; answer: Promise<TreeObject> }>();
  /** Ended requests' details, shared by every browser while the index's stamp holds. */
  readonly details: SharedDetails;
  private zoneName: string | null = null;
  private zoneAskedAt = Number.NEGATIVE_INFINITY;
  private lastRoundMs: number | null = null;
  /**
   * Told of each request seen in a status other than the one the index held (metrics),
   * from the second round of this process on: the first sees the day as it stands (a new
   * index) or all that changed while the server was down, which is no rate of anything.
   */
  statusChanged: ((pipelineId: string, status: string) => void) | undefined;
  private telling = false;

  /** What its rounds read of the upstream into the index. */
  private readonly rounds: IndexRound;
  /** Rounds run only while it is held: one poller per upstream across gateways. */
  private readonly lease: PollerLease;

  constructor(
    readonly upstream: Upstream,
    index: RequestIndex,
    private readonly options: PollerOptions,
  ) {
    super(index, upstream.entry.id);
    this.delayMs = options.intervalMs;
    this.details = new SharedDetails(
      upstream,
      index,
      this.service,
      () => options.now().getTime(),
      // A down upstream says so to each browser, as before: nothing kept is answered then.
      () => this.error === null,
    );
    this.lease = new PollerLease(index.sql, this.service, index.holder, options.lease, (m) =>
      options.log?.(m),
    );
    const failedStatuses = options.failedStatuses ?? VENDOR_DEFAULT_WORDS.failed;
    index.attempts.configure(this.service, failedStatuses);
    this.rounds = new IndexRound({
      upstream,
      index,
      now: options.now,
      failedStatuses,
      onFailed: options.onFailed,
      evidence: options.evidence,
      // A lease lost meanwhile (a store gone quiet for its whole time): another polls now.
      stopped: () => this.stopped || !this.lease.held,
      tellStatus: (pipelineId, status) => this.tellStatus(pipelineId, status),
      sharedCall: (operation) => this.sharedCall(operation),
    });
    // What the index already holds (an earlier start's, another gateway's), before a round.
    void this.refresh();
  }

  /**
   * Renews (or tries to take) the lease every LEASE_RENEW_MS, and runs rounds while it
   * holds it: at once when it takes it over.
   */
  start(): void {
    if (this.options.scheduled === false) return;
    this.lease.every(async () => {
      const had = this.lease.held;
      const holds = await this.lease.take();
      if (holds && !had && !this.running && !this.stopped) this.schedule(0);
      if (!holds) await this.refresh();
    });
  }

  /**
   * Stops its rounds and the lease's renewal, the lease kept until it runs out: as the
   * death of its process would (a clean stop then gives it up: release()).
   */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.lease.stop();
  }

  /** Whether this poller holds its service's lease now: it polls, the others only read. */
  get polling(): boolean {
    return this.lease.held;
  }

  /** Waits for the round under way, if any (closing the server). */
  async settled(): Promise<void> {
    await this.running;
    await this.following;
  }

  /** Gives the lease up, once stopped and settled, so that another gateway polls at once. */
  release(): Promise<void> {
    return this.lease.release();
  }

  state(): PollerState {
    const { indexedAt, offsetMinutes, offsetEstimated } = this.known;
    return {
      indexedAt,
      offsetEstimated,
      indexError: this.error,
      indexFailure: this.failure,
      pollDelayMs: this.delayMs,
      offsetMinutes,
      zoneName: this.zoneName,
      lastRoundMs: this.lastRoundMs,
    };
  }

  /**
   * The answer of a call without parameters (list, version), shared by every client for
   * one interval, so that any number of dashboards costs the upstream the same. A change
   * made through this server drops it; a failure is not kept.
   */
  sharedCall(operation: 'list' | 'version'): Promise<TreeObject> {
    const now = this.options.now().getTime();
    const hit = this.shared.get(operation);
    if (hit && now - hit.at < this.options.intervalMs) return hit.answer;
    const answer = this.upstream.call(operation, {});
    const entry = { at: now, answer };
    this.shared.set(operation, entry);
    answer.then(
      (tree) => {
        // Every pipeline list that passes, a browser's included, may tell the zone's name.
        if (operation === 'list') this.zoneName = zoneNameOf(tree) ?? this.zoneName;
      },
      () => {
        if (this.shared.get(operation) === entry) this.shared.delete(operation);
      },
    );
    return answer;
  }

  /** After a change made through this server: a round soon, not a whole interval later. */
  async nudge(requestId?: string): Promise<void> {
    this.shared.clear();
    if (requestId) {
      this.details.forget(requestId);
      await this.index.unsettle(this.service, requestId);
    }
    // Another gateway's poller holds the lease: its next round sees the change.
    if (this.options.scheduled === false || !this.lease.held) return;
    // A round under way may have listed before the change: one more right after it.
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /**
   * The upstream answered again (the 30 s check, a browser's call) while this poller was
   * backing off after failed rounds: a round now, not at the end of a delay of up to a
   * minute, so that the index catches up, and a new failure is seen, at the usual pace.
   */
  answeredAgain(): void {
    if (this.error === null) return;
    this.delayMs = this.options.intervalMs;
    if (this.options.scheduled === false || !this.lease.held || this.running) return;
    this.schedule(0);
  }

  /** What a requestdetail passed through for a browser said: free news for the index. */
  async observed(
    requestId: string,
    detail: { status: string; stage: string; endTime: string; sensorFile?: string },
  ): Promise<void> {
    const changed = await this.index.settle(
      this.service,
      requestId,
      detail,
      this.options.now().getTime(),
    );
    if (changed) this.tellStatus(changed.pipelineId, detail.status);
  }

  private tellStatus(pipelineId: string, status: string): void {
    if (this.telling) this.statusChanged?.(pipelineId, status);
  }

  /** A round that begins now, or right after the one under way: rounds never overlap. */
  pollNow(): Promise<void> {
    if (this.running) {
      // The round under way may have listed before the caller's change: one more after it,
      // shared by every caller meanwhile.
      this.following ??= this.running.then(() => {
        this.following = undefined;
        return this.stopped ? undefined : this.pollNow();
      });
      return this.following;
    }
    const rounds = this.options.rounds;
    this.running = (rounds ? rounds.run(() => this.round()) : this.round()).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * The `since` (yyyymmddhhmmss, the service's zone) a list read now is as of. A round
   * stamps what it learns with the time it began, so while one is under way nothing it
   * writes is later than its start: AsOf goes back to it, and a little more (the
   * embedded service's margin), so that a change is read twice rather than never.
   */
  asOf(): string {
    const now = this.options.now().getTime();
    const from = Math.min(now, this.roundStartedMs ?? now) - AS_OF_MARGIN_MS;
    const local = new Date(from + this.offsetMinutes(from) * 60_000).toISOString();
    return local.slice(0, 19).replace(/\D/g, '');
  }

  /** A `since` stamp of the service's zone (`YYYY-MM-DD hh:mm:ss`) on our clock. */
  sinceMs(stamp: string): number {
    const asUtc = Date.parse(`${stamp.replace(' ', 'T')}Z`);
    return asUtc - this.offsetMinutes(asUtc) * 60_000;
  }

  /**
   * Minutes the service's clock is ahead of UTC at `atMs`: its configured zone's, else what
   * its requests' begin times told, else none. AsOf and since share it, so that a stamp
   * goes out and comes back on the same clock.
   */
  private offsetMinutes(atMs: number): number {
    const { zone } = this.options;
    if (zone) return offsetAt(zone, new Date(atMs));
    return this.known.offsetMinutes ?? 0;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pollNow().then(() => {
        const delay = this.again ? 0 : this.delayMs;
        this.again = false;
        // Without the lease the rounds wait: the lease's renewal starts them once it has it.
        if (this.lease.held) this.schedule(delay);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    // A round (a test's pollNow() too) takes or renews the lease first: without it, another
    // gateway polls, and this one only reads what that one keeps.
    if (this.stopped || !(await this.lease.take())) {
      await this.refresh();
      return;
    }
    const started = this.options.now();
    const startedMs = started.getTime();
    this.roundStartedMs = startedMs;
    try {
      await this.roundFrom(started);
    } finally {
      this.roundStartedMs = undefined;
    }
  }

  private async roundFrom(started: Date): Promise<void> {
    const startedMs = started.getTime();
    const interval = this.options.intervalMs;
    const maxDelay = this.options.maxDelayMs ?? Math.max(60_000, interval * 12);
    try {
      const before = await this.refresh();
      const done = await this.rounds.read(started, before);
      await this.refresh();
      if (!done) return;
      this.error = null;
      this.failure = null;
      this.telling = true;
      await this.askZoneName(startedMs);
      // The first round of a new index sees the day as it stands: nothing to tell of then.
      if (before.indexedAt !== null) await this.rounds.tellFailed(Date.parse(before.indexedAt));
      const took = this.options.now().getTime() - startedMs;
      this.lastRoundMs = took;
      // A costly round (a large day, a slow upstream) waits longer, up to the bound.
      this.delayMs = Math.max(interval, Math.min(maxDelay, took * COST_FACTOR));
    } catch (error) {
      this.error = (error as Error).message;
      this.failure = upstreamFailureOf(error);
      this.delayMs = Math.min(Math.max(this.delayMs, interval) * 2, maxDelay);
      this.options.log?.(`index of service ${this.service}: ${this.error}`);
    }
  }

  /**
   * The pipeline list once in a while until its dates have told the zone's name: interfaces.md
   * gives requests' dates without one. A failure here is no failure of the index.
   */
  private async askZoneName(nowMs: number): Promise<void> {
    if (this.zoneName !== null || nowMs - this.zoneAskedAt < ZONE_ASK_MS || this.stopped) return;
    this.zoneAskedAt = nowMs;
    try {
      await this.sharedCall('list');
    } catch {
      // Asked again after ZONE_ASK_MS; the offset alone still tells the zone meanwhile.
    }
  }
}
