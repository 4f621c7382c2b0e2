import { useEffect, useSyncExternalStore, type FocusEvent } from 'react';

// Why a refused control is refused, shown beside it while it has the keyboard's focus: a
// title appears on hover only, and the control's aria-describedby reaches screen readers
// only. (A press or a tap shows the reason as a notice too: see Button.) One at a time, for
// the control that has the focus; gone when the focus leaves or the page scrolls.

interface Shown {
  readonly text: string;
  readonly control: HTMLElement;
  readonly left: number;
  /** From the viewport's top (below the control), or its bottom (above, near the bottom). */
  readonly top?: number;
  readonly bottom?: number;
}

/** The note's widest (max-w-xs) and a margin from the viewport's edges. */
const WIDTH = 320;
const MARGIN = 8;

let shown: Shown | null = null;
const listeners = new Set<() => void>();

function set(next: Shown | null): void {
  shown = next;
  for (const listener of listeners) listener();
}

/**
 * Focus handlers for a control refused for `reason` (none when it is allowed): a keyboard
 * focus shows the reason below the control; a pointer's does not (its press says it).
 */
export function reasonOnFocus(reason: string | undefined): {
  onFocus?: (event: FocusEvent<HTMLElement>) => void;
  onBlur?: () => void;
} {
  if (reason === undefined) return {};
  return {
    onFocus: (event) => {
      const control = event.currentTarget;
      if (!control.matches(':focus-visible')) return;
      const box = control.getBoundingClientRect();
      const left = Math.max(MARGIN, Math.min(box.left, window.innerWidth - WIDTH - MARGIN));
      set(
        box.bottom + 80 < window.innerHeight
          ? { text: reason, control, left, top: box.bottom + 6 }
          : { text: reason, control, left, bottom: window.innerHeight - box.top + 6 },
      );
    },
    onBlur: () => set(null),
  };
}

/** The reason of the focused refused control; the layout renders it once. */
export function FocusReason() {
  const current = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => shown,
  );
  useEffect(() => {
    if (!current) return;
    const hide = () => set(null);
    window.addEventListener('scroll', hide, { capture: true, passive: true });
    window.addEventListener('resize', hide);
    // A control re-rendered away takes its focus along without a blur.
    const gone = window.setInterval(() => {
      if (!current.control.isConnected || document.activeElement !== current.control) hide();
    }, 500);
    return () => {
      window.removeEventListener('scroll', hide, { capture: true });
      window.removeEventListener('resize', hide);
      window.clearInterval(gone);
    };
  }, [current]);
  if (!current) return null;
  return (
    // The control is described by the same text (aria-describedby): hidden from screen
    // readers here, so that it is not read twice.
    <div
      aria-hidden="true"
      data-testid="focus-reason"
      className="pointer-events-none fixed z-50 max-w-xs rounded-md bg-slate-900 px-2.5 py-1.5 text-xs text-white shadow-lg dark:bg-slate-100 dark:text-slate-900"
      style={{ left: current.left, top: current.top, bottom: current.bottom }}
    >
      {current.text}
    </div>
  );
}
