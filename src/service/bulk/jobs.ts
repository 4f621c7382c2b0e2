import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AuditSubject } from '../audit/audit-log.ts';
import type { ServiceContext } from '../context.ts';
import {
  createBulkJob,
  getBulkJob,
  markEnded,
  markJobDone,
  markResumed,
  markStarted,
  nextBulkItems,
  runningBulkJobs,
  type BulkItemRow,
  type BulkJobRow,
  type BulkSelection,
} from '../db/system/bulk-jobs.ts';
import { listRequests, matchingRequestIds } from '../db/status/request-list.ts';
import { getRequest } from '../db/status/requests.ts';
import { ApiError, stateConflict } from '../errors.ts';
import { operations } from '../pipelineapi/operations.ts';
import { Params } from '../pipelineapi/params.ts';

// Bulk retry or cancel of a day's requests by filter (issue 14, item 4). The requests are
// chosen once, when the job starts, and kept with the job in the system database; the job
// then runs them in bounded batches through the same operations as a single retry or
// cancel, each call in the audit log under the person who started the job. A stop ends
// the current batch; the next start resumes every unfinished job.

/** Requests per batch; between batches the event loop serves other calls. */
export const BULK_BATCH = 100;
/** Request ids a preview shows. */
export const PREVIEW_IDS = 20;

export interface BulkStarter {
  readonly reason: string;
  readonly address: string;
  readonly subject: Pick<AuditSubject, 'userName' | 'via'>;
}

type Ended = { outcome: 'ok' | 'refused' | 'failed'; httpStatus: number; message: string };

const OPERATION = { retry: 'requestretry', cancel: 'requestcancel' } as const;

export class BulkJobs {
  private readonly queue: number[] = [];
  private running: Promise<void> | undefined;
  private stopping = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly log: (message: string, error: unknown) => void,
  ) {}

  /** The exact count of what a job would do, and the first requests it would do. */
  preview(selection: BulkSelection): { total: number; first: string[] } {
    const page = listRequests(
      this.ctx.dbs.status,
      selection.day,
      selection.pipelineId,
      0,
      PREVIEW_IDS,
      { statuses: selection.statuses, text: selection.q },
    );
    return { total: page.total, first: page.rows.map((r) => r.REQUESTID) };
  }

  /**
   * Chooses the requests and records the job; it runs after the answer. With `expected`,
   * a selection that changed since the preview is refused rather than run.
   */
  start(selection: BulkSelection, starter: BulkStarter, expected: number | undefined): number {
    if (this.stopping) throw stateConflict('The service is stopping; start the job again after.');
    const ids = matchingRequestIds(this.ctx.dbs.status, selection.day, selection.pipelineId, {
      statuses: selection.statuses,
      text: selection.q,
    });
    if (expected !== undefined && ids.length !== expected) {
      throw stateConflict(
        `${ids.length} requests match now, not ${expected}: look at the selection again.`,
      );
    }
    const id = createBulkJob(
      this.ctx.dbs.system,
      selection,
      {
        reason: starter.reason,
        userName: starter.subject.userName,
        via: starter.subject.via,
        address: starter.address,
      },
      this.ctx.clock.now().toISOString(),
      ids,
    );
    if (ids.length > 0) this.enqueue(id);
    return id;
  }

  /** Resumes the jobs a stop or a crash left unfinished. */
  resume(): void {
    for (const job of runningBulkJobs(this.ctx.dbs.system)) {
      markResumed(this.ctx.dbs.system, job.id, this.ctx.clock.now().toISOString());
      this.enqueue(job.id);
    }
  }

  /** Ends after the current batch; unfinished jobs stay recorded as running. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Resolves when no job is left to run (for tests and shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private enqueue(id: number): void {
    this.queue.push(id);
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
  }

  private async loop(): Promise<void> {
    // Jobs run one after another: two jobs together would only compete for the engine.
    while (!this.stopping && this.queue.length > 0) {
      const id = this.queue[0] as number;
      try {
        await this.run(id);
      } catch (error) {
        // A database that cannot be written: the job stays running, resumed at the next start.
        this.log(`bulk job ${id} stopped`, error);
        return;
      }
      this.queue.shift();
    }
  }

  private async run(id: number): Promise<void> {
    const db = this.ctx.dbs.system;
    const job = getBulkJob(db, id);
    if (!job || job.state !== 'running') return;
    // Started but not ended: the process stopped between the call and its outcome.
    for (const item of nextBulkItems(db, id, 'started', Number.MAX_SAFE_INTEGER)) {
      await this.settleStarted(job, item);
    }
    for (;;) {
      if (this.stopping) return;
      const batch = nextBulkItems(db, id, 'pending', BULK_BATCH);
      if (batch.length === 0) break;
      // The whole batch is marked started in one commit before any call, and its outcomes
      // and audit entries written in one after: a crash in between leaves started items,
      // which the next start settles by looking at the requests themselves.
      const now = this.ctx.clock.now().toISOString();
      db.transaction(() => {
        for (const item of batch) markStarted(db, id, item.seq, now);
      })();
      const ended: [BulkItemRow, Ended][] = [];
      for (const item of batch) ended.push([item, await this.call(job, item)]);
      db.transaction(() => {
        for (const [item, outcome] of ended) this.end(job, item, outcome);
      })();
      await nextTurn();
    }
    markJobDone(db, id, this.ctx.clock.now().toISOString());
  }

  /**
   * A request still in a status the job selects was not changed: it is done now. One that
   * left it was (by this job before the stop, or by someone else meanwhile): reported so.
   */
  private async settleStarted(job: BulkJobRow, item: BulkItemRow): Promise<void> {
    const request = getRequest(this.ctx.dbs.status, item.requestId);
    if (request && job.statuses.includes(request.status)) {
      await this.apply(job, item);
      return;
    }
    this.end(job, item, {
      outcome: 'ok',
      httpStatus: 200,
      message: request
        ? `Done before the restart: the request is now ${request.status}.`
        : 'The request no longer exists.',
    });
  }

  private async apply(job: BulkJobRow, item: BulkItemRow): Promise<void> {
    markStarted(this.ctx.dbs.system, job.id, item.seq, this.ctx.clock.now().toISOString());
    this.end(job, item, await this.call(job, item));
  }

  /** One request through the same operation as a single retry or cancel. */
  private async call(job: BulkJobRow, item: BulkItemRow): Promise<Ended> {
    try {
      await operations[OPERATION[job.action]](
        this.ctx,
        new Params({ requestid: item.requestId }, undefined),
      );
      return { outcome: 'ok', httpStatus: 200, message: 'Success' };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return {
        outcome: error.httpStatus >= 500 ? 'failed' : 'refused',
        httpStatus: error.httpStatus,
        message: error.message,
      };
    }
  }

  private end(job: BulkJobRow, item: BulkItemRow, ended: Ended): void {
    markEnded(
      this.ctx.dbs.system,
      job.id,
      item.seq,
      ended.outcome,
      ended.message,
      this.ctx.clock.now().toISOString(),
    );
    this.ctx.audit.onBehalf(
      {
        address: job.address,
        subject: { userName: job.userName, via: job.via, requestId: item.requestId },
      },
      {
        operation: OPERATION[job.action],
        service: job.service,
        parameters: { requestid: item.requestId, bulkjob: String(job.id), reason: job.reason },
      },
      {
        httpStatus: ended.httpStatus,
        status: ended.outcome === 'ok' ? 'OK' : ended.httpStatus >= 500 ? 'SystemError' : 'Error',
        message: ended.message,
      },
    );
  }
}
