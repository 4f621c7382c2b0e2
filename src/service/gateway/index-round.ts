import type { TreeObject } from '../../kit/index.ts';
import type { FailedRequest, IndexState, RequestIndex } from '../db/index/request-index.ts';
import { ApiError } from '../errors.ts';
import { listedPipelines, readDay } from './day-list.ts';
import { EvidenceReader, type EvidenceBudget } from './evidence.ts';
import { elementOf, elementsOf, leafText } from '../../kit/index.ts';
import { DAY_LIST, FIRST_PAGE, PROBE_EVERY_MS, probePaging } from './paging.ts';
import { upstreamFailureOf, type Upstream } from './upstream.ts';
import { offsetFrom } from './zone.ts';

// What one round of a poller (poller.ts) reads of its upstream into the index: how it pages
// (hourly), the service's today (and the day before when its day has just turned), each
// pipeline's list when a day's was full, a few requests no list showed, the evidence of
// failures, and, after the round, the failures to tell of. The poller schedules rounds and
// keeps their outcome; this holds what they read.

/**
 * A round begun at most this long after the last one can tell the zone from a request new
 * since: it began in between, and an offset is told to the nearest quarter hour.
 */
const ZONE_FROM_NEW_MS = 7 * 60_000;

/** Whether what an upstream states of its lists tells a cut answer by itself. */
function pagingTells(paging: Upstream['paging']): boolean {
  return (
    paging.total === 'stated' ||
    paging.next === 'stated' ||
    paging.index === 'honoured' ||
    paging.index === 'pages' ||
    paging.pagesize === 'ignored'
  );
}

/** requestdetail calls a round may make for requests no list showed. */
const DETAILS_PER_ROUND = 20;

/** What a round reads with and tells to: the poller it works for. */
export interface RoundHost {
  readonly upstream: Upstream;
  readonly index: RequestIndex;
  readonly now: () => Date;
  /** The service's words for a request that ended failing (contract's `Error` by default). */
  readonly failedStatuses: readonly string[];
  readonly onFailed: ((request: FailedRequest & { message: string }) => void) | undefined;
  readonly evidence: EvidenceBudget | undefined;
  /** Whether the poller was stopped: a round under way ends at its next call. */
  stopped(): boolean;
  /** A request seen in another status than the index held (metrics). */
  tellStatus(pipelineId: string, status: string): void;
  /** The pipeline list, shared by every client for one interval. */
  sharedCall(operation: 'list'): Promise<TreeObject>;
}

export class IndexRound {
  /** Reads the evidence of failures within a budget (issue 25). */
  readonly evidence: EvidenceReader;

  constructor(private readonly host: RoundHost) {
    this.evidence = new EvidenceReader(host.upstream, host.index, host.now, host.evidence);
  }

  private get service(): string {
    return this.host.upstream.entry.id;
  }

  /**
   * Reads a round begun at `started` into the index, `before` being its state then, and
   * marks the index as of then: true once done, false when the poller stopped it first.
   * Throws what failed.
   */
  async read(started: Date, before: IndexState): Promise<boolean> {
    const { upstream, index } = this.host;
    const startedMs = started.getTime();
    await this.probe(started);
    let listed = await this.listDay(undefined, startedMs);
    // New to this round: read before the day may be read again below, which finds none new.
    const { newest } = listed;
    // A cap learnt now: the rounds before took cut answers for whole days, so requests may
    // be missing wherever they were read: the day is read again with its pipelines' lists.
    if (await this.checkStuckCount(listed))
      listed = await this.listDay(undefined, startedMs, { cut: true });
    // An empty list that names no day: still the day the service last named.
    const day = listed.day || before.today;
    if (!day) throw new Error(`service ${upstream.name} did not say which day it lists`);
    if (before.today && before.today !== day) await this.listDay(before.today, startedMs);
    for (const requestId of await index.unsettled(this.service, startedMs, DETAILS_PER_ROUND)) {
      // Closing the server waits for this round: at most one more call's timeout.
      if (this.host.stopped()) return false;
      await this.detail(requestId);
    }
    // A failure's words and log lines, read before a retry can rewrite them (issue 25).
    await this.evidence.round(() => this.host.stopped());
    // A request new since the last round began between it and now: its begin time tells the
    // zone, to the quarter hour when that round was recent. Else (a first round: the day's
    // newest may be hours old) it only tells a zone not known yet, never replaces one.
    const recent =
      before.indexedAt !== null && startedMs - Date.parse(before.indexedAt) <= ZONE_FROM_NEW_MS;
    const minutes =
      newest && (recent || before.offsetMinutes === null)
        ? offsetFrom(newest.beginDate, started)
        : undefined;
    const offset = minutes === undefined ? undefined : { minutes, estimated: !recent };
    await index.markIndexed(this.service, day, started, offset);
    return true;
  }

  /** How the upstream pages, asked at the first round and every hour (contract section 12). */
  private async probe(now: Date): Promise<void> {
    const { upstream } = this.host;
    const { probedAt } = upstream.paging;
    if (probedAt !== null && now.getTime() - Date.parse(probedAt) < PROBE_EVERY_MS) return;
    // What it refused at once is asked again: a busy hour is not its limit for ever.
    upstream.limiter.reset();
    try {
      upstream.paging = await probePaging(upstream, now);
      upstream.forgetListCaps();
      await this.crossCheck();
    } catch (error) {
      // Reads decide from what their own answers show meanwhile; asked again next round.
      const failure = upstreamFailureOf(error);
      upstream.learnPaging({
        probeError: (error as Error).message,
        probeErrorCode: failure?.code ?? (error instanceof ApiError ? error.code : null),
        probeErrorCause: failure?.cause ?? null,
      });
      throw error;
    }
  }

  /**
   * A short answer is whole only if the upstream does not cut answers short on its own. When
   * nothing it states can tell (no Total, no truthful Next, no index), its pipelines' lists
   * are read beside the day's: more requests among them than in the day's list means the
   * day's was cut, at that many rows (`listed`: the day's count as just read). Hourly, with
   * the probe, and when the day's count stops moving (checkStuckCount). True: a cap learnt.
   */
  private async crossCheck(listed?: number): Promise<boolean> {
    const { upstream } = this.host;
    if (pagingTells(upstream.paging)) return false;
    const count =
      listed ??
      elementsOf(
        elementOf(
          (await upstream.call('requestlist', { pagesize: String(FIRST_PAGE) })).RequestList,
        ).Request,
      ).length;
    if (count === 0 || count >= FIRST_PAGE) return false;
    const seen = new Set<string>();
    for (const id of listedPipelines(await this.host.sharedCall('list'))) {
      const tree = await upstream.call('requestlist', { id, pagesize: String(FIRST_PAGE) });
      for (const r of elementsOf(elementOf(tree.RequestList).Request))
        seen.add(leafText(r.RequestId));
      if (seen.size > count) {
        upstream.learnList(
          DAY_LIST,
          { cap: count },
          `the day's list held ${count} requests, its pipelines' lists more`,
        );
        return true;
      }
    }
    return false;
  }

  /** The day's count in the last round, and the last count checked against the pipelines'. */
  private lastCount = -1;
  private checkedCount = -1;

  /**
   * A quiet cap shows as a day's count that stops moving while the day goes on (newest
   * first, its oldest fall off the end; oldest first, its newest never come). A count seen
   * again where nothing the upstream states can tell is checked once against the pipelines'
   * lists: a quiet day costs one check per count it rests at, a cut day is found a round
   * after it passes the cap, not at the next hourly probe.
   */
  private async checkStuckCount(listed: {
    readonly requests: readonly unknown[];
    readonly whole: boolean;
  }): Promise<boolean> {
    const count = listed.requests.length;
    const stuck = count === this.lastCount;
    this.lastCount = count;
    const { cap } = this.host.upstream.pagingOf(DAY_LIST);
    if (!stuck || !listed.whole || cap !== null || count === this.checkedCount) return false;
    this.checkedCount = count;
    return this.crossCheck(count);
  }

  private async listDay(day: string | undefined, nowMs: number, { cut = false } = {}) {
    const listed = await readDay(this.host.upstream, { date: day });
    const stated = listed.day || day || '';
    if (!stated) return { ...listed, newest: undefined };
    const { gap, entered, newest } = await this.host.index.ingest(
      this.service,
      stated,
      listed.requests,
      !listed.whole,
      nowMs,
    );
    for (const r of entered) this.host.tellStatus(r.pipelineId, r.status);
    // More requests than the upstream gives in one read: each pipeline's list reaches further.
    const complete = gap || cut ? await this.listByPipeline(stated, nowMs) : true;
    await this.host.index.markDay(this.service, stated, complete);
    return { ...listed, day: stated, newest };
  }

  /** The day's list of each pipeline; false when one of them, too, may miss requests. */
  private async listByPipeline(day: string, nowMs: number): Promise<boolean> {
    const { upstream, index } = this.host;
    const pipelines = listedPipelines(await this.host.sharedCall('list'));
    let complete = true;
    for (const id of pipelines) {
      if (this.host.stopped()) return false;
      const { requests, whole } = await readDay(upstream, { id, date: day });
      const { gap, entered } = await index.ingest(this.service, day, requests, !whole, nowMs);
      for (const r of entered) this.host.tellStatus(r.pipelineId, r.status);
      if (gap) complete = false;
    }
    return complete;
  }

  /**
   * Each request seen failing since `sinceMs`, with the last line of its application log
   * (for a few per round; the rest are told without it). The notifier's claims keep a request and
   * state from being told twice, whatever the rounds overlap.
   */
  async tellFailed(sinceMs: number): Promise<void> {
    const { onFailed, failedStatuses } = this.host;
    if (!onFailed) return;
    const failed = await this.host.index.failedSince(this.service, sinceMs, failedStatuses);
    for (const request of failed) {
      // interfaces.md's detail has no message of its own: the words the failure's evidence
      // kept (its request log's last message, else its application log's last line), read
      // within the evidence budget; told without them beyond it.
      const message = this.host.stopped() ? '' : await this.evidence.messageOf(request.requestId);
      onFailed({ ...request, message });
    }
  }

  private async detail(requestId: string): Promise<void> {
    const { upstream, index } = this.host;
    const nowMs = this.host.now().getTime();
    let tree: TreeObject;
    try {
      tree = await upstream.call('requestdetail', { requestid: requestId });
    } catch (error) {
      if (error instanceof ApiError && error.httpStatus === 404) {
        await index.settle(this.service, requestId, 'gone', nowMs);
        return;
      }
      throw error;
    }
    const d = elementOf(tree.RequestDetail);
    const status = leafText(d.Status);
    const changed = await index.settle(
      this.service,
      requestId,
      {
        status,
        stage: leafText(d.Stage),
        endTime: leafText(d.EndTime),
        sensorFile: leafText(d.SensorFile),
      },
      nowMs,
    );
    if (changed) this.host.tellStatus(changed.pipelineId, status);
  }
}
