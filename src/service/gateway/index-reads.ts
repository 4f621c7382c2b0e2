import type { IndexFilter, IndexState, RequestIndex } from '../db/index/request-index.ts';
import {
  upstreamRequestCounts,
  upstreamRequestStats,
  type IndexedCount,
  type RequestStats,
} from '../db/index/request-stats.ts';

// What a gateway answers from the request index of an upstream (contract section 8): a
// day's list, its counts and whether the index holds all of it. Every gateway of one store
// answers so, whether its poller holds the service's lease (poller.ts) or another's does.

export class IndexReads {
  /**
   * The index's state as last read (after each round, and at each lease renewal): what
   * state(), asOf() and sinceMs() answer from at once, on a gateway that polls or not.
   */
  protected known: IndexState = {
    today: null,
    indexedAt: null,
    offsetMinutes: null,
    offsetEstimated: false,
  };

  constructor(
    readonly index: RequestIndex,
    /** The service's id. */
    readonly service: string,
  ) {}

  /** Reads the index's state anew (another gateway's poller may keep it). */
  protected async refresh(): Promise<IndexState> {
    try {
      this.known = await this.index.state(this.service);
    } catch {
      // The store unreachable: the last state read stands, and is read again next time.
    }
    return this.known;
  }

  /** The index's answer for a day it watched, or undefined to ask the upstream. */
  async list(day: string | undefined, filter: IndexFilter, index: number, pageSize: number) {
    const asked = await this.watched(day);
    if (asked === undefined) return undefined;
    return { day: asked, ...(await this.index.list(this.service, asked, filter, index, pageSize)) };
  }

  /**
   * RequestStats (contract section 8) of a day the index watched, the service's today when
   * none is named; undefined for a day it did not watch (before it began).
   */
  async stats(day: string | undefined, pipelineId?: string): Promise<RequestStats | undefined> {
    const asked = await this.watched(day);
    return asked === undefined
      ? undefined
      : upstreamRequestStats(this.index, this.service, asked, pipelineId);
  }

  /** The per pipeline, hour and status counts of a watched day, as `stats` but unsummed. */
  async counts(
    day: string | undefined,
    pipelineId?: string,
  ): Promise<{ day: string; counts: IndexedCount[] } | undefined> {
    const asked = await this.watched(day);
    return asked === undefined
      ? undefined
      : {
          day: asked,
          counts: await upstreamRequestCounts(this.index, this.service, asked, pipelineId),
        };
  }

  /**
   * Whether the index holds every request of a day (the service's today when none is
   * named): `missed` when an answer of the upstream was full even per pipeline, so that
   * some of the day's requests were never listed.
   */
  async dayState(day: string | undefined): Promise<'complete' | 'missed' | 'unwatched'> {
    const asked = day ?? (await this.refresh()).today ?? undefined;
    const seen = asked === undefined ? undefined : await this.index.day(this.service, asked);
    return seen === undefined ? 'unwatched' : seen.complete ? 'complete' : 'missed';
  }

  /**
   * The day asked (the service's today when none is), if the index holds all of it: a day
   * it watched but could not list whole is answered as one it did not watch, because
   * counts and totals from it would not be exact.
   */
  private async watched(day: string | undefined): Promise<string | undefined> {
    const asked = day ?? (await this.refresh()).today ?? undefined;
    return asked !== undefined && (await this.dayState(asked)) === 'complete' ? asked : undefined;
  }
}
