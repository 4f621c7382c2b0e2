import { E_TIMEOUT, Mutex, withTimeout } from 'async-mutex';
import { stateConflict } from '../errors.ts';

/**
 * Serialises every write to the action database: a Joint keeps a transaction open across
 * batches on its own connection, so nobody else may write there meanwhile. A Joint that
 * holds the lock is told when someone waits for it, and gives way at its next batch (see
 * joint-stage.ts): without that, an operator's write would wait for a whole ingest.
 */
export class ActionLock {
  private readonly mutex = new Mutex();
  /** The request whose Joint holds the lock, named in a 409 to whoever meets it. */
  private holder: string | undefined;
  /** Called when someone starts waiting while this holder has the lock. */
  private onWanted: (() => void) | undefined;
  private waiting = 0;

  constructor(private readonly waitMs: number) {}

  /** True while a writer other than the holder waits for the lock. */
  get wanted(): boolean {
    return this.waiting > 0;
  }

  /**
   * Takes the lock for a request's Joint; call the result once to give it back. `onWanted`
   * hears of every writer that starts waiting while this Joint holds it.
   */
  async acquire(requestId: string, onWanted?: () => void): Promise<() => void> {
    const release = await this.mutex.acquire();
    this.holder = requestId;
    this.onWanted = onWanted;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holder = undefined;
      this.onWanted = undefined;
      release();
    };
  }

  runExclusive<T>(work: () => T | Promise<T>): Promise<T> {
    return this.waitFor(() => this.mutex.acquire(), work);
  }

  /**
   * Runs an operator's write once no Joint holds the lock, waiting at most a moment: a
   * Joint gives way at its next batch, but not while it commits (its last step copies the
   * staged rows into their tables), so a longer wait would leave the caller hanging.
   * Meeting a busy database answers 409, naming the request.
   */
  async operatorWrite<T>(write: () => T | Promise<T>): Promise<T> {
    try {
      return await this.waitFor(() => withTimeout(this.mutex, this.waitMs).acquire(), write);
    } catch (error) {
      if (error !== E_TIMEOUT) throw error;
      throw stateConflict(
        `The action database is being written by request ${this.holder ?? 'another request'}; try again when it ends.`,
      );
    }
  }

  private async waitFor<T>(
    take: () => Promise<() => void>,
    work: () => T | Promise<T>,
  ): Promise<T> {
    let release: () => void;
    this.waiting++;
    try {
      const taking = take();
      this.onWanted?.();
      release = await taking;
    } finally {
      this.waiting--;
    }
    try {
      return await work();
    } finally {
      release();
    }
  }
}
