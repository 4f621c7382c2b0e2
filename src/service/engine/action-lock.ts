import { E_TIMEOUT, Mutex, withTimeout } from 'async-mutex';
import { stateConflict } from '../errors.ts';

/**
 * Serialises every write to the action database: a Joint keeps its transaction open across
 * batches on the shared connection (that is what makes a request's table writes
 * all-or-nothing), so nobody else may write there meanwhile.
 */
export class ActionLock {
  private readonly mutex = new Mutex();
  /** The request whose Joint holds the lock, named in a 409 to whoever meets it. */
  private holder: string | undefined;

  constructor(private readonly waitMs: number) {}

  /** Takes the lock for a request's Joint; call the result once to give it back. */
  async acquire(requestId: string): Promise<() => void> {
    const release = await this.mutex.acquire();
    this.holder = requestId;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holder = undefined;
      release();
    };
  }

  runExclusive<T>(work: () => T | Promise<T>): Promise<T> {
    return this.mutex.runExclusive(work);
  }

  /**
   * Runs an operator's write once no Joint holds the lock, waiting at most a moment: a
   * Joint keeps its transaction open until its input is read, so a longer wait would leave
   * the caller hanging. Meeting a busy database answers 409, naming the request.
   */
  async operatorWrite<T>(write: () => T | Promise<T>): Promise<T> {
    try {
      return await withTimeout(this.mutex, this.waitMs).runExclusive(write);
    } catch (error) {
      if (error !== E_TIMEOUT) throw error;
      throw stateConflict(
        `The action database is being written by request ${this.holder ?? 'another request'}; try again when it ends.`,
      );
    }
  }
}
