import { join } from 'node:path';
import type { StageName } from '../db/system/pipelines.ts';

/** Where the service keeps its databases, and the engine its input and output files. */
export interface DataPaths {
  readonly data: string;
  readonly inbox: string;
  readonly outbox: string;
}

/** A data folder's paths: its databases there, the engine's `inbox/` and `outbox/` in it. */
export const dataPaths = (data: string): DataPaths => ({
  data,
  inbox: join(data, 'inbox'),
  outbox: join(data, 'outbox'),
});

/** What the API asks of the execution engine. */
export interface EngineControl {
  /** Something was queued or a pipeline resumed: look for work. */
  wake(): void;
  /** Puts a request that ended in Error or Stop back in the queue (409 otherwise). */
  retry(requestId: string): void;
  /** Stops a request that is waiting or running (409 otherwise). */
  cancel(requestId: string): void;
  /** Deletes the cached output of the chosen stages of a pipeline's requests. */
  clearCache(pipelineId: string, stages: readonly StageName[]): Promise<number>;
  /**
   * Runs a write to the action database once a running Joint gives way at its next batch;
   * 409 when it cannot within the wait (its last transaction moves its rows into their tables).
   */
  writeAction<T>(write: () => T | Promise<T>): Promise<T>;
  /** True while a running request writes to the action table. */
  isTableInUse(table: string): boolean;
}
