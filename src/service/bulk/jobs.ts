import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AuditSubject } from '../audit/audit-log.ts';
import { credentialEndedWhy } from '../auth/credential-end.ts';
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
import { acquireLease, PROCESS_HOLDER, releaseLease } from '../db/leases.ts';
import type { Sql } from '../db/sql.ts';
import { backendOf, type BulkBackend, type CallOutcome } from './backend.ts';

// Bulk retry or cancel of a day's requests by filter (issue 14, item 4). The requests are
// chosen once, when the job starts, and kept with the job in the shared store (ctx.shared:
// the system database, or PostgreSQL with --database); the job then runs them in bounded
// batches through the same operations as a single retry or cancel, each call in the audit
// log under the person who started the job. A stop ends after the call under way; the next
// start resumes every unfinished job. What differs between the embedded engine and a
// service behind the gateway is its BulkBackend (backend.ts).
// A job acts only while the credential it started with could still call (issue 39): before
// each batch and when the job resumes, the session, token or key it started with is checked
// (revoked, expired, signed out, turned off, reissued) and so is its starter's role on the
// job's service (issue 24: removed, or demoted below the action); a job whose credential
// ended stops there, saying why in its outcome and in the audit log.
// Several gateways on one PostgreSQL (contract section 11): a job runs under a lease in the
// shared store, renewed while it runs; every gateway looks for running jobs whose lease ran
// out (their gateway died) and takes them over, settling their started requests by looking
// at them before anything is called again, so that no request is called twice.

/** Requests per batch; between batches the event loop serves other calls. */
export const BULK_BATCH = 100;
/**
 * Longest a call's outcome waits to be written: a batch of slow calls (an upstream's seconds
 * each) shows its progress as it goes, not all at once at its end (issue 38). Fast calls
 * still share one commit.
 */
const BULK_FLUSH_MS = 1000;
export { PREVIEW_IDS } from './backend.ts';

export interface BulkStarter {
  readonly reason: string;
  readonly address: string;
  readonly subject: Pick<AuditSubject, 'userName' | 'via'>;
  /** The credential the job was started with, by reference (Caller.credential). */
  readonly credential: string | undefined;
}

const OPERATION = { retry: 'requestretry', cancel: 'requestcancel' } as const;

/**
 * A job's lease runs this long past its last renewal; it is renewed every BULK_RENEW_MS while
 * the job runs, and every gateway looks for jobs to take over every BULK_CLAIM_MS: a job
 * whose gateway died is taken over within BULK_LEASE_MS + BULK_CLAIM_MS (40 s; the contract
 * allows 60).
 */
export const BULK_LEASE_MS = 30_000;
const BULK_RENEW_MS = 10_000;
const BULK_CLAIM_MS = 10_000;

const leaseName = (id: number): string => `bulk-job:${id}`;

export class BulkJobs {
  private readonly queue: number[] = [];
  private running: Promise<void> | undefined;
  private stopping = false;
  /** Jobs whose lease this process holds (queued or running here). */
  private readonly held = new Set<number>();
  private claimTimer: NodeJS.Timeout | undefined;

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
    const id = await createBulkJob(
      this.ctx.shared,
      selection,
      {
        reason: starter.reason,
        userName: starter.subject.userName,
        via: starter.subject.via,
        address: starter.address,
        credential: starter.credential ?? null,
      },
      this.ctx.clock.now().toISOString(),
      ids,
    );
    if (ids.length > 0 && (await this.lease(id))) {
      this.held.add(id);
      this.enqueue(id);
    }
    return id;
  }

  /**
   * Resumes the jobs a stop or a crash left unfinished, and from then on takes over those
   * of a gateway that died (their lease ran out).
   */
  async resume(): Promise<void> {
    await this.claim();
    this.claimTimer = setInterval(
      () => void this.claim().catch((error: unknown) => this.log('bulk jobs not claimed', error)),
      BULK_CLAIM_MS,
    );
    this.claimTimer.unref();
  }

  /** Takes the running jobs no live gateway holds, and queues them here. */
  private async claim(): Promise<void> {
    for (const job of await runningBulkJobs(this.ctx.shared)) {
      if (this.stopping) return;
      if (this.held.has(job.id) || !(await this.lease(job.id))) continue;
      this.held.add(job.id);
      await markResumed(this.ctx.shared, job.id, this.ctx.clock.now().toISOString());
      this.enqueue(job.id);
    }
  }

  /** Takes or renews a job's lease; false while another gateway holds it. */
  private lease(id: number): Promise<boolean> {
    return acquireLease(
      this.ctx.shared,
      leaseName(id),
      PROCESS_HOLDER,
      this.ctx.clock.now().getTime(),
      BULK_LEASE_MS,
    );
  }

  /**
   * Ends after the call under way; unfinished jobs stay recorded as running, and their
   * leases are given up so that another gateway (or the next start) goes on at once.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.claimTimer) clearInterval(this.claimTimer);
    await this.running;
    for (const id of this.held)
      await releaseLease(this.ctx.shared, leaseName(id), PROCESS_HOLDER).catch((error: unknown) =>
        this.log(`bulk job ${id}: lease not given up`, error),
      );
    this.held.clear();
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
        // A database that cannot be written, or gone: the job stays running, claimed again
        // (its lease is still this process's) once the store answers.
        this.log(`bulk job ${id} stopped`, error);
        this.queue.shift();
        this.held.delete(id);
        continue;
      }
      this.queue.shift();
      if (!this.stopping) {
        this.held.delete(id);
        await releaseLease(this.ctx.shared, leaseName(id), PROCESS_HOLDER).catch(() => undefined);
      }
    }
  }

  /**
   * Runs a job under its lease, renewed every BULK_RENEW_MS; once it cannot be renewed (the
   * store gone long enough for another gateway to take it), nothing more is called here.
   */
  private async run(id: number): Promise<void> {
    let lost = false;
    const renew = setInterval(() => {
      this.lease(id).then(
        (held) => {
          lost ||= !held;
        },
        () => undefined,
      );
    }, BULK_RENEW_MS);
    renew.unref();
    try {
      await this.runLeased(id, () => lost || this.stopping);
    } finally {
      clearInterval(renew);
    }
  }

  private async runLeased(id: number, halted: () => boolean): Promise<void> {
    const shared = this.ctx.shared;
    const job = await getBulkJob(shared, id);
    if (!job || job.state !== 'running') return;
    // A service taken out of the configuration: the job waits, recorded, until it is back.
    const backend = backendOf(this.ctx, job.service);
    if (!backend) {
      this.log(`bulk job ${id} waits`, new Error(`service ${job.service} is not configured`));
      return;
    }
    // Before anything is called again: a credential ended meanwhile stops it.
    if (await this.stoppedForCredential(job)) return;
    // Started but not ended: the process stopped between the call and its outcome.
    for (const item of await nextBulkItems(shared, id, 'started', Number.MAX_SAFE_INTEGER)) {
      if (halted()) return;
      await this.settleStarted(backend, job, item);
    }
    for (;;) {
      if (halted()) return;
      const batch = await nextBulkItems(shared, id, 'pending', BULK_BATCH);
      if (batch.length === 0) break;
      // Renewed before each batch is marked: a gateway that lost the job stops here.
      if (!(await this.lease(id))) return;
      // Read at each batch, as a single call reads it: a credential ended meanwhile holds now.
      if (await this.stoppedForCredential(job)) return;
      // The whole batch is marked started in one statement before any call, and its
      // outcomes written in commits as they end (at most BULK_FLUSH_MS late, so that the
      // progress a person follows moves), each with its audit entry: a crash (or an audit
      // log that cannot be written) in between leaves started items, which the next start
      // settles by looking at the requests themselves. No outcome is ever reported that the
      // audit log does not hold.
      await markStarted(
        shared,
        id,
        batch.map((item) => item.seq),
        this.ctx.clock.now().toISOString(),
      );
      let ended: [BulkItemRow, CallOutcome][] = [];
      const flush = async () => {
        const written = ended;
        ended = [];
        if (written.length === 0) return;
        await shared.transaction(async (tx) => {
          for (const [item, outcome] of written) await this.recordEnd(tx, job, item, outcome);
        });
      };
      let flushed = performance.now();
      for (const item of batch) {
        // A stop waits for the call under way, not the rest of the batch (an upstream may
        // take its timeout per call); the rest stay started, settled at the next start.
        if (halted()) break;
        ended.push([item, await backend.call(job.action, item.requestId)]);
        if (performance.now() - flushed >= BULK_FLUSH_MS) {
          await flush();
          flushed = performance.now();
        }
      }
      await flush();
      await nextTurn();
    }
    await markJobDone(shared, id, this.ctx.clock.now().toISOString());
  }

  /**
   * Stops the job, saying why, when the credential it started with ended, or the person who
   * started it no longer exists or no longer has a role on its service that may do its action;
   * true then. The key's rights are its own: only its end stops a job started with it.
   */
  private async stoppedForCredential(job: BulkJobRow): Promise<boolean> {
    const now = this.ctx.clock.now();
    const ended = await credentialEndedWhy(this.ctx.shared, job.credential, now);
    const why =
      ended !== undefined
        ? // As a lost role says it (lostRole): the dialog shows it after "stopped the job:".
          `${ended.charAt(0).toUpperCase()}${ended.slice(1)}, so the job stopped.`
        : (job.via === 'session' || job.via.startsWith('token ')) && job.userName !== null
          ? await lostRole(this.ctx.shared, job.userName, job.service, OPERATION[job.action])
          : undefined;
    if (why === undefined) return false;
    await this.ctx.shared.transaction(async (tx) => {
      // Once, by whichever gateway saw it first: the audit entry goes with the change.
      if (!(await markJobStopped(tx, job.id, why, now.toISOString()))) return;
      await this.ctx.audit.onBehalfIn(
        tx,
        {
          address: job.address,
          subject: { userName: job.userName, via: job.via, requestId: null },
        },
        {
          operation: `bulk${job.action}`,
          service: job.service,
          parameters: { bulkjob: String(job.id), reason: job.reason },
        },
        { httpStatus: ended !== undefined ? 401 : 403, status: 'Error', message: why },
      );
    });
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
      await this.end(job, item, {
        outcome: 'failed',
        httpStatus: error.httpStatus,
        message: `Not known whether it was done before the restart: ${error.message}`,
      });
      return;
    }
    if (status !== 'gone' && job.statuses.includes(status)) {
      await markStarted(this.ctx.shared, job.id, [item.seq], this.ctx.clock.now().toISOString());
      await this.end(job, item, await backend.call(job.action, item.requestId));
      return;
    }
    await this.end(job, item, {
      outcome: 'ok',
      httpStatus: 200,
      message:
        status === 'gone'
          ? 'The request no longer exists.'
          : `Done before the restart: the request is now ${status}.`,
    });
  }

  /** An item's end: its outcome and the job's counter, with its audit entry. */
  private end(job: BulkJobRow, item: BulkItemRow, ended: CallOutcome): Promise<void> {
    return this.ctx.shared.transaction((tx) => this.recordEnd(tx, job, item, ended));
  }

  /** Writes an item's outcome and its audit entry in `tx`: both commit, or neither. */
  private async recordEnd(
    tx: Sql,
    job: BulkJobRow,
    item: BulkItemRow,
    ended: CallOutcome,
  ): Promise<void> {
    await markEnded(
      tx,
      job.id,
      item.seq,
      ended.outcome,
      ended.message,
      this.ctx.clock.now().toISOString(),
    );
    await this.ctx.audit.onBehalfIn(
      tx,
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
