import { Worker } from 'node:worker_threads';
import type { Db } from '../sqlite.ts';

/**
 * Checkpoints the action database off the main thread. A Joint writes all of a request's
 * rows in one transaction, so its commit leaves the whole ingest in the write-ahead log,
 * and SQLite's automatic checkpoint would then copy it into the database file inside the
 * COMMIT: a stall of a few hundred milliseconds for a million rows, during which the
 * service answers nobody. So the commit runs without it, and this thread's own connection
 * copies the log afterwards.
 */
export class Checkpointer {
  private worker: Worker | undefined;
  /** Closed, or its thread failed: commits checkpoint as SQLite does by itself. */
  private off = false;
  /** Checkpoints asked for and not done yet. */
  private pending = 0;
  private readonly waiters: (() => void)[] = [];
  /** SQLite's own checkpoint interval while it is off, to set again after. */
  private paused: number | undefined;

  constructor(
    private readonly db: Db,
    private readonly log?: (message: string, error?: unknown) => void,
  ) {}

  /**
   * Commits the open transaction without a checkpoint in it, then checkpoints on the thread.
   * SQLite's own checkpoints stay off until that one is done: the next write on this
   * connection (the cache cleanup right after) would otherwise do the copy itself.
   */
  commit(): void {
    if (this.off || this.db.memory) {
      this.db.exec('COMMIT');
      return;
    }
    this.pause();
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.resume();
      throw error;
    }
    this.request();
  }

  private pause(): void {
    if (this.paused === undefined) {
      this.paused = this.db.pragma('wal_autocheckpoint', { simple: true }) as number;
      this.db.pragma('wal_autocheckpoint = 0');
    }
  }

  private resume(): void {
    if (this.paused === undefined || !this.db.open) return;
    this.db.pragma(`wal_autocheckpoint = ${Number(this.paused)}`);
    this.paused = undefined;
  }

  private request(): void {
    if (!this.worker) {
      const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), {
        workerData: { file: this.db.name },
      });
      worker.unref();
      worker.on('message', (answer: { error?: string }) => {
        if (answer.error) this.log?.(`the action database's checkpoint failed: ${answer.error}`);
        if (--this.pending === 0) this.settle();
      });
      worker.on('error', (error) => this.log?.('the checkpoint thread failed', error));
      // Left to SQLite's own checkpoints from then on.
      worker.on('exit', () => {
        this.off = true;
        this.worker = undefined;
        this.pending = 0;
        this.settle();
      });
      this.worker = worker;
    }
    this.pending++;
    this.worker.postMessage('checkpoint');
  }

  private settle(): void {
    this.resume();
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves once no checkpoint is asked for and not done (tests). */
  whenDone(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.off = true;
    await this.worker?.terminate();
    this.worker = undefined;
    this.pending = 0;
    this.settle();
  }
}
