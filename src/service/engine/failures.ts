import { storageProblemOf, type StorageProblem } from '../db/storage-problem.ts';
import type { StageName } from '../db/system/pipelines.ts';

/** Why a running request stops early: the abort reason of its signal. */
export class Cancelled extends Error {
  constructor(readonly reason: 'cancel' | 'shutdown') {
    super(reason);
  }
}

/** A failure already put in the words the request's Error shows, with the stage it ends in. */
export class StageFailure extends Error {
  constructor(
    readonly stage: StageName,
    message: string,
    /** What kept it from writing, when that is why it failed. */
    readonly storage?: StorageProblem['kind'],
  ) {
    super(message);
  }
}

/** A failure to write (disk full, read-only folder) in the words an operator can act on. */
export function describeWriteFailure(error: unknown): string | undefined {
  const problem = storageProblemOf(error);
  if (problem?.kind === 'full')
    return 'The disk of the data folder is full; free some space, then retry the request.';
  if (problem?.kind === 'unwritable')
    return `The service cannot write to its data folder (${problem.code}); fix the folder, then retry the request.`;
  return undefined;
}

/** The failure of `stage` that `error` is, in the words the request shows. */
export function failureOf(stage: StageName, error: unknown): StageFailure {
  if (error instanceof StageFailure) return error;
  const written = describeWriteFailure(error);
  if (written) return new StageFailure(stage, written, storageProblemOf(error)?.kind);
  return new StageFailure(stage, error instanceof Error ? error.message : String(error));
}

/** A request a worker of this process runs. */
export interface Running {
  readonly requestId: string;
  /** Aborted with a Cancelled: every stage stops at its next chunk or batch. */
  readonly stop: AbortController;
  readonly tables: Set<string>;
  readonly done: Promise<void>;
}

export function checkpoint(entry: Running): void {
  if (entry.stop.signal.aborted) throw entry.stop.signal.reason as Cancelled;
}
