import { useSyncExternalStore } from 'react';

// Whether the service could be reached on the last call: a network failure sets it, any
// answer (even an error status) clears it. The banner in the shell shows it.

let unreachable = false;
const listeners = new Set<() => void>();

export function markReachable(reachable: boolean): void {
  if (unreachable === !reachable) return;
  unreachable = !reachable;
  for (const listener of listeners) listener();
}

export function useUnreachable(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => unreachable,
  );
}
