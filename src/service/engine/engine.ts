import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CANCELLABLE_STATUSES,
  RETRYABLE_STATUSES,
  type RequestStage,
  type RequestStatus,
} from '../../kit/wire.ts';
import type { Clock, ServiceTime } from '../clock.ts';
import type { DataPaths } from './control.ts';
import * as cache from '../db/action/cache.ts';
import type { Databases } from '../db/databases.ts';
import {
  dequeue,
  getRequest,
  markCancelRequested,
  nextQueued,
  type RequestRow,
} from '../db/status/requests.ts';
import { stoppedPipelineIds, type StageName } from '../db/system/pipelines.ts';
import { stateConflict } from '../errors.ts';
import type { ServiceLimits } from '../limits.ts';
import { ActionLock } from './action-lock.ts';
import type { EngineControl } from './control.ts';
import { Cancelled, failureOf, StageFailure, type Running } from './failures.ts';
import { dropStagedTables } from './joint.ts';
import { JointThread } from './joint-thread.ts';
import { StagePass } from './pass.ts';
import { Progress } from './progress.ts';
import { recover } from './recovery.ts';
import { RequestRecorder, type EndedRequest } from './recorder.ts';
import { StageWorkers } from './stage-pool.ts';

export interface EngineOptions {
  readonly dbs: Databases;
  readonly clock: Clock;
  readonly time: ServiceTime;
  readonly paths: DataPaths;
  /** Requests run at once (default 2). */
  readonly workers?: number;
  /** Rows per batch: the unit of streaming, caching and cancellation (default 2000). */
  readonly batchSize?: number;
  /** Bounds on one input record (the service's defaults when absent). */
  readonly limits?: Pick<ServiceLimits, 'maxRecordChars' | 'maxFieldChars' | 'actionWaitMs'>;
  /** Read and filter on worker threads (default true); false keeps them on the main thread. */
  readonly readerThreads?: boolean;
  readonly log?: (message: string, error?: unknown) => void;
  /** Told of each request that ended, for metrics. */
  readonly onRequestEnd?: (ended: EndedRequest) => void;
  /**
   * Told of each change of a request's status the engine writes, for metrics: Start,
   * Process (once per run, not per stage), the end, and Wait again (a retry, a shutdown).
   * A new request's Wait is where it was created, not here.
   */
  readonly onStatusChange?: (pipelineId: string, status: RequestStatus) => void;
}

/**
 * Runs requests through Sensor → Filter → Joint with a fixed number of workers: the
 * scheduler and the operator's controls. The parts it drives, each calling only the ones
 * after it: the stage pass (pass.ts) with its reader threads (stage-pool.ts) and the Joint
 * writer (joint-stage.ts) with its thread (joint-thread.ts); Progress and the RequestRecorder, which owns every write of a
 * request's state.
 */
export class Engine implements EngineControl {
  private readonly workers: number;
  private readonly running = new Map<string, Running>();
  private pumpScheduled = false;
  private stopping = false;
  /** Serialises every write to the action database. */
  readonly actionLock: ActionLock;
  readonly recorder: RequestRecorder;
  private readonly threads: StageWorkers | undefined;
  private readonly joint: JointThread;
  private readonly stages: StagePass;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly options: EngineOptions) {
    this.workers = options.workers ?? 2;
    this.actionLock = new ActionLock(options.limits?.actionWaitMs ?? 2000);
    this.recorder = new RequestRecorder(
      options.dbs.status,
      options.clock,
      options.time,
      options.onRequestEnd,
      options.onStatusChange,
    );
    this.threads = options.readerThreads === false ? undefined : new StageWorkers();
    this.joint = new JointThread(options.dbs.action, options.log);
    this.stages = new StagePass({
      dbs: options.dbs,
      paths: options.paths,
      recorder: this.recorder,
      lock: this.actionLock,
      joint: this.joint,
      batchSize: options.batchSize ?? 2000,
      limits: options.limits,
      threads: this.threads,
      log: options.log,
    });
  }

  private get dbs(): Databases {
    return this.options.dbs;
  }

  /** After a crash: see recovery.ts. Returns how many requests it failed. */
  async recover(): Promise<number> {
    // What a Joint staged before the crash is of no use, and may be large.
    try {
      dropStagedTables(this.dbs.action);
    } catch (error) {
      this.options.log?.('the rows a Joint staged before a restart could not be dropped', error);
    }
    return recover(this.dbs.status, this.recorder, this.options.paths.outbox);
  }

  wake(): void {
    if (this.pumpScheduled || this.stopping) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      try {
        this.pump();
      } catch (error) {
        // A scheduling failure (a database closed under us) must not take the process down.
        this.options.log?.('the scheduler could not pick the next request', error);
      }
      this.notifyIdle();
    });
  }

  /** The next queued request a worker may take, if any. */
  private next(): string | undefined {
    const stopped = stoppedPipelineIds(this.dbs.system);
    return nextQueued(this.dbs.status, { pipelines: stopped, requests: [...this.running.keys()] });
  }

  private pump(): void {
    while (!this.stopping && this.running.size < this.workers) {
      const requestId = this.next();
      if (!requestId) break;
      const request = getRequest(this.dbs.status, requestId);
      if (!request || request.status !== 'Wait') {
        dequeue(this.dbs.status, requestId);
        continue;
      }
      this.start(request);
    }
  }

  private notifyIdle(): void {
    if (this.running.size === 0 && !this.pumpScheduled)
      for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private start(request: RequestRow): void {
    const entry: { -readonly [K in keyof Running]: Running[K] } = {
      requestId: request.requestId,
      stop: new AbortController(),
      tables: new Set(),
      done: Promise.resolve(),
    };
    // Marked Start synchronously so that no second pump picks the same request.
    this.recorder.transition(request, { status: 'Start' });
    this.running.set(request.requestId, entry);
    entry.done = this.execute(request, entry)
      .catch((error: unknown) =>
        this.options.log?.(`request ${request.requestId} failed unexpectedly`, error),
      )
      .finally(() => {
        this.running.delete(request.requestId);
        this.wake();
        this.notifyIdle();
      });
  }

  /**
   * Starts a reader thread and the Joint's thread now rather than with the first request,
   * which would otherwise wait a few hundred milliseconds for them (the service calls this
   * once it listens; tests don't).
   */
  warmUp(): void {
    this.threads?.warm();
    this.joint.warm();
  }

  /** Resolves when no request is running (tests and shutdown). */
  whenIdle(): Promise<void> {
    if (this.running.size === 0 && !this.pumpScheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves when nothing can run: no request is running and none of the queued ones could
   * start (the rest belong to stopped pipelines). Tests wait on it instead of sleeping.
   */
  async whenSettled(): Promise<void> {
    for (;;) {
      await this.whenIdle();
      if (this.stopping || this.next() === undefined) return;
      this.wake();
    }
  }

  private async execute(request: RequestRow, entry: Running): Promise<void> {
    const { requestId } = request;
    const attempt = request.attempt + 1;
    this.recorder.transition(request, {
      times: {
        attempt,
        endTime: null,
        ...(request.beginTime ? {} : { beginTime: this.recorder.stamp() }),
      },
      log: {
        event: 'Start',
        status: 'Start',
        message: attempt > 1 ? `Request started again (attempt ${attempt})` : 'Request started',
      },
    });
    const progress = new Progress(this.recorder, request);
    try {
      await this.stages.run(request, entry, progress);
      this.recorder.transition(request, {
        status: 'Finish',
        stage: 'Complete',
        end: true,
        log: { event: 'End', status: 'Finish', message: 'Request finished' },
        dequeue: true,
      });
      // A finished request can never be retried: its cache would only take space.
      await this.actionLock.runExclusive(() => cache.clearRequest(this.dbs.action, requestId));
      await rm(this.stages.folderOf(request), { recursive: true, force: true });
    } catch (error) {
      await this.fail(request, entry, progress, error);
    }
  }

  private async fail(
    request: RequestRow,
    entry: Running,
    progress: Progress,
    error: unknown,
  ): Promise<void> {
    const { requestId } = request;
    try {
      // How far the rows got, before the failure or the stop is told.
      progress.flush();
    } catch (unsaved) {
      this.options.log?.(`request ${requestId}: its row counts could not be written`, unsaved);
    }
    if (error instanceof Cancelled) {
      // Stopped mid-pass, a request resumes from its earliest unfinished stage.
      const stage = progress.current;
      if (error.reason === 'shutdown') {
        this.recorder.transition(request, {
          status: 'Wait',
          stage,
          log: {
            stage,
            event: 'End',
            status: 'Stop',
            message: 'Interrupted by a service shutdown; it runs again after the restart',
          },
        });
      } else {
        this.recorder.stop(request, 'Cancelled by request', stage);
      }
      return;
    }
    let failure = failureOf(progress.current, error);
    if (!(error instanceof StageFailure))
      this.options.log?.(`request ${requestId} failed in ${failure.stage}`, error);
    const folder = this.stages.folderOf(request);
    if (failure.storage === 'full') {
      // Completing the cache would fill the disk again with what the retry can redo, and
      // leave no room to record the failure: the retry reads the snapshot, or the inbox
      // when the snapshot was not complete.
      await rm(join(folder, 'sensor.partial'), { force: true });
    } else if (failure.stage !== 'Sensor') {
      // Earlier stages finish their cache so that a retry starts at the stage that failed.
      try {
        await this.stages.completeEarlierStages(request, entry, failure.stage);
      } catch (earlier) {
        if (earlier instanceof StageFailure) failure = earlier;
        else this.options.log?.(`request ${requestId}: its cache could not be completed`, earlier);
      }
    }
    if (failure.stage === 'Sensor') {
      // Nothing of a failed Sensor is worth keeping (a retry reads the inbox again), and a
      // huge or sparse input must not stay behind as a copy.
      for (const name of ['sensor', 'sensor.partial'])
        await rm(join(folder, name), { force: true });
    }
    this.recorder.failOrRetry(request, failure.stage, failure.message, {
      stopped: () => this.stopping,
      log: this.options.log,
    });
  }

  /** True when the request's row says it runs but no worker of this process has it. */
  private isOrphan(request: RequestRow): boolean {
    return (
      (request.status === 'Start' || request.status === 'Process') &&
      !this.running.has(request.requestId)
    );
  }

  retry(requestId: string): void {
    const request = getRequest(this.dbs.status, requestId);
    if (!request) return;
    const retryable = RETRYABLE_STATUSES.includes(request.status) || this.isOrphan(request);
    if (!retryable || this.running.has(requestId)) {
      throw stateConflict(
        `Request ${requestId} is ${request.status}; only a request in Error or Stop can be retried.`,
      );
    }
    this.recorder.forgetFailure(requestId);
    this.recorder.transition(request, {
      status: 'Wait',
      stage: request.stage as RequestStage,
      enqueue: true,
      log: { event: 'Start', status: 'Start', message: 'Retry requested' },
    });
    this.wake();
  }

  cancel(requestId: string): void {
    const request = getRequest(this.dbs.status, requestId);
    if (!request) return;
    if (!CANCELLABLE_STATUSES.includes(request.status)) {
      throw stateConflict(
        `Request ${requestId} is ${request.status}; only a waiting or running request can be cancelled.`,
      );
    }
    const running = this.running.get(requestId);
    if (running) {
      // Written before answering, so a crash before the next batch still ends it Stop.
      markCancelRequested(this.dbs.status, requestId);
      running.stop.abort(new Cancelled('cancel'));
      return;
    }
    this.recorder.forgetFailure(requestId);
    this.recorder.stop(request, 'Cancelled while waiting');
  }

  /** Sensor snapshots are files under `<data>/cache/<pipeline>/<request>/`; the rest is in `_CACHE`. */
  async clearCache(pipelineId: string, stages: readonly StageName[]): Promise<number> {
    let removed = 0;
    // Files of requests no worker runs: no lock needed.
    if (stages.includes('Sensor')) {
      const folder = join(this.options.paths.data, 'cache', pipelineId);
      const requests = existsSync(folder) ? await readdir(folder) : [];
      for (const requestId of requests) {
        if (this.running.has(requestId)) continue;
        for (const name of ['sensor', 'sensor.partial']) {
          const path = join(folder, requestId, name);
          if (existsSync(path)) {
            await rm(path, { force: true });
            removed++;
          }
        }
      }
    }
    const parts: cache.CachePart[] = [];
    if (stages.includes('Filter')) parts.push('Filter');
    if (stages.includes('Joint')) parts.push('JointTables');
    if (parts.length === 0) return removed;
    return (
      removed +
      (await this.writeAction(() => cache.clearPipelineParts(this.dbs.action, pipelineId, parts)))
    );
  }

  writeAction<T>(write: () => T | Promise<T>): Promise<T> {
    return this.actionLock.operatorWrite(write);
  }

  isTableInUse(table: string): boolean {
    for (const entry of this.running.values()) if (entry.tables.has(table)) return true;
    return false;
  }

  /** Stops taking work, stops running requests at their next chunk or batch and waits for them. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const entry of this.running.values()) entry.stop.abort(new Cancelled('shutdown'));
    await Promise.all([...this.running.values()].map((e) => e.done));
    await this.threads?.close();
    await this.joint.close();
  }
}
