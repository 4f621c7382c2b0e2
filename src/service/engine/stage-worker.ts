import { parentPort } from 'node:worker_threads';
import { StageFailure } from './failures.ts';
import { stageEvents, type StageEvent, type StageJob } from './stage-source.ts';
import { encodeBatch, transferables, type ToMain, type ToWorker } from './stage-wire.ts';
import { lowerThreadPriority } from './thread-priority.ts';

// Runs one StageJob at a time for the engine's main thread (see stage-pool.ts).

const port = parentPort;
if (!port) throw new Error('stage-worker.ts runs as a worker thread');

// On two cores this thread, the Joint's writer and the main one compete for the cores; the
// main thread, which answers the API, should win. A/B runs of the ingest benchmark (three
// each, load average 10–13) kept it: at nice 10 light reads' p99 during the ingest was
// 23–33 ms (0.46–0.67 of idle) against 32–85 ms (1.56–2.26 of idle) at nice 0, and the
// ingest ratio was no worse (0.56–0.97 against 0.47–1.06).
lowerThreadPriority(10);

/** Batches posted and not yet taken by the main thread; reading pauses at the bound. */
const IN_FLIGHT = 4;
let inFlight = 0;
let resume: (() => void) | undefined;

function post(message: ToMain, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

async function postEvent(event: StageEvent): Promise<void> {
  if (event.kind !== 'rows') return post(event);
  const rows = encodeBatch(event.rows);
  post(
    { kind: 'rows', rows, read: event.read, sensorMs: event.sensorMs, filterMs: event.filterMs },
    transferables(rows),
  );
  inFlight++;
  while (inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => (resume = resolve));
}

async function run(job: StageJob): Promise<void> {
  try {
    for await (const event of stageEvents(job)) await postEvent(event);
    post({ kind: 'done' });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    post({
      kind: 'error',
      stage: error instanceof StageFailure ? error.stage : undefined,
      message: error instanceof Error ? error.message : String(error),
      code: typeof code === 'string' ? code : undefined,
    });
  }
}

port.on('message', (message: ToWorker) => {
  if (message.kind === 'taken') {
    inFlight--;
    resume?.();
    resume = undefined;
  } else {
    inFlight = 0;
    void run(message.job);
  }
});
