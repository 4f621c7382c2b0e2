import type { Worker } from 'node:worker_threads';
import { StageFailure } from './failures.ts';
import type { StageJob } from './stage-source.ts';
import type { EncodedEvent, ToMain, ToWorker } from './stage-wire.ts';
import { startThread } from './thread-script.ts';

class WorkerFailure extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * Worker threads that read and filter (stage-worker.ts), so that parsing a large input
 * leaves the event loop to the API. A thread is started on first use and kept for the next
 * job: starting one costs a few hundred milliseconds (the first one bundles the readers,
 * see thread-script.ts). A job that is cancelled or left early ends its thread; the next job starts
 * another.
 */
export class StageWorkers {
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  private closed = false;

  private spawn(): Worker {
    // 16 MB: with 8 the thread spent a third more time in the garbage collector (a 1,000,000
    // row read alone: 1.97 s against 1.38 s at 4 MB semi-spaces and 1.11 s at 16), and it
    // fits in the memory the service saves by running bundled (launch.mjs) and with a small
    // young generation on its main thread (package.json's scripts).
    const worker = startThread(new URL('./stage-worker.ts', import.meta.url), {}, 16);
    worker.once('exit', () => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    });
    // A thread must not keep the process alive: shutdown ends them, but a test may not.
    worker.unref();
    return worker;
  }

  /** Starts a thread ahead of the first job, so that the first request does not wait for it. */
  warm(): void {
    if (this.closed || this.idle.length > 0 || this.busy.size > 0) return;
    this.idle.push(this.spawn());
  }

  private take(): Worker {
    const worker = this.idle.pop() ?? this.spawn();
    this.busy.add(worker);
    return worker;
  }

  private release(worker: Worker, reusable: boolean): void {
    this.busy.delete(worker);
    if (reusable && !this.closed) this.idle.push(worker);
    else void worker.terminate();
  }

  /**
   * Runs a job on a worker thread and yields its events as stageEvents() would, with the
   * rows still encoded: the Joint's thread decodes them, the main thread need not. Once the
   * signal is aborted the thread is ended and its reason thrown.
   */
  async *run(job: StageJob, signal: AbortSignal): AsyncGenerator<EncodedEvent> {
    signal.throwIfAborted();
    const worker = this.take();
    const queue: (ToMain | { kind: 'crash'; message: string })[] = [];
    let wake: (() => void) | undefined;
    const push = (message: (typeof queue)[number]): void => {
      queue.push(message);
      wake?.();
    };
    const onMessage = (message: ToMain): void => push(message);
    const onError = (error: Error): void => push({ kind: 'crash', message: error.message });
    const onExit = (code: number): void =>
      push({ kind: 'crash', message: `the reader thread stopped (exit code ${code})` });
    const onAbort = (): void => wake?.();
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    signal.addEventListener('abort', onAbort);
    let reusable = false;
    try {
      worker.postMessage({ kind: 'job', job } satisfies ToWorker);
      for (;;) {
        signal.throwIfAborted();
        const message = queue.shift();
        if (!message) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        switch (message.kind) {
          case 'done':
            reusable = true;
            return;
          case 'crash':
            throw new Error(message.message);
          case 'error':
            // The thread finished its job and reported; it can take the next one.
            reusable = true;
            if (message.stage) throw new StageFailure(message.stage, message.message);
            throw new WorkerFailure(message.message, message.code);
          case 'rows':
            worker.postMessage({ kind: 'taken' } satisfies ToWorker);
            yield message;
            break;
          default:
            yield message;
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      this.release(worker, reusable);
    }
  }

  /** Ends every thread (service shutdown); running jobs end with their own signal. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.idle.splice(0), ...this.busy].map((w) => w.terminate()));
  }
}
