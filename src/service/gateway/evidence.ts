import type { TreeObject } from '../../kit/index.ts';
import type { FailureEvidence, KeptLogLine } from '../db/index/attempt-record.ts';
import { LOG_LINES } from '../db/index/attempts.ts';
import type { RequestIndex } from '../db/index/request-index.ts';
import { ApiError } from '../errors.ts';
import { elementOf, elementsOf, failureWordsOf, leafText } from '../../kit/index.ts';
import type { Upstream } from './upstream.ts';
import { normalDate } from './zone.ts';

// The evidence of a failure, read when the poller first sees it (issue 25): a vendor
// rewrites a request's log when it is retried, so what it said then is read once, at
// once, and kept with the attempt. Reads go within a budget of a few per round and at most
// so many a minute per service; what is over it waits in the index (evidence 'due') and is
// read over the next rounds, the longest waiting first. A read that fails is tried again
// next round.

/** requestdetail reads of failures a round makes at most, by default. */
export const EVIDENCE_PER_ROUND = 10;
/** ... and a minute, per service. */
export const EVIDENCE_PER_MINUTE = 60;

export interface EvidenceBudget {
  readonly perRound?: number | undefined;
  readonly perMinute?: number | undefined;
  /**
   * Whether reads the failures leave over ask the files of finished requests (for `q`).
   * Off unless asked, since it costs the upstream a read per request where a list costs one
   * per round: the directory asks it for every upstream whose entry does not turn it off
   * (`fileNames`, `--upstream-file-names`). Files are learnt from every other detail read
   * anyway (failures, unfinished requests, a browser's).
   */
  readonly files?: boolean | undefined;
}

/**
 * What a requestdetail with both logs says of a failure: its words (the kit's one rule, ''
 * when the service wrote no reason) and the last lines. `isFailed`: the service's failed words.
 */
export function evidenceOf(
  detail: TreeObject,
  isFailed: (status: string) => boolean,
): FailureEvidence & { status: string } {
  const d = elementOf(detail.RequestDetail);
  const requestLog = elementsOf(elementOf(d.RequestLog).Log).map((l) => ({
    date: leafText(l.Date),
    event: leafText(l.Event),
    status: leafText(l.Status),
    message: leafText(l.Message),
  }));
  const appLog = elementsOf(elementOf(d.AppLog).Log).map((l) => ({
    date: leafText(l.Date),
    type: leafText(l.Type),
    message: leafText(l.Message),
  }));
  const status = leafText(d.Status);
  const log: KeptLogLine[] = (
    appLog.length > 0
      ? appLog
      : // A service without an application log: its request log's lines stand in for it.
        requestLog.map(({ date, status: type, message }) => ({ date, type, message }))
  ).slice(-LOG_LINES);
  return {
    status,
    message: failureWordsOf({ status, requestLog, appLog }, isFailed) ?? '',
    log,
    sensorFile: leafText(d.SensorFile),
    beginTime: normalDate(leafText(d.BeginTime)).date,
    endTime: normalDate(leafText(d.EndTime)).date,
  };
}

export class EvidenceReader {
  /** Our clock (epoch ms) of each read in the last minute. */
  private readonly reads: number[] = [];

  constructor(
    private readonly upstream: Upstream,
    private readonly index: RequestIndex,
    private readonly now: () => Date,
    private readonly budget: EvidenceBudget = {},
  ) {}

  private get service(): string {
    return this.upstream.entry.id;
  }

  /** Reads left this minute. */
  private left(): number {
    const nowMs = this.now().getTime();
    while (this.reads.length > 0 && (this.reads[0] as number) <= nowMs - 60_000) this.reads.shift();
    return Math.max(0, (this.budget.perMinute ?? EVIDENCE_PER_MINUTE) - this.reads.length);
  }

  /** One round's reads: the failures waiting longest, within the budget. Returns how many. */
  async round(stopped: () => boolean): Promise<number> {
    const limit = Math.min(this.budget.perRound ?? EVIDENCE_PER_ROUND, this.left());
    if (limit === 0) return 0;
    const due = await this.index.attempts.due(this.service, limit);
    let made = 0;
    for (const { requestId, attempt } of due) {
      if (stopped()) break;
      made++;
      await this.read(requestId, attempt);
    }
    // What is left of the budget may ask the files of finished requests no detail told yet
    // (for `q`), the newest first: a list does not give them.
    const spare = this.budget.files === true ? limit - made : 0;
    for (const requestId of await this.index.attempts.fileless(this.service, spare)) {
      if (stopped()) break;
      made++;
      await this.readFile(requestId);
    }
    return made;
  }

  private async readFile(requestId: string): Promise<void> {
    this.reads.push(this.now().getTime());
    try {
      const tree = await this.upstream.call('requestdetail', { requestid: requestId });
      await this.index.attempts.noteFile(
        this.service,
        requestId,
        leafText(elementOf(tree.RequestDetail).SensorFile),
      );
    } catch (error) {
      // Gone: asked no more (as a file of none). Anything else: asked again later.
      if (error instanceof ApiError && error.httpStatus === 404)
        await this.index.attempts.noteFile(this.service, requestId, '');
    }
  }

  /**
   * The kept words of a request's latest failure, read now if they are still due and the
   * budget allows (a notification's message); '' when they cannot be had.
   */
  async messageOf(requestId: string): Promise<string> {
    const { attempts } = this.index;
    const kept = await attempts.failureOf(this.service, requestId);
    if (kept !== undefined) return kept;
    const latest = (await attempts.list(this.service, requestId)).at(-1);
    if (latest?.evidence !== 'due' || this.left() === 0) return '';
    await this.read(requestId, latest.attempt);
    return (await attempts.failureOf(this.service, requestId)) ?? '';
  }

  private async read(requestId: string, attempt: number): Promise<void> {
    const { attempts } = this.index;
    this.reads.push(this.now().getTime());
    let tree: TreeObject;
    try {
      tree = await this.upstream.call('requestdetail', {
        requestid: requestId,
        requestlog: 'true',
        applog: 'true',
      });
    } catch (error) {
      // Gone from the service: nothing to read, ever. Anything else: next round.
      const gone = error instanceof ApiError && error.httpStatus === 404;
      await attempts.missed(this.service, requestId, attempt, gone);
      return;
    }
    const evidence = evidenceOf(tree, (status) => attempts.isFailed(this.service, status));
    const latest = (await attempts.list(this.service, requestId)).at(-1);
    if (!attempts.isFailed(this.service, evidence.status) || latest?.attempt !== attempt) {
      // Retried before it was read: what the service says now is another attempt's.
      await attempts.noteFile(this.service, requestId, evidence.sensorFile);
      await attempts.missed(this.service, requestId, attempt, true);
      return;
    }
    await attempts.keep(this.service, requestId, attempt, evidence);
  }
}
