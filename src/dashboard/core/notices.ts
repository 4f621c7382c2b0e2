import { useSyncExternalStore } from 'react';

/** A short message shown at the corner, e.g. an action's result or a refusal. */
export interface Notice {
  readonly id: number;
  readonly kind: 'error' | 'success' | 'info';
  readonly text: string;
  readonly code?: number | undefined;
}

let notices: readonly Notice[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

export function notify(notice: Omit<Notice, 'id'>): void {
  const id = nextId++;
  notices = [...notices.filter((n) => n.text !== notice.text), { ...notice, id }].slice(-4);
  emit();
  setTimeout(() => dismiss(id), notice.kind === 'error' ? 10_000 : 5_000);
}

export function dismiss(id: number): void {
  notices = notices.filter((n) => n.id !== id);
  emit();
}

export function useNotices(): readonly Notice[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => notices,
  );
}
