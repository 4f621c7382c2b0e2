import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { finished } from 'node:stream/promises';
import { E_TIMEOUT, Mutex, withTimeout } from 'async-mutex';
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
  markCancelRequested,
  queuedRequests,
  setRequestTimes,
  setStatus,
  type AppLogType,
  type RequestLogEntry,
  type RequestRow,
} from '../db/status/requests.ts';
import { getActions, getPipeline, type StageName } from '../db/system/pipelines.ts';
import { stateConflict } from '../errors.ts';
import { fromActions, type JointAction, type SensorConfig } from '../pipelines/definition.ts';
import * as cache from './cache.ts';
import type { EngineControl } from './control.ts';
import { compileFilter, type CompiledFilter } from './filter.ts';
import { FileWriter, TableWriter } from './joint.ts';
import { fileText, formatOf, InputError, parseRows } from './readers.ts';
import { substitute, type Row } from './values.ts';
import type { ServiceLimits } from '../limits.ts';

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
  /** Aborted with a Cancelled: every stage stops at its next chunk or batch. */
  readonly stop: AbortController;
  readonly tables: Set<string>;
  readonly done: Promise<void>;
}

/** A failure to write (disk full, read-only folder) in the words an operator can act on. */
function describeWriteFailure(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT')
    return 'The disk of the data folder is full; free some space, then retry the request.';
  if (
    code === 'SQLITE_READONLY' ||
    code === 'EROFS' ||
    (typeof code === 'string' && code.startsWith('SQLITE_IOERR'))
  )
    return `The service cannot write to its data folder (${code}); fix the folder, then retry the request.`;
  return undefined;
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
  /** The request whose Joint holds the lock, named in a 409 to whoever meets it. */
  private lockHolder: string | undefined;
  private readonly idleWaiters: (() => void)[] = [];
  /** Failures that could not be written yet (disk full), written again with backoff. */
  private readonly unrecorded = new Map<string, () => void>();

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
   * After a crash: requests that were running become Error (retryable), or Stop when their
   * cancel had been accepted; requests that had been picked but not begun (Start) wait
   * again; leftovers of unfinished output files go, and waiting requests stay queued.
   */
  async recover(): Promise<number> {
    let failed = 0;
    for (const { requestId, cancelRequested } of queuedRequests(this.dbs.status)) {
      const request = getRequest(this.dbs.status, requestId);
      if (!request) {
        dequeue(this.dbs.status, requestId);
      } else if (
        cancelRequested &&
        (request.status === 'Start' || request.status === 'Process' || request.status === 'Wait')
      ) {
        this.stopWaiting(
          request,
          'Cancelled by request (the cancel was completed after a restart)',
        );
      } else if (request.status === 'Start') {
        setStatus(this.dbs.status, request, {
          status: 'Wait',
          stage: request.stage,
          stamp: this.stamp(),
        });
      } else if (request.status === 'Process') {
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
      stop: new AbortController(),
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
    if (entry.stop.signal.aborted) throw entry.stop.signal.reason as Cancelled;
  }

  private cacheFolder(request: { pipelineId: string; requestId: string }): string {
    return join(this.options.paths.data, 'cache', request.pipelineId, request.requestId);
  }

  private async execute(request: RequestRow, entry: Running): Promise<void> {
    const { requestId } = request;
    const status = this.dbs.status;
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
    const progress = new Progress(this, request);
    try {
      await this.pass(request, entry, progress);
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
      // A finished request can never be retried: its cache would only take space.
      await this.actionLock.runExclusive(() => cache.clearRequest(this.dbs.action, requestId));
      await rm(this.cacheFolder(request), { recursive: true, force: true });
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
    const status = this.dbs.status;
    if (error instanceof Cancelled) {
      const shutdown = error.reason === 'shutdown';
      status.transaction(() => {
        // Stopped mid-pass, a request resumes from its earliest unfinished stage.
        setStatus(status, request, {
          status: shutdown ? 'Wait' : 'Stop',
          stage: progress.current,
          stamp: this.stamp(),
        });
        if (!shutdown) setRequestTimes(status, requestId, { endTime: this.stamp() });
        this.requestLog(requestId, {
          stage: progress.current,
          event: 'End',
          status: 'Stop',
          actionOrder: 0,
          message: shutdown
            ? 'Interrupted by a service shutdown; it runs again after the restart'
            : 'Cancelled by request',
        });
        if (!shutdown) {
          this.appLog(requestId, 'WARN', 'Cancelled by request');
          dequeue(status, requestId);
        }
      })();
      return;
    }
    let failure =
      error instanceof StageFailure
        ? error
        : new StageFailure(
            progress.current,
            describeWriteFailure(error) ?? (error instanceof Error ? error.message : String(error)),
          );
    if (!(error instanceof StageFailure))
      this.options.log?.(`request ${requestId} failed in ${failure.stage}`, error);
    // Earlier stages finish their cache so that a retry starts at the stage that failed.
    if (failure.stage !== 'Sensor') {
      try {
        await this.completeEarlierStages(request, entry, failure.stage);
      } catch (earlier) {
        if (earlier instanceof StageFailure) failure = earlier;
        else this.options.log?.(`request ${requestId}: its cache could not be completed`, earlier);
      }
    }
    if (failure.stage === 'Sensor') {
      // Nothing of a failed Sensor is worth keeping (a retry reads the inbox again), and a
      // huge or sparse input must not stay behind as a copy.
      const folder = this.cacheFolder(request);
      for (const name of ['sensor', 'sensor.partial'])
        await rm(join(folder, name), { force: true });
    }
    this.recordFailure(request, failure);
  }

  /**
   * Ends a request in Error. When the status database cannot be written (its disk is full)
   * the worker is freed anyway and the write is tried again with backoff; meanwhile the
   * request may be retried or cancelled like any failed one.
   */
  private recordFailure(request: RequestRow, failure: StageFailure, attempt = 0): void {
    const { requestId } = request;
    const status = this.dbs.status;
    try {
      this.writeFailure(request, failure);
      this.unrecorded.delete(requestId);
    } catch (error) {
      if (this.stopping || !status.open) return;
      this.options.log?.(`request ${requestId}: its failure could not be recorded yet`, error);
      const again = (): void => {
        if (!this.unrecorded.has(requestId)) return;
        const current = getRequest(status, requestId);
        // Retried or cancelled meanwhile: that newer state stands.
        if (!current || (current.status !== 'Start' && current.status !== 'Process')) {
          this.unrecorded.delete(requestId);
          return;
        }
        this.recordFailure(request, failure, attempt + 1);
      };
      this.unrecorded.set(requestId, again);
      setTimeout(again, Math.min(30_000, 500 * 2 ** attempt)).unref();
    }
  }

  private writeFailure(request: RequestRow, failure: StageFailure): void {
    const { requestId } = request;
    const status = this.dbs.status;
    status.transaction(() => {
      setStatus(status, request, {
        status: 'Error',
        stage: failure.stage,
        errorMsg: failure.message,
        stamp: this.stamp(),
      });
      setRequestTimes(status, requestId, { endTime: this.stamp() });
      this.requestLog(requestId, {
        stage: failure.stage,
        event: 'End',
        status: 'Error',
        actionOrder: 0,
        message: failure.message,
      });
      this.appLog(requestId, 'ERROR', failure.message);
      dequeue(status, requestId);
    })();
  }

  private definitionOf(request: RequestRow) {
    const pipeline = getPipeline(this.dbs.system, request.pipelineId);
    if (!pipeline)
      throw new StageFailure('Sensor', `Pipeline ${request.pipelineId} no longer exists.`);
    const definition = fromActions(getActions(this.dbs.system, pipeline.id));
    const args = { ...request.args, requestid: request.requestId, pipelineid: pipeline.id };
    let filters;
    try {
      filters = definition.filter.map((a) => compileFilter(a, args));
    } catch (error) {
      throw new StageFailure('Filter', `Filter definition: ${(error as Error).message}`);
    }
    return { definition, args, filters };
  }

  /**
   * Streams the inbox file's text while writing the same bytes to the request's snapshot,
   * so a file that changes in the inbox meanwhile cannot make the parse and the snapshot
   * differ, and a read that stops early (a bad record, a cancel) copies no more than it
   * read. Checks the file first so that a missing one fails before anything starts.
   */
  private async openInbox(
    request: RequestRow,
    entry: Running,
    progress: Progress,
  ): Promise<AsyncIterable<string>> {
    const inbox = join(this.options.paths.inbox, request.filename);
    const started = performance.now();
    const folder = this.cacheFolder(request);
    try {
      const info = await stat(inbox);
      if (!info.isFile()) throw new Error('not a file');
      progress.bytes = info.size;
      setRequestTimes(this.dbs.status, request.requestId, {
        sensorFile: request.filename,
        fileSize: info.size,
      });
      await mkdir(folder, { recursive: true });
    } catch (error) {
      if (describeWriteFailure(error)) throw error;
      throw new StageFailure(
        'Sensor',
        `Input file ${request.filename} was not found in the inbox or cannot be read.`,
      );
    }
    progress.spend('Sensor', performance.now() - started);
    return teeText(inbox, join(folder, 'sensor.partial'), entry.stop.signal);
  }

  private rowsOfText(
    request: RequestRow,
    entry: Running,
    format: SensorConfig,
    text: AsyncIterable<string>,
  ): AsyncGenerator<Row[]> {
    return parseRows(
      text,
      formatOf(request.filename, format.format),
      format.delimiter,
      this.batchSize,
      {
        signal: entry.stop.signal,
        maxRecordChars: this.options.limits?.maxRecordChars,
        maxFieldChars: this.options.limits?.maxFieldChars,
      },
    );
  }

  /** Sensor → Filter → Joint in one streaming pass, each stage taking over a stage's cache. */
  private async pass(request: RequestRow, entry: Running, progress: Progress): Promise<void> {
    const { requestId } = request;
    const { definition, args, filters } = this.definitionOf(request);
    const folder = this.cacheFolder(request);
    const snapshot = join(folder, 'sensor');
    const sensorCached = existsSync(snapshot);
    const filterCached = cache.completion(this.dbs.action, requestId, 'Filter') !== undefined;
    let rows: AsyncIterable<Row[]>;
    if (filterCached) {
      progress.skip('Sensor');
      progress.skip('Filter');
      rows = this.filterCacheRows(requestId);
    } else {
      if (sensorCached) progress.skip('Sensor');
      const text = sensorCached
        ? fileText(snapshot)
        : await this.openInbox(request, entry, progress);
      const parsed = this.rowsOfText(request, entry, definition.sensor, text);
      rows = this.filterRows(
        this.sensorRows(parsed, progress, sensorCached ? undefined : folder),
        filters,
        progress,
      );
    }
    await this.joint(request, entry, definition.joint, args, rows, progress);
  }

  private async *sensorRows(
    parsed: AsyncGenerator<Row[]>,
    progress: Progress,
    snapshotFolder: string | undefined,
  ): AsyncGenerator<Row[]> {
    progress.enter('Sensor');
    let count = 0;
    for (;;) {
      const started = performance.now();
      let next: IteratorResult<Row[]>;
      try {
        next = await parsed.next();
      } catch (error) {
        if (error instanceof StageFailure || error instanceof Cancelled) throw error;
        const writeFailure = describeWriteFailure(error);
        if (writeFailure) throw new StageFailure('Sensor', writeFailure);
        const detail =
          error instanceof InputError
            ? error.message
            : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
        throw new StageFailure('Sensor', `Input file ${progress.request.filename}: ${detail}.`);
      }
      progress.spend('Sensor', performance.now() - started);
      if (next.done) break;
      count += next.value.length;
      yield next.value;
    }
    if (snapshotFolder)
      await rename(join(snapshotFolder, 'sensor.partial'), join(snapshotFolder, 'sensor'));
    const size = progress.bytes === undefined ? '' : ` (${progress.bytes} bytes)`;
    progress.leave('Sensor', `Read ${count} rows from ${progress.request.filename}${size}`);
  }

  private async *filterRows(
    rows: AsyncIterable<Row[]>,
    filters: readonly CompiledFilter[],
    progress: Progress,
  ): AsyncGenerator<Row[]> {
    let read = 0;
    let kept = 0;
    let entered = false;
    for await (const batch of rows) {
      if (!entered) {
        progress.enter(
          'Filter',
          filters.map((f) => f.describe),
        );
        entered = true;
      }
      const started = performance.now();
      let out = batch;
      try {
        for (const filter of filters) out = filter.apply(out);
      } catch (error) {
        throw new StageFailure('Filter', (error as Error).message);
      }
      progress.spend('Filter', performance.now() - started);
      read += batch.length;
      kept += out.length;
      if (out.length > 0) yield out;
    }
    if (!entered)
      progress.enter(
        'Filter',
        filters.map((f) => f.describe),
      );
    progress.leave('Filter', `Filter kept ${kept} of ${read} rows`, filters.length);
  }

  private async *filterCacheRows(requestId: string): AsyncGenerator<Row[]> {
    for (let chunk = 0; ; chunk++) {
      const rows = cache.readChunk(this.dbs.action, requestId, 'Filter', chunk);
      if (!rows) return;
      yield rows;
    }
  }

  /**
   * After a Filter or Joint failure: the Sensor snapshot is completed (and parsed, which
   * may turn the failure into a Sensor one), and after a Joint failure the Filter output
   * is written to the cache, so that a retry starts at the stage that failed.
   */
  private async completeEarlierStages(
    request: RequestRow,
    entry: Running,
    failed: StageName,
  ): Promise<void> {
    const { requestId, pipelineId } = request;
    const { definition, filters } = this.definitionOf(request);
    const folder = this.cacheFolder(request);
    const snapshot = join(folder, 'sensor');
    const progress = new Progress(this, request, true);
    if (!existsSync(snapshot)) {
      const parsed = this.rowsOfText(
        request,
        entry,
        definition.sensor,
        await this.openInbox(request, entry, progress),
      );
      for await (const batch of this.sensorRows(parsed, progress, folder)) void batch;
    }
    if (failed !== 'Joint' || cache.completion(this.dbs.action, requestId, 'Filter')) return;
    // The cache chunks go to the action database, as a Joint's rows do.
    await this.actionLock.runExclusive(async () => {
      cache.clearPart(this.dbs.action, requestId, 'Filter');
      let chunk = 0;
      let kept = 0;
      const rows = this.filterRows(
        this.rowsOfText(request, entry, definition.sensor, fileText(snapshot)),
        filters,
        progress,
      );
      for await (const batch of rows) {
        cache.writeChunk(this.dbs.action, requestId, pipelineId, 'Filter', chunk++, batch);
        kept += batch.length;
        await nextTurn();
      }
      cache.markComplete(this.dbs.action, requestId, pipelineId, 'Filter', {
        rows: kept,
        chunks: chunk,
      });
    });
  }

  private async joint(
    request: RequestRow,
    entry: Running,
    actions: readonly JointAction[],
    args: Record<string, string>,
    rows: AsyncIterable<Row[]>,
    progress: Progress,
  ): Promise<void> {
    const { requestId, pipelineId } = request;
    const action = this.dbs.action;
    const tablesDone = cache.completion(action, requestId, 'JointTables') !== undefined;
    const files: { writer: FileWriter; final: string; order: number }[] = [];
    const tables: { writer: TableWriter; order: number }[] = [];
    let open = false;
    let entered = false;
    let release: (() => void) | undefined;
    // The lock and the transaction begin with the first batch, not before: a request still
    // reading its input keeps nobody else from the action database.
    const begin = async (): Promise<void> => {
      release = await this.actionLock.acquire();
      this.lockHolder = requestId;
      this.checkpoint(entry);
      action.exec('BEGIN IMMEDIATE');
      open = true;
    };
    const enter = async (): Promise<void> => {
      entered = true;
      progress.enter('Joint');
      for (const [i, spec] of actions.entries()) {
        this.requestLog(requestId, {
          stage: 'Joint',
          event: 'Start',
          status: 'Process',
          actionOrder: i + 1,
          message:
            'table' in spec
              ? `insert into ${spec.table.name}`
              : `write ${substitute(spec.file.name, args)}`,
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
          if (!PLAIN_FILE_NAME.test(name)) {
            throw new StageFailure(
              'Joint',
              `Output file name ${JSON.stringify(name)} is not a plain file name.`,
            );
          }
          await mkdir(this.options.paths.outbox, { recursive: true });
          const partial = join(this.options.paths.outbox, `${PARTIAL_PREFIX}${requestId}-${i}`);
          files.push({
            writer: new FileWriter(partial, spec.file.format),
            final: join(this.options.paths.outbox, name),
            order: i + 1,
          });
        }
      }
    };
    try {
      this.checkpoint(entry);
      for await (const batch of rows) {
        this.checkpoint(entry);
        if (!release) await begin();
        if (!entered) await enter();
        const started = performance.now();
        for (const { writer } of tables) {
          try {
            writer.write(batch);
          } catch (error) {
            throw new StageFailure(
              'Joint',
              describeWriteFailure(error) ?? `${writer.table}: ${(error as Error).message}`,
            );
          }
        }
        for (const { writer } of files) await writer.write(batch);
        progress.spend('Joint', performance.now() - started);
        await nextTurn();
      }
      this.checkpoint(entry);
      if (!release) await begin();
      if (!entered) await enter();
      const started = performance.now();
      for (const { writer } of files) await writer.close();
      cache.markComplete(action, requestId, pipelineId, 'JointTables', {
        tables: tables.map((t) => t.writer.table),
      });
      action.exec('COMMIT');
      open = false;
      this.releaseAction(release);
      release = undefined;
      this.dbs.touch();
      for (const file of files) await rename(file.writer.path, file.final);
      progress.spend('Joint', performance.now() - started);
    } catch (error) {
      if (open) {
        action.exec('ROLLBACK');
        this.dbs.touch();
      }
      this.releaseAction(release);
      release = undefined;
      for (const { writer } of files) {
        writer.destroy();
        await rm(writer.path, { force: true });
      }
      if (error instanceof StageFailure || error instanceof Cancelled) throw error;
      throw new StageFailure(
        progress.current,
        describeWriteFailure(error) ?? (error as Error).message,
      );
    } finally {
      this.releaseAction(release);
      entry.tables.clear();
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
      this.appLog(requestId, 'INFO', `Wrote ${writer.written} rows to ${basename(final)}`);
    }
    progress.leave('Joint', 'Joint finished');
  }

  /** @internal for Progress */
  logRequest(requestId: string, entry: Omit<RequestLogEntry, 'date'>): void {
    this.requestLog(requestId, entry);
  }

  /** @internal for Progress */
  logApp(requestId: string, type: AppLogType, message: string): void {
    this.appLog(requestId, type, message);
  }

  /** @internal for Progress */
  statusOf(request: RequestRow, stage: StageName): void {
    setStatus(this.dbs.status, request, { status: 'Process', stage, stamp: this.stamp() });
  }

  /** @internal for Progress */
  stageTime(requestId: string, stage: StageName, ms: number): void {
    const column = stage === 'Sensor' ? 'sensorMs' : stage === 'Filter' ? 'filterMs' : 'jointMs';
    setRequestTimes(this.dbs.status, requestId, { [column]: Math.round(ms) });
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
    this.unrecorded.delete(requestId);
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
      // Written before answering, so a crash before the next batch still ends it Stop.
      markCancelRequested(this.dbs.status, requestId);
      running.stop.abort(new Cancelled('cancel'));
      return;
    }
    this.unrecorded.delete(requestId);
    this.stopWaiting(request, 'Cancelled while waiting');
  }

  /** Ends a request that no worker runs in Stop. */
  private stopWaiting(request: RequestRow, message: string): void {
    const { requestId } = request;
    this.dbs.status.transaction(() => {
      setStatus(this.dbs.status, request, {
        status: 'Stop',
        stage: request.stage,
        stamp: this.stamp(),
      });
      setRequestTimes(this.dbs.status, requestId, { endTime: this.stamp() });
      this.requestLog(requestId, {
        stage: '',
        event: 'End',
        status: 'Stop',
        actionOrder: 0,
        message,
      });
      this.appLog(requestId, 'WARN', 'Cancelled by request');
      dequeue(this.dbs.status, requestId);
    })();
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

  /**
   * Runs an operator's write to the action database once no Joint holds it, waiting at most
   * a moment: a Joint keeps its transaction open until its input is read, so a longer wait
   * would leave the caller hanging. Meeting a busy database answers 409, naming the request.
   */
  async writeAction<T>(write: () => T | Promise<T>): Promise<T> {
    const lock = withTimeout(this.actionLock, this.options.limits?.actionWaitMs ?? 2000);
    try {
      return await lock.runExclusive(write);
    } catch (error) {
      if (error !== E_TIMEOUT) throw error;
      throw stateConflict(
        `The action database is being written by request ${this.lockHolder ?? 'another request'}; try again when it ends.`,
      );
    }
  }

  private releaseAction(release: (() => void) | undefined): void {
    if (!release) return;
    this.lockHolder = undefined;
    release();
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
  }
}

/**
 * Reads a file as text in large chunks and writes the same bytes to `copy` as it goes;
 * stops at the next chunk once `signal` is aborted (throwing its reason).
 */
async function* teeText(path: string, copy: string, signal: AbortSignal): AsyncGenerator<string> {
  const input = createReadStream(path, { highWaterMark: 1 << 18 });
  const output = createWriteStream(copy);
  // A failed write (a full disk) surfaces at the next chunk instead of as an unhandled event.
  let writeError: unknown;
  output.on('error', (error) => (writeError ??= error));
  const decoder = new StringDecoder('utf8');
  let complete = false;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      if (signal.aborted) throw signal.reason;
      if (writeError) throw writeError;
      if (!output.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            output.off('drain', done);
            output.off('error', done);
            resolve();
          };
          output.on('drain', done);
          output.on('error', done);
        });
      }
      const text = decoder.write(chunk);
      if (text) yield text;
    }
    const rest = decoder.end();
    if (rest) yield rest;
    output.end();
    await finished(output);
    complete = true;
  } finally {
    if (!complete) {
      input.destroy();
      output.destroy();
    }
  }
}

const STAGE_ORDER: readonly StageName[] = ['Sensor', 'Filter', 'Joint'];

/**
 * Where a request is in its pass. Stages overlap while rows stream through, so the Stage
 * a client sees is the earliest one still unfinished; each stage's time is the time spent
 * in its own work.
 */
class Progress {
  private readonly finished = new Set<StageName>();
  private readonly spent: Record<StageName, number> = { Sensor: 0, Filter: 0, Joint: 0 };
  /** Size of the input file, once the Sensor has looked at it. */
  bytes: number | undefined;

  constructor(
    private readonly engine: Engine,
    readonly request: RequestRow,
    /** Completing caches after a failure: no status changes, no times, no logs of stages. */
    private readonly quiet = false,
  ) {}

  get current(): StageName {
    return STAGE_ORDER.find((s) => !this.finished.has(s)) ?? 'Joint';
  }

  skip(stage: StageName): void {
    this.finished.add(stage);
    if (!this.quiet)
      this.engine.logApp(
        this.request.requestId,
        'INFO',
        `${stage} output taken from the action cache`,
      );
  }

  enter(stage: StageName, actions: readonly string[] = []): void {
    if (this.quiet) return;
    if (stage === this.current) this.engine.statusOf(this.request, stage);
    this.engine.logRequest(this.request.requestId, {
      stage,
      event: 'Start',
      status: 'Process',
      actionOrder: 0,
      message: `${stage} started`,
    });
    actions.forEach((message, i) =>
      this.engine.logRequest(this.request.requestId, {
        stage,
        event: 'Start',
        status: 'Process',
        actionOrder: i + 1,
        message,
      }),
    );
  }

  spend(stage: StageName, ms: number): void {
    this.spent[stage] += ms;
  }

  leave(stage: StageName, message: string, actions = 0): void {
    this.finished.add(stage);
    if (this.quiet) return;
    const id = this.request.requestId;
    for (let i = 1; i <= actions; i++)
      this.engine.logRequest(id, {
        stage,
        event: 'End',
        status: 'Process',
        actionOrder: i,
        message: '',
      });
    if (stage !== 'Joint') this.engine.logApp(id, 'INFO', message);
    this.engine.logRequest(id, {
      stage,
      event: 'End',
      status: 'Process',
      actionOrder: 0,
      message: stage === 'Joint' ? message : `${stage} finished`,
    });
    this.engine.stageTime(id, stage, this.spent[stage]);
    const next = this.current;
    if (next !== stage && !this.finished.has(next)) this.engine.statusOf(this.request, next);
  }
}
