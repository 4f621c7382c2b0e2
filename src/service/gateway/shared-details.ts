import { elementOf, elementsOf, type TreeObject } from '../../kit/index.ts';
import type { RequestIndex } from '../db/index/request-index.ts';
import type { Upstream } from './upstream.ts';

// The details of ended requests, shared by every browser (contract section 8: any number of
// dashboards costs the upstream the same). Each open overview reads its latest errors'
// details, and each request page its request's: for an ended request these say the same
// until it runs again, so one read serves all while the index's stamp of the request holds.
// A retry or cancel through any gateway of the store clears the stamp (unsettle), and so does
// a change a round sees; a detail of a request that runs or waits is never kept.

/** Details kept at most per upstream: the oldest goes first. */
export const SHARED_DETAILS = 32;
/** However still its stamp, a kept detail is read again after this long. */
export const SHARED_DETAIL_MS = 5 * 60_000;
/**
 * A detail of more log lines than this is not kept: a vendor's logs may be long, and what a
 * gateway holds must not grow with them (32 details of at most this many lines each).
 */
export const SHARED_DETAIL_LINES = 1_000;

/** The lines of both logs in a requestdetail answer. */
function logLines(tree: TreeObject): number {
  const detail = elementOf(tree.RequestDetail);
  return ['RequestLog', 'AppLog'].reduce(
    (sum, log) => sum + elementsOf(elementOf(detail[log]).Log).length,
    0,
  );
}

interface Kept {
  readonly stamp: string;
  readonly at: number;
  readonly answer: Promise<TreeObject>;
}

export type DetailFields = Readonly<{ requestid: string; requestlog: string; applog: string }>;

export class SharedDetails {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly upstream: Upstream,
    private readonly index: RequestIndex,
    private readonly service: string,
    private readonly now: () => number,
    /** Whether the upstream answered the last round: while it does not, every read is its own. */
    private readonly answering: () => boolean,
  ) {}

  /** The requestdetail answer: a kept one while its request's stamp holds, else read now. */
  async read(fields: DetailFields): Promise<TreeObject> {
    const stamp = this.answering()
      ? await this.index.endedStamp(this.service, fields.requestid)
      : undefined;
    if (stamp === undefined) return this.upstream.call('requestdetail', fields);
    const key = JSON.stringify([fields.requestid, fields.requestlog, fields.applog]);
    const now = this.now();
    const hit = this.kept.get(key);
    if (hit && hit.stamp === stamp && now - hit.at < SHARED_DETAIL_MS) return hit.answer;
    const answer = this.upstream.call('requestdetail', fields);
    const entry = { stamp, at: now, answer };
    this.kept.delete(key);
    this.kept.set(key, entry);
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= SHARED_DETAILS) break;
      this.kept.delete(oldest);
    }
    // A failure is not kept, nor a long log: the next browser asks again.
    const drop = () => {
      if (this.kept.get(key) === entry) this.kept.delete(key);
    };
    answer.then((tree) => {
      if (logLines(tree) > SHARED_DETAIL_LINES) drop();
    }, drop);
    return answer;
  }

  /** A retry or cancel made through this gateway: nothing kept of that request holds. */
  forget(requestId: string): void {
    for (const key of this.kept.keys())
      if ((JSON.parse(key) as string[])[0] === requestId) this.kept.delete(key);
  }
}
