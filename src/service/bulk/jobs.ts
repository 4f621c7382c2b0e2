import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AuditSubject } from '../audit/audit-log.ts';
import { lostRole } from '../auth/service-roles.ts';
import type { ServiceContext } from '../context.ts';
import {
  createBulkJob,
  getBulkJob,
  markEnded,
  markJobDone,
  markJobStopped,
  markResumed,
  markStarted,
  nextBulkItems,
  runningBulkJobs,
  type BulkItemRow,
  type BulkJobRow,
  type BulkSelection,
} from '../db/system/bulk-jobs.ts';
import { ApiError, stateConflict } from '../errors.ts';
import { backendOf, type BulkBackend, type CallOutcome } from './backend.ts';

// Bulk retry or cancel of a day's requests by filter (issue 14, item 4). The requests are
// chosen once, when the job starts, and kept with the job in the system database; the job
// then runs them in bounded batches through the same operations as a single retry or
// cancel, each call in the audit log under the person who started the job. A stop ends
// after the call under way; the next start resumes every unfinished job. What differs between
// the embedded engine and a service behind the gateway is its BulkBackend (backend.ts).
// A job started by a person acts only while that person may (issue 24, item 6): their role
// on the job's service is read again when the job resumes and before each batch, and a job
// whose starter was removed or lost the role stops there, saying so.

/** Requests per batch; between batches the event loop serves other calls. */
export const BULK_BATCH = 100;
export { PREVIEW_IDS } from './backend.ts';

export interface BulkStarter {
  readonly reason: string;
  readonly address: string;
  readonly subject: Pick<AuditSubject, 'userName' | 'via'>;
}

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
  preview(selection: BulkSelection): Promise<{ total: number; first: string[] }> {
    return this.backend(selection.service).preview(selection);
  }

  /**
   * Chooses the requests and records the job; it runs after the answer. With `expected`,
   * a selection that changed since the preview is refused rather than run.
   */
  async start(
    selection: BulkSelection,
    starter: BulkStarter,
    expected: number | undefined,
  ): Promise<number> {
    if (this.stopping) throw stateConflict('The service is stopping; start the job again after.');
    const ids = await this.backend(selection.service).select(selection);
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

  /** Ends after the call under way; unfinished jobs stay recorded as running. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Resolves when no job is left to run (for tests and shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** The backend of a service this server answers for (routes checked it exists). */
  backend(service: string): BulkBackend {
    const backend = backendOf(this.ctx, service);
    if (!backend) throw new Error(`no service ${service} here`);
    return backend;
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
    // A service taken out of the configuration: the job waits, recorded, until it is back.
    const backend = backendOf(this.ctx, job.service);
    if (!backend) {
      this.log(`bulk job ${id} waits`, new Error(`service ${job.service} is not configured`));
      return;
    }
    // Before anything is called again: a starter removed or demoted meanwhile stops it.
    if (this.stoppedForStarter(job)) return;
    // Started but not ended: the process stopped between the call and its outcome.
    for (const item of nextBulkItems(db, id, 'started', Number.MAX_SAFE_INTEGER)) {
      if (this.stopping) return;
      await this.settleStarted(backend, job, item);
    }
    for (;;) {
      if (this.stopping) return;
      const batch = nextBulkItems(db, id, 'pending', BULK_BATCH);
      if (batch.length === 0) break;
      // Read at each batch, as a single call reads it: a role revoked meanwhile holds now.
      if (this.stoppedForStarter(job)) return;
      // The whole batch is marked started in one commit before any call, and its outcomes
      // and audit entries written in one after: a crash in between leaves started items,
      // which the next start settles by looking at the requests themselves.
      const now = this.ctx.clock.now().toISOString();
      db.transaction(() => {
        for (const item of batch) markStarted(db, id, item.seq, now);
      })();
      const ended: [BulkItemRow, CallOutcome][] = [];
      for (const item of batch) {
        // A stop waits for the call under way, not the rest of the batch (an upstream may
        // take its timeout per call); the rest stay started, settled at the next start.
        if (this.stopping) break;
        ended.push([item, await backend.call(job.action, item.requestId)]);
      }
      db.transaction(() => {
        for (const [item, outcome] of ended) this.end(job, item, outcome);
      })();
      await nextTurn();
    }
    markJobDone(db, id, this.ctx.clock.now().toISOString());
  }

  /**
   * Stops the job, saying why, when the person who started it no longer exists or no longer
   * has a role on its service that may do its action; true then. A job started with the API
   * key goes on (the key may call everything while it is valid).
   */
  private stoppedForStarter(job: BulkJobRow): boolean {
    if ((job.via !== 'session' && !job.via.startsWith('token ')) || job.userName === null)
      return false;
    const why = lostRole(this.ctx.dbs.system, job.userName, job.service, OPERATION[job.action]);
    if (why === undefined) return false;
    markJobStopped(this.ctx.dbs.system, job.id, why, this.ctx.clock.now().toISOString());
    this.log(`bulk job ${job.id} stopped`, new Error(why));
    return true;
  }

  /**
   * A request still in a status the job selects was not changed: it is done now. One that
   * left it was (by this job before the stop, or by someone else meanwhile): reported so.
   * One whose status cannot be learnt (an upstream not answering) is reported as failed
   * with why, rather than called again blindly.
   */
  private async settleStarted(
    backend: BulkBackend,
    job: BulkJobRow,
    item: BulkItemRow,
  ): Promise<void> {
    let status: string;
    try {
      status = await backend.currentStatus(item.requestId);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.end(job, item, {
        outcome: 'failed',
        httpStatus: error.httpStatus,
        message: `Not known whether it was done before the restart: ${error.message}`,
      });
      return;
    }
    if (status !== 'gone' && job.statuses.includes(status)) {
      markStarted(this.ctx.dbs.system, job.id, item.seq, this.ctx.clock.now().toISOString());
      this.end(job, item, await backend.call(job.action, item.requestId));
      return;
    }
    this.end(job, item, {
      outcome: 'ok',
      httpStatus: 200,
      message:
        status === 'gone'
          ? 'The request no longer exists.'
          : `Done before the restart: the request is now ${status}.`,
    });
  }

  private end(job: BulkJobRow, item: BulkItemRow, ended: CallOutcome): void {
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
