import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import * as cache from '../db/action/cache.ts';
import type { Databases } from '../db/databases.ts';
import type { RequestRow } from '../db/status/requests.ts';
import { getActions, getPipeline, type StageName } from '../db/system/pipelines.ts';
import type { ServiceLimits } from '../limits.ts';
import { fromActions, type SensorConfig } from '../pipelines/definition.ts';
import type { ActionLock } from './action-lock.ts';
import { describeWriteFailure, StageFailure, type Running } from './failures.ts';
import { compileFilter } from './filter.ts';
import { writeJoint } from './joint-stage.ts';
import type { JointThread } from './joint-thread.ts';
import { Progress } from './progress.ts';
import { formatOf } from './readers.ts';
import type { RequestRecorder } from './recorder.ts';
import type { StageWorkers } from './stage-pool.ts';
import { stageEvents, type StageJob } from './stage-source.ts';
import { decodeRows, rowCount, type EncodedEvent, type EncodedRows } from './stage-wire.ts';
import { toObjects } from './values.ts';

export interface PassContext {
  readonly dbs: Databases;
  readonly paths: { readonly data: string; readonly inbox: string; readonly outbox: string };
  readonly recorder: RequestRecorder;
  readonly lock: ActionLock;
  /** The Joint's writer thread. */
  readonly joint: JointThread;
  readonly batchSize: number;
  readonly limits?: Pick<ServiceLimits, 'maxRecordChars' | 'maxFieldChars'>;
  /** Where the Sensor and Filter run; absent: on the main thread. */
  readonly threads?: StageWorkers;
  readonly log?: (message: string, error?: unknown) => void;
}

/** Where a request's Sensor snapshot lives: `<data>/cache/<pipeline>/<request>/`. */
export function cacheFolder(
  data: string,
  request: { pipelineId: string; requestId: string },
): string {
  return join(data, 'cache', request.pipelineId, request.requestId);
}

/**
 * Sensor → Filter → Joint in one streaming pass, each stage taking over a stage's cache.
 * Reading and filtering run on a worker thread (stage-pool.ts), the Joint's inserts on
 * another (joint-thread.ts); the rows pass the main thread encoded, and every status
 * write stays on it.
 */
export class StagePass {
  constructor(private readonly context: PassContext) {}

  private definitionOf(request: RequestRow) {
    const { system } = this.context.dbs;
    const pipeline = getPipeline(system, request.pipelineId);
    if (!pipeline)
      throw new StageFailure('Sensor', `Pipeline ${request.pipelineId} no longer exists.`);
    const definition = fromActions(getActions(system, pipeline.id));
    const args = { ...request.args, requestid: request.requestId, pipelineid: pipeline.id };
    let filters;
    try {
      // Compiled here too, although the worker compiles its own: a bad definition fails
      // before anything starts, and the compiled actions describe themselves for the log.
      filters = definition.filter.map((a) => compileFilter(a, args));
    } catch (error) {
      throw new StageFailure('Filter', `Filter definition: ${(error as Error).message}`);
    }
    return { definition, args, filters };
  }

  folderOf(request: RequestRow): string {
    return cacheFolder(this.context.paths.data, request);
  }

  /** Checks the inbox file first, so that a missing one fails before anything starts. */
  private async inboxFile(request: RequestRow, progress: Progress): Promise<string> {
    const inbox = join(this.context.paths.inbox, request.filename);
    const started = performance.now();
    try {
      const info = await stat(inbox);
      if (!info.isFile()) throw new Error('not a file');
      progress.bytes = info.size;
      this.context.recorder.transition(request, {
        times: { sensorFile: request.filename, fileSize: info.size },
      });
      await mkdir(this.folderOf(request), { recursive: true });
    } catch (error) {
      if (describeWriteFailure(error)) throw error;
      throw new StageFailure(
        'Sensor',
        `Input file ${request.filename} was not found in the inbox or cannot be read.`,
      );
    }
    progress.spend('Sensor', performance.now() - started);
    return inbox;
  }

  private job(
    request: RequestRow,
    sensor: SensorConfig,
    path: string,
    snapshot: string | undefined,
    filter: StageJob['filter'],
  ): StageJob {
    const { limits } = this.context;
    return {
      path,
      filename: request.filename,
      snapshot,
      format: formatOf(request.filename, sensor.format),
      delimiter: sensor.delimiter,
      batchSize: this.context.batchSize,
      limits: { maxRecordChars: limits?.maxRecordChars, maxFieldChars: limits?.maxFieldChars },
      filter,
    };
  }

  private async *events(job: StageJob, entry: Running): AsyncGenerator<EncodedEvent> {
    const { threads } = this.context;
    if (threads) return yield* threads.run(job, entry.stop.signal);
    for await (const event of stageEvents(job, entry.stop.signal))
      yield event.kind === 'rows' ? { ...event, rows: { rows: toObjects(event.rows) } } : event;
  }

  /** The Filter's output, reporting each stage's progress as the events come. */
  private async *rows(
    events: AsyncIterable<EncodedEvent>,
    progress: Progress,
    describes: readonly string[],
  ): AsyncGenerator<EncodedRows> {
    // A Sensor taken from its snapshot still enters and leaves: its parse is timed and logged.
    progress.enter('Sensor');
    let entered = false;
    const enterFilter = (): void => {
      if (entered) return;
      entered = true;
      progress.enter('Filter', describes);
    };
    for await (const event of events) {
      if (event.kind === 'rows') {
        progress.spend('Sensor', event.sensorMs);
        progress.count('Sensor', event.read);
        enterFilter();
        progress.spend('Filter', event.filterMs);
        progress.count('Filter', rowCount(event.rows));
        if (rowCount(event.rows) > 0) yield event.rows;
      } else if (event.kind === 'sensorEnd') {
        progress.spend('Sensor', event.sensorMs);
        progress.exact('Sensor', event.rows);
        const size = progress.bytes === undefined ? '' : ` (${progress.bytes} bytes)`;
        progress.leave(
          'Sensor',
          `Read ${event.rows} rows from ${progress.request.filename}${size}`,
        );
      } else {
        enterFilter();
        progress.exact('Filter', event.kept);
        progress.leave(
          'Filter',
          `Filter kept ${event.kept} of ${event.read} rows`,
          describes.length,
        );
      }
    }
  }

  async run(request: RequestRow, entry: Running, progress: Progress): Promise<void> {
    const { requestId } = request;
    const { dbs, recorder, lock, paths } = this.context;
    const { definition, args, filters } = this.definitionOf(request);
    const snapshot = join(this.folderOf(request), 'sensor');
    const sensorCached = existsSync(snapshot);
    const filterCached = cache.completion(dbs.action, requestId, 'Filter') !== undefined;
    let rows: AsyncIterable<EncodedRows>;
    if (filterCached) {
      progress.skip('Sensor');
      progress.skip('Filter');
      rows = this.filterCacheRows(requestId);
    } else {
      if (sensorCached) progress.skip('Sensor');
      const path = sensorCached ? snapshot : await this.inboxFile(request, progress);
      const job = this.job(request, definition.sensor, path, sensorCached ? undefined : snapshot, {
        actions: definition.filter,
        args,
      });
      rows = this.rows(
        this.events(job, entry),
        progress,
        filters.map((f) => f.describe),
      );
    }
    await writeJoint(
      {
        action: dbs.action,
        thread: this.context.joint,
        lock,
        recorder,
        outbox: paths.outbox,
        touch: () => dbs.touch(),
        log: this.context.log,
      },
      request,
      entry,
      definition.joint,
      args,
      rows,
      progress,
    );
  }

  private async *filterCacheRows(requestId: string): AsyncGenerator<EncodedRows> {
    for (let chunk = 0; ; chunk++) {
      const rows = cache.readChunk(this.context.dbs.action, requestId, 'Filter', chunk);
      if (!rows) return;
      yield { rows };
    }
  }

  /**
   * After a Filter or Joint failure: the Sensor snapshot is completed (and parsed, which
   * may turn the failure into a Sensor one), and after a Joint failure the Filter output
   * is written to the cache, so that a retry starts at the stage that failed.
   */
  async completeEarlierStages(
    request: RequestRow,
    entry: Running,
    failed: StageName,
  ): Promise<void> {
    const { requestId, pipelineId } = request;
    const { action } = this.context.dbs;
    const { definition, args, filters } = this.definitionOf(request);
    const snapshot = join(this.folderOf(request), 'sensor');
    const progress = new Progress(this.context.recorder, request, true);
    if (!existsSync(snapshot)) {
      const path = await this.inboxFile(request, progress);
      // The whole input is read now: its row count is known even when the Filter failed
      // before the Sensor's end was reported.
      for await (const event of this.events(
        this.job(request, definition.sensor, path, snapshot, undefined),
        entry,
      ))
        if (event.kind === 'sensorEnd') progress.record('Sensor', event.rows);
    }
    if (failed !== 'Joint' || cache.completion(action, requestId, 'Filter')) return;
    // The cache chunks go to the action database, as a Joint's rows do: a chunk at a time,
    // so that a Joint or an operator waits for a chunk, not for the whole input.
    const { lock } = this.context;
    await lock.runExclusive(() => cache.clearPart(action, requestId, 'Filter'));
    let chunk = 0;
    let kept = 0;
    const job = this.job(request, definition.sensor, snapshot, undefined, {
      actions: definition.filter,
      args,
    });
    const rows = this.rows(
      this.events(job, entry),
      progress,
      filters.map((f) => f.describe),
    );
    try {
      for await (const encoded of rows) {
        const batch = decodeRows(encoded);
        const at = chunk++;
        await lock.runExclusive(() =>
          cache.writeChunk(action, requestId, pipelineId, 'Filter', at, batch),
        );
        kept += batch.length;
        await nextTurn();
      }
      await lock.runExclusive(() =>
        cache.markComplete(action, requestId, pipelineId, 'Filter', { rows: kept, chunks: chunk }),
      );
    } catch (error) {
      // Chunks without their marker are of no use to a retry: their space is given back.
      await lock
        .runExclusive(() => cache.clearPart(action, requestId, 'Filter'))
        .catch(() => undefined);
      throw error;
    }
  }
}
