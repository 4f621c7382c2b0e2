import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's scheduling priority (a nice value) so that, when it competes
 * with the main thread for a core, the main thread, which answers the API, wins. Linux takes
 * a thread's id where a process id goes (/proc/thread-self names it), so only this thread
 * changes; elsewhere the thread keeps the process's priority.
 */
export function lowerThreadPriority(nice: number): void {
  if (nice <= 0) return;
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // Not Linux: nothing to do.
  }
}
