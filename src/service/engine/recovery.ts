import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../db/sqlite.ts';
import { dequeue, getRequest, queuedRequests } from '../db/status/requests.ts';
import { PARTIAL_PREFIX } from './joint-stage.ts';
import type { RequestRecorder } from './recorder.ts';

/**
 * After a crash: requests that were running become Error (retryable), or Stop when their
 * cancel had been accepted; requests that had been picked but not begun (Start) wait
 * again; leftovers of unfinished output files go, and waiting requests stay queued.
 * Returns how many requests it failed.
 */
export async function recover(
  status: Db,
  recorder: RequestRecorder,
  outbox: string,
): Promise<number> {
  let failed = 0;
  for (const { requestId, cancelRequested } of queuedRequests(status)) {
    const request = getRequest(status, requestId);
    if (!request) {
      dequeue(status, requestId);
    } else if (
      cancelRequested &&
      (request.status === 'Start' || request.status === 'Process' || request.status === 'Wait')
    ) {
      recorder.stop(request, 'Cancelled by request (the cancel was completed after a restart)');
    } else if (request.status === 'Start') {
      recorder.transition(request, { status: 'Wait' });
    } else if (request.status === 'Process') {
      const message = 'The service stopped while this request ran; retry it.';
      recorder.transition(request, {
        status: 'Error',
        errorMsg: message,
        end: true,
        log: { event: 'End', status: 'Error', message },
        appLog: { type: 'ERROR', message },
        dequeue: true,
      });
      failed++;
    } else if (request.status !== 'Wait') {
      dequeue(status, requestId);
    }
  }
  await mkdir(outbox, { recursive: true });
  for (const name of await readdir(outbox)) {
    if (name.startsWith(PARTIAL_PREFIX)) await rm(join(outbox, name), { force: true });
  }
  return failed;
}
