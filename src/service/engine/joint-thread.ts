import type { Worker } from 'node:worker_threads';
import { Mutex } from 'async-mutex';
import type { Db } from '../db/sqlite.ts';
import type { JointAction } from '../pipelines/definition.ts';
import { transferables, type EncodedRows } from './stage-wire.ts';
import { startThread } from './thread-script.ts';

export type TableSpec = Extract<JointAction, { table: unknown }>['table'];

/** What the main thread asks of the Joint's thread; each message gets one answer, in order. */
export type ToJoint =
  /** `maxPages`: the main connection's max_page_count, kept on the thread's too. */
  | { kind: 'begin'; maxPages: number }
  | { kind: 'table'; spec: TableSpec }
  | { kind: 'file'; path: string; format: 'csv' | 'jsonl' }
  | { kind: 'rows'; rows: EncodedRows }
  /** Commits what is staged so far, leaving the tables as they were; `resume` begins again. */
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'commit'; requestId: string; pipelineId: string }
  | { kind: 'rollback' };

export type FromJoint =
  /** `ms`: time spent on a batch; `written`: rows per table, then per file, on commit. */
  | { kind: 'done'; ms?: number; written?: number[] }
  | { kind: 'failed'; message: string; code?: string; table?: string }
  /** Sent after every commit and rollback, once the thread's checkpoint is over (or was not needed). */
  | { kind: 'checkpointed'; error?: string };

/** A failure in the Joint's thread, with SQLite's or the file system's code and the table it met. */
export class JointWriteFailure extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly table: string | undefined,
  ) {
    super(message);
  }
}

/**
 * The thread that writes a Joint's rows (joint-worker.ts), with its own connection to the
 * action database: the inserts of a large ingest take a core for a second or more, which on
 * the main thread left the API waiting behind them. One thread serves every request, one
 * Joint at a time (`take`); the main thread keeps the ActionLock, the request's state and
 * the decision to commit or roll back.
 *
 * Its commits leave the whole ingest in the write-ahead log and the thread copies it into
 * the database right after answering. From a Joint's begin until then the main
 * connection's own automatic checkpoint is off: an operator's write between two of the
 * Joint's batches, or the cache cleanup at the request's end, would otherwise do that copy
 * on the main thread.
 */
export class JointThread {
  private worker: Worker | undefined;
  private readonly pending: {
    resolve: (answer: Extract<FromJoint, { kind: 'done' }>) => void;
    reject: (error: Error) => void;
  }[] = [];
  /** The main connection's checkpoint interval while it is off, to set again after. */
  private paused: number | undefined;
  /** Between a begin and the answer to its commit or rollback. */
  private active = false;
  private readonly waiters: (() => void)[] = [];
  private closed = false;
  private readonly turns = new Mutex();

  constructor(
    private readonly db: Db,
    private readonly log?: (message: string, error?: unknown) => void,
  ) {}

  /** Starts the thread ahead of the first Joint (its first start takes a few hundred milliseconds). */
  warm(): void {
    if (!this.closed) this.thread();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    if (this.closed) throw new Error('the Joint writer thread is closed');
    const worker = startThread(new URL('./joint-worker.ts', import.meta.url), {
      file: this.db.name,
    });
    // Shutdown ends it, but a test may not: it must not keep the process alive.
    worker.unref();
    worker.on('message', (answer: FromJoint) => this.receive(answer));
    worker.on('error', (error) => this.log?.('the Joint writer thread failed', error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      const stopped = new Error(`the Joint writer thread stopped (exit code ${code})`);
      for (const waiter of this.pending.splice(0)) waiter.reject(stopped);
      // Its transaction went with it.
      this.active = false;
      this.settle();
    });
    this.worker = worker;
    return worker;
  }

  private receive(answer: FromJoint): void {
    if (answer.kind === 'checkpointed') {
      if (answer.error) this.log?.(`the action database's checkpoint failed: ${answer.error}`);
      this.settle();
      return;
    }
    const waiter = this.pending.shift();
    if (answer.kind === 'failed')
      waiter?.reject(new JointWriteFailure(answer.message, answer.code, answer.table));
    else waiter?.resolve(answer);
  }

  private call(
    message: ToJoint,
    transfer: ArrayBuffer[] = [],
  ): Promise<Extract<FromJoint, { kind: 'done' }>> {
    const worker = this.thread();
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      worker.postMessage(message, transfer);
    });
  }

  /**
   * Waits until no other Joint uses the thread; call the result when this one has committed
   * or rolled back. The ActionLock cannot keep Joints apart: a Joint gives it up between
   * batches.
   */
  take(): Promise<() => void> {
    return this.turns.acquire();
  }

  /**
   * BEGIN IMMEDIATE on the thread's connection: call it holding the ActionLock. The thread's
   * connection takes the main one's max_page_count, so that a bound set on the action
   * database (tests set one to stand in for a full disk) holds for the Joint's rows too.
   */
  async begin(): Promise<void> {
    this.holdCheckpoints();
    this.active = true;
    const maxPages = this.db.pragma('max_page_count', { simple: true }) as number;
    await this.call({ kind: 'begin', maxPages });
  }

  /** Creates the table when it is new (inside the transaction) and prepares its inserts. */
  async table(spec: TableSpec): Promise<void> {
    await this.call({ kind: 'table', spec });
  }

  async file(path: string, format: 'csv' | 'jsonl'): Promise<void> {
    await this.call({ kind: 'file', path, format });
  }

  /** Writes a batch to every table and file opened; resolves with the time it took there. */
  async rows(rows: EncodedRows): Promise<number> {
    return (await this.call({ kind: 'rows', rows }, transferables(rows))).ms ?? 0;
  }

  /**
   * Commits the rows staged so far (no table the clients see changes) and ends the
   * transaction, so that someone else may write; call `resume` holding the lock again.
   */
  async pause(): Promise<void> {
    await this.call({ kind: 'pause' });
  }

  async resume(): Promise<void> {
    await this.call({ kind: 'resume' });
  }

  /**
   * Closes the files, moves the staged rows into their tables, writes the marker that the
   * tables are complete and commits; resolves with the rows written per table, then per file.
   */
  async commit(requestId: string, pipelineId: string): Promise<number[]> {
    try {
      return (await this.call({ kind: 'commit', requestId, pipelineId })).written ?? [];
    } finally {
      this.active = false;
    }
  }

  /** Rolls back what is open, drops what was staged and removes the files being written. */
  async rollback(): Promise<void> {
    try {
      await this.call({ kind: 'rollback' });
    } finally {
      this.active = false;
    }
  }

  private holdCheckpoints(): void {
    if (this.paused !== undefined || this.db.memory) return;
    this.paused = this.db.pragma('wal_autocheckpoint', { simple: true }) as number;
    this.db.pragma('wal_autocheckpoint = 0');
  }

  private settle(): void {
    // The checkpoint of an earlier Joint, told after the next one began: this one's comes.
    if (this.active) return;
    if (this.paused !== undefined && this.db.open)
      this.db.pragma(`wal_autocheckpoint = ${Number(this.paused)}`);
    this.paused = undefined;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves once the checkpoint after the last commit is over (tests). */
  whenCheckpointed(): Promise<void> {
    if (this.paused === undefined) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends the thread (service shutdown, once no Joint runs). */
  async close(): Promise<void> {
    this.closed = true;
    await this.worker?.terminate();
    this.worker = undefined;
    this.active = false;
    this.settle();
  }
}
