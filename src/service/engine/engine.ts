import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Mutex } from 'async-mutex';
import { CANCELLABLE_STATUSES, RETRYABLE_STATUSES, type RequestStage } from '../../kit/wire.ts';
import type { Clock, ServiceTime } from '../clock.ts';
import type { DataPaths } from '../context.ts';
import type { Databases } from '../db/databases.ts';
import { prepared } from '../db/sqlite.ts';
import {
  appendAppLog,
  appendRequestLog,
  dequeue,
  enqueue,
  getRequest,
  queuedRequests,
  setRequestTimes,
  setStatus,
  type AppLogType,
  type RequestLogEntry,
  type RequestRow,
} from '../db/status/requests.ts';
import { getActions, getPipeline, type StageName } from '../db/system/pipelines.ts';
import { stateConflict } from '../errors.ts';
import {
  fromActions,
  type FilterAction,
  type JointAction,
  type SensorConfig,
} from '../pipelines/definition.ts';
import * as cache from './cache.ts';
import type { EngineControl } from './control.ts';
import { compileFilter } from './filter.ts';
import { FileWriter, TableWriter } from './joint.ts';
import { formatOf, InputError, readRows } from './readers.ts';
import { substitute, type Row } from './values.ts';

export interface EngineOptions {
  readonly dbs: Databases;
  readonly clock: Clock;
  readonly time: ServiceTime;
  readonly paths: DataPaths;
  /** Requests run at once (default 2). */
  readonly workers?: number;
  /** Rows per batch: the unit of streaming, caching and cancellation (default 2000). */
  readonly batchSize?: number;
  readonly log?: (message: string, error?: unknown) => void;
}

class Cancelled extends Error {
  constructor(readonly reason: 'cancel' | 'shutdown') {
    super(reason);
  }
}

class StageFailure extends Error {
  constructor(
    readonly stage: StageName,
    message: string,
  ) {
    super(message);
  }
}

interface Running {
  readonly requestId: string;
  stopReason: 'cancel' | 'shutdown' | undefined;
  readonly tables: Set<string>;
  readonly done: Promise<void>;
}

const PARTIAL_PREFIX = '.partial-';
// eslint-disable-next-line no-control-regex
const PLAIN_FILE_NAME = /^(?!.*\.\.)[^/\\\u0000-\u001f\u007f]{1,255}$/;

/**
 * Runs requests through Sensor → Filter → Joint with a fixed number of workers.
 *
 * Stages run one after another; each stage's output goes to the action cache so that a
 * retry starts at the stage that failed. All writes to the action database go through
 * one lock, because the Joint stage keeps a transaction open across batches on the
 * shared connection (that is what makes a request's table writes all-or-nothing).
 */
export class Engine implements EngineControl {
  private readonly workers: number;
  private readonly batchSize: number;
  private readonly running = new Map<string, Running>();
  private pumpScheduled = false;
  private stopping = false;
  /** Serialises every write to the action database. */
  readonly actionLock = new Mutex();
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly options: EngineOptions) {
    this.workers = options.workers ?? 2;
    this.batchSize = options.batchSize ?? 2000;
  }

  private get dbs(): Databases {
    return this.options.dbs;
  }

  private stamp(): string {
    return this.options.time.stamp(this.options.clock.now());
  }

  /**
   * After a crash: requests that were running become Error (retryable), leftovers of
   * unfinished output files go, and waiting requests stay queued.
   */
  async recover(): Promise<number> {
    let failed = 0;
    for (const { requestId } of queuedRequests(this.dbs.status)) {
      const request = getRequest(this.dbs.status, requestId);
      if (!request) {
        dequeue(this.dbs.status, requestId);
      } else if (request.status === 'Start' || request.status === 'Process') {
        const message = 'The service stopped while this request ran; retry it.';
        this.dbs.status.transaction(() => {
          setStatus(this.dbs.status, request, {
            status: 'Error',
            stage: request.stage,
            errorMsg: message,
            stamp: this.stamp(),
          });
          setRequestTimes(this.dbs.status, requestId, { endTime: this.stamp() });
          this.requestLog(requestId, {
            stage: '',
            event: 'End',
            status: 'Error',
            actionOrder: 0,
            message,
          });
          this.appLog(requestId, 'ERROR', message);
          dequeue(this.dbs.status, requestId);
        })();
        failed++;
      } else if (request.status !== 'Wait') {
        dequeue(this.dbs.status, requestId);
      }
    }
    await mkdir(this.options.paths.outbox, { recursive: true });
    for (const name of await readdir(this.options.paths.outbox)) {
      if (name.startsWith(PARTIAL_PREFIX))
        await rm(join(this.options.paths.outbox, name), { force: true });
    }
    return failed;
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
    });
  }

  private stoppedPipelines(): string[] {
    return (
      prepared(this.dbs.system, "SELECT ID FROM PIPELINE WHERE RUNMODE = 'stop'").all() as {
        ID: string;
      }[]
    ).map((r) => r.ID);
  }

  private pump(): void {
    while (!this.stopping && this.running.size < this.workers) {
      const next = prepared(
        this.dbs.status,
        `SELECT REQUESTID FROM REQUEST_QUEUE
         WHERE PIPELINEID NOT IN (SELECT value FROM json_each(?))
           AND REQUESTID NOT IN (SELECT value FROM json_each(?))
         ORDER BY SEQ LIMIT 1`,
      ).get(JSON.stringify(this.stoppedPipelines()), JSON.stringify([...this.running.keys()])) as
        { REQUESTID: string } | undefined;
      if (!next) break;
      const request = getRequest(this.dbs.status, next.REQUESTID);
      if (!request || request.status !== 'Wait') {
        dequeue(this.dbs.status, next.REQUESTID);
        continue;
      }
      this.start(request);
    }
    if (this.running.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private start(request: RequestRow): void {
    const entry: { -readonly [K in keyof Running]: Running[K] } = {
      requestId: request.requestId,
      stopReason: undefined,
      tables: new Set(),
      done: Promise.resolve(),
    };
    // Marked Start synchronously so that no second pump picks the same request.
    setStatus(this.dbs.status, request, {
      status: 'Start',
      stage: request.stage,
      stamp: this.stamp(),
    });
    this.running.set(request.requestId, entry);
    entry.done = this.execute(request, entry)
      .catch((error: unknown) =>
        this.options.log?.(`request ${request.requestId} failed unexpectedly`, error),
      )
      .finally(() => {
        this.running.delete(request.requestId);
        this.wake();
        if (this.running.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
  }

  /** Resolves when no request is running (tests and shutdown). */
  whenIdle(): Promise<void> {
    if (this.running.size === 0 && !this.pumpScheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private requestLog(requestId: string, entry: Omit<RequestLogEntry, 'date'>): void {
    appendRequestLog(this.dbs.status, requestId, {
      ...entry,
      date: this.options.time.logDate(this.options.clock.now()),
    });
  }

  private appLog(requestId: string, type: AppLogType, message: string): void {
    appendAppLog(this.dbs.status, requestId, {
      date: this.options.time.clockTime(this.options.clock.now()),
      type,
      message,
    });
  }

  private checkpoint(entry: Running): void {
    if (entry.stopReason) throw new Cancelled(entry.stopReason);
  }

  private async execute(request: RequestRow, entry: Running): Promise<void> {
    const { requestId } = request;
    const status = this.dbs.status;
    const pipeline = getPipeline(this.dbs.system, request.pipelineId);
    const attempt = request.attempt + 1;
    const now = this.stamp();
    status.transaction(() => {
      setRequestTimes(status, requestId, {
        attempt,
        endTime: null,
        ...(request.beginTime ? {} : { beginTime: now }),
      });
      this.requestLog(requestId, {
        stage: '',
        event: 'Start',
        status: 'Start',
        actionOrder: 0,
        message: attempt > 1 ? `Request started again (attempt ${attempt})` : 'Request started',
      });
    })();
    let stage: StageName = 'Sensor';
    try {
      if (!pipeline)
        throw new StageFailure('Sensor', `Pipeline ${request.pipelineId} no longer exists.`);
      const definition = fromActions(getActions(this.dbs.system, pipeline.id));
      const args = { ...request.args, requestid: requestId, pipelineid: pipeline.id };
      const sensorDone = cache.completion(this.dbs.action, requestId, 'Sensor');
      const filterDone = sensorDone && cache.completion(this.dbs.action, requestId, 'Filter');
      if (!sensorDone) {
        stage = 'Sensor';
        await this.sensor(request, entry, definition.sensor);
      } else {
        this.appLog(requestId, 'INFO', 'Sensor output taken from the action cache');
      }
      if (!filterDone) {
        stage = 'Filter';
        await this.filter(request, entry, definition.filter, args);
      } else {
        this.appLog(requestId, 'INFO', 'Filter output taken from the action cache');
      }
      stage = 'Joint';
      await this.joint(request, entry, definition.joint, args);
      status.transaction(() => {
        setStatus(status, request, { status: 'Finish', stage: 'Complete', stamp: this.stamp() });
        setRequestTimes(status, requestId, { endTime: this.stamp() });
        this.requestLog(requestId, {
          stage: '',
          event: 'End',
          status: 'Finish',
          actionOrder: 0,
          message: 'Request finished',
        });
        dequeue(status, requestId);
      })();
    } catch (error) {
      const failedStage = error instanceof StageFailure ? error.stage : stage;
      if (error instanceof Cancelled && error.reason === 'shutdown') {
        // Stopped by a shutdown: queued again, it resumes from its cache after the restart.
        status.transaction(() => {
          setStatus(status, request, { status: 'Wait', stage: failedStage, stamp: this.stamp() });
          this.requestLog(requestId, {
            stage: failedStage,
            event: 'End',
            status: 'Stop',
            actionOrder: 0,
            message: 'Interrupted by a service shutdown; it runs again after the restart',
          });
        })();
        return;
      }
      const cancelled = error instanceof Cancelled;
      const message = cancelled
        ? 'Cancelled by request'
        : error instanceof Error
          ? error.message
          : String(error);
      if (!cancelled && !(error instanceof StageFailure) && !(error instanceof InputError)) {
        this.options.log?.(`request ${requestId} failed in ${failedStage}`, error);
      }
      status.transaction(() => {
        setStatus(status, request, {
          status: cancelled ? 'Stop' : 'Error',
          stage: failedStage,
          errorMsg: cancelled ? null : message,
          stamp: this.stamp(),
        });
        setRequestTimes(status, requestId, { endTime: this.stamp() });
        this.requestLog(requestId, {
          stage: failedStage,
          event: 'End',
          status: cancelled ? 'Stop' : 'Error',
          actionOrder: 0,
          message,
        });
        this.appLog(requestId, cancelled ? 'WARN' : 'ERROR', message);
        dequeue(status, requestId);
      })();
    }
  }

  private enterStage(request: RequestRow, stage: StageName): number {
    this.dbs.status.transaction(() => {
      setStatus(this.dbs.status, request, { status: 'Process', stage, stamp: this.stamp() });
      this.requestLog(request.requestId, {
        stage,
        event: 'Start',
        status: 'Process',
        actionOrder: 0,
        message: `${stage} started`,
      });
    })();
    return performance.now();
  }

  private leaveStage(
    request: RequestRow,
    stage: StageName,
    started: number,
    message: string,
  ): void {
    const ms = Math.round(performance.now() - started);
    const column = stage === 'Sensor' ? 'sensorMs' : stage === 'Filter' ? 'filterMs' : 'jointMs';
    this.dbs.status.transaction(() => {
      setRequestTimes(this.dbs.status, request.requestId, { [column]: ms });
      this.requestLog(request.requestId, {
        stage,
        event: 'End',
        status: 'Process',
        actionOrder: 0,
        message,
      });
    })();
  }

  private async sensor(request: RequestRow, entry: Running, config: SensorConfig): Promise<void> {
    const { requestId, pipelineId } = request;
    const started = this.enterStage(request, 'Sensor');
    const path = join(this.options.paths.inbox, request.filename);
    let size: number;
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new Error('not a file');
      size = info.size;
    } catch {
      throw new StageFailure(
        'Sensor',
        `Input file ${request.filename} was not found in the inbox or cannot be read.`,
      );
    }
    setRequestTimes(this.dbs.status, requestId, { sensorFile: request.filename, fileSize: size });
    const format = formatOf(request.filename, config.format);
    this.requestLog(requestId, {
      stage: 'Sensor',
      event: 'Start',
      status: 'Process',
      actionOrder: 1,
      message: `Reading ${request.filename} as ${format}`,
    });
    let rows = 0;
    let chunk = 0;
    await this.actionLock.runExclusive(() => cache.clearPart(this.dbs.action, requestId, 'Sensor'));
    try {
      for await (const batch of readRows(path, format, config.delimiter, this.batchSize)) {
        this.checkpoint(entry);
        await this.actionLock.runExclusive(() =>
          cache.writeChunk(this.dbs.action, requestId, pipelineId, 'Sensor', chunk, batch),
        );
        chunk++;
        rows += batch.length;
      }
    } catch (error) {
      if (error instanceof InputError)
        throw new StageFailure('Sensor', `Input file ${request.filename}: ${error.message}.`);
      if (error instanceof Cancelled) throw error;
      throw new StageFailure(
        'Sensor',
        `Input file ${request.filename} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'read error'}.`,
      );
    }
    await this.actionLock.runExclusive(() =>
      cache.markComplete(this.dbs.action, requestId, pipelineId, 'Sensor', { rows, chunks: chunk }),
    );
    this.requestLog(requestId, {
      stage: 'Sensor',
      event: 'End',
      status: 'Process',
      actionOrder: 1,
      message: `Read ${rows} rows`,
    });
    this.appLog(requestId, 'INFO', `Read ${rows} rows from ${request.filename} (${size} bytes)`);
    this.leaveStage(request, 'Sensor', started, 'Sensor finished');
  }

  private async filter(
    request: RequestRow,
    entry: Running,
    actions: readonly FilterAction[],
    args: Record<string, string>,
  ): Promise<void> {
    const { requestId, pipelineId } = request;
    const started = this.enterStage(request, 'Filter');
    let compiled;
    try {
      compiled = actions.map((a) => compileFilter(a, args));
    } catch (error) {
      throw new StageFailure('Filter', `Filter definition: ${(error as Error).message}`);
    }
    compiled.forEach((action, i) =>
      this.requestLog(requestId, {
        stage: 'Filter',
        event: 'Start',
        status: 'Process',
        actionOrder: i + 1,
        message: action.describe,
      }),
    );
    await this.actionLock.runExclusive(() => cache.clearPart(this.dbs.action, requestId, 'Filter'));
    let read = 0;
    let kept = 0;
    let out = 0;
    for (let chunk = 0; ; chunk++) {
      this.checkpoint(entry);
      const rows = cache.readChunk(this.dbs.action, requestId, 'Sensor', chunk);
      if (!rows) break;
      read += rows.length;
      let batch: Row[] = rows;
      try {
        for (const action of compiled) batch = action.apply(batch);
      } catch (error) {
        throw new StageFailure('Filter', (error as Error).message);
      }
      kept += batch.length;
      if (batch.length > 0) {
        const rowsOut = batch;
        const index = out++;
        await this.actionLock.runExclusive(() =>
          cache.writeChunk(this.dbs.action, requestId, pipelineId, 'Filter', index, rowsOut),
        );
      }
      await nextTurn();
    }
    await this.actionLock.runExclusive(() =>
      cache.markComplete(this.dbs.action, requestId, pipelineId, 'Filter', {
        rows: kept,
        chunks: out,
      }),
    );
    compiled.forEach((_, i) =>
      this.requestLog(requestId, {
        stage: 'Filter',
        event: 'End',
        status: 'Process',
        actionOrder: i + 1,
        message: '',
      }),
    );
    this.appLog(requestId, 'INFO', `Filter kept ${kept} of ${read} rows`);
    this.leaveStage(request, 'Filter', started, 'Filter finished');
  }

  private async joint(
    request: RequestRow,
    entry: Running,
    actions: readonly JointAction[],
    args: Record<string, string>,
  ): Promise<void> {
    const { requestId, pipelineId } = request;
    const started = this.enterStage(request, 'Joint');
    const action = this.dbs.action;
    const tablesDone = cache.completion(action, requestId, 'JointTables') !== undefined;
    const files: { writer: FileWriter; final: string; order: number }[] = [];
    const tables: { writer: TableWriter; order: number }[] = [];
    const release = await this.actionLock.acquire();
    let open = false;
    try {
      this.checkpoint(entry);
      action.exec('BEGIN IMMEDIATE');
      open = true;
      for (const [i, spec] of actions.entries()) {
        this.requestLog(requestId, {
          stage: 'Joint',
          event: 'Start',
          status: 'Process',
          actionOrder: i + 1,
          message: 'table' in spec ? `insert into ${spec.table.name}` : `write ${spec.file.name}`,
        });
        if ('table' in spec) {
          if (tablesDone) continue;
          entry.tables.add(spec.table.name);
          try {
            tables.push({ writer: new TableWriter(action, spec.table), order: i + 1 });
          } catch (error) {
            throw new StageFailure('Joint', (error as Error).message);
          }
        } else {
          const name = substitute(spec.file.name, args);
          if (!PLAIN_FILE_NAME.test(name))
            throw new StageFailure(
              'Joint',
              `Output file name ${JSON.stringify(name)} is not a plain file name.`,
            );
          await mkdir(this.options.paths.outbox, { recursive: true });
          const partial = join(this.options.paths.outbox, `${PARTIAL_PREFIX}${requestId}-${i}`);
          files.push({
            writer: new FileWriter(partial, spec.file.format),
            final: join(this.options.paths.outbox, name),
            order: i + 1,
          });
        }
      }
      for (let chunk = 0; ; chunk++) {
        this.checkpoint(entry);
        const rows = cache.readChunk(action, requestId, 'Filter', chunk);
        if (!rows) break;
        for (const { writer } of tables) {
          try {
            writer.write(rows);
          } catch (error) {
            throw new StageFailure('Joint', `${writer.table}: ${(error as Error).message}`);
          }
        }
        for (const { writer } of files) await writer.write(rows);
        await nextTurn();
      }
      this.checkpoint(entry);
      for (const { writer } of files) await writer.close();
      cache.markComplete(action, requestId, pipelineId, 'JointTables', {
        tables: tables.map((t) => t.writer.table),
      });
      action.exec('COMMIT');
      open = false;
      for (const file of files) await rename(file.writer.path, file.final);
    } catch (error) {
      if (open) action.exec('ROLLBACK');
      for (const { writer } of files) {
        writer.destroy();
        await rm(writer.path, { force: true });
      }
      throw error;
    } finally {
      entry.tables.clear();
      release();
    }
    for (const { writer, order } of tables) {
      this.requestLog(requestId, {
        stage: 'Joint',
        event: 'End',
        status: 'Process',
        actionOrder: order,
        message: `${writer.written} rows`,
      });
      this.appLog(requestId, 'INFO', `Wrote ${writer.written} rows to table ${writer.table}`);
    }
    for (const { writer, order, final } of files) {
      this.requestLog(requestId, {
        stage: 'Joint',
        event: 'End',
        status: 'Process',
        actionOrder: order,
        message: `${writer.written} rows`,
      });
      this.appLog(
        requestId,
        'INFO',
        `Wrote ${writer.written} rows to ${final.slice(this.options.paths.outbox.length + 1)}`,
      );
    }
    this.leaveStage(request, 'Joint', started, 'Joint finished');
  }

  retry(requestId: string): void {
    const request = getRequest(this.dbs.status, requestId);
    if (!request) return;
    if (!RETRYABLE_STATUSES.includes(request.status) || this.running.has(requestId)) {
      throw stateConflict(
        `Request ${requestId} is ${request.status}; only a request in Error or Stop can be retried.`,
      );
    }
    this.dbs.status.transaction(() => {
      setStatus(this.dbs.status, request, {
        status: 'Wait',
        stage: request.stage as RequestStage,
        stamp: this.stamp(),
      });
      enqueue(this.dbs.status, requestId, request.pipelineId);
      this.requestLog(requestId, {
        stage: '',
        event: 'Start',
        status: 'Start',
        actionOrder: 0,
        message: 'Retry requested',
      });
    })();
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
      running.stopReason = 'cancel';
      return;
    }
    this.dbs.status.transaction(() => {
      setStatus(this.dbs.status, request, {
        status: 'Stop',
        stage: request.stage,
        stamp: this.stamp(),
      });
      this.requestLog(requestId, {
        stage: '',
        event: 'End',
        status: 'Stop',
        actionOrder: 0,
        message: 'Cancelled while waiting',
      });
      this.appLog(requestId, 'WARN', 'Cancelled by request');
      dequeue(this.dbs.status, requestId);
    })();
  }

  clearCache(pipelineId: string, stages: readonly StageName[]): Promise<number> {
    const parts: cache.CachePart[] = stages.map((s) => (s === 'Joint' ? 'JointTables' : s));
    return this.writeAction(() => cache.clearPipelineParts(this.dbs.action, pipelineId, parts));
  }

  writeAction<T>(write: () => T): Promise<T> {
    return this.actionLock.runExclusive(write);
  }

  isTableInUse(table: string): boolean {
    for (const entry of this.running.values()) if (entry.tables.has(table)) return true;
    return false;
  }

  /** Stops taking work, stops running requests at their next batch and waits for them. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const entry of this.running.values()) entry.stopReason = 'shutdown';
    await Promise.all([...this.running.values()].map((e) => e.done));
  }
}
