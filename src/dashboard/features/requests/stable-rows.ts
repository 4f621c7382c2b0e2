import { useState } from 'react';
import type { RequestSummary } from '../../../kit/index.ts';

export interface Shown {
  readonly key: string;
  readonly ids: readonly string[];
  /** Last known state of each shown row, for rows a newer page has pushed out. */
  readonly known: ReadonlyMap<string, RequestSummary>;
  /** The rows this state was last brought up to date with. */
  readonly from: readonly RequestSummary[] | undefined;
}

export const fresh = (key: string, rows: readonly RequestSummary[]): Shown => ({
  key,
  ids: rows.map((r) => r.requestId),
  known: new Map(rows.map((r) => [r.requestId, r])),
  from: rows,
});

/**
 * Keeps the rows a person is looking at in place while the list refreshes: rows already
 * shown are updated where they are, and requests that arrived since are only counted
 * until `showNew` is called. Resets when the view (date, pipeline, page) changes.
 */
/** The next state after new rows arrived for a view; the same object when nothing changes. */
export function advance(shown: Shown, viewKey: string, rows: readonly RequestSummary[]): Shown {
  if (shown.from === rows) return shown;
  if (shown.key !== viewKey) return fresh(viewKey, rows);
  const known = new Map(shown.known);
  for (const row of rows) if (known.has(row.requestId)) known.set(row.requestId, row);
  return { ...shown, known, from: rows };
}

/** What to show: the pinned rows in their order with their latest state, and how many are new. */
export function view(
  shown: Shown,
  viewKey: string,
  rows: readonly RequestSummary[] | undefined,
): { rows: RequestSummary[]; newCount: number } {
  if (shown.key !== viewKey) return { rows: [], newCount: 0 };
  const latest = new Map((rows ?? []).map((r) => [r.requestId, r]));
  const pinned = new Set(shown.ids);
  return {
    rows: shown.ids
      .map((id) => latest.get(id) ?? shown.known.get(id))
      .filter((r): r is RequestSummary => r !== undefined),
    newCount: (rows ?? []).filter((r) => !pinned.has(r.requestId)).length,
  };
}

export function useStableRows(
  viewKey: string,
  rows: readonly RequestSummary[] | undefined,
  fetchedForView: boolean,
) {
  const [shown, setShown] = useState<Shown>({
    key: '',
    ids: [],
    known: new Map(),
    from: undefined,
  });
  // State follows new data during render (React's pattern for deriving from props), not in an effect.
  if (fetchedForView && rows) {
    const next = advance(shown, viewKey, rows);
    if (next !== shown) setShown(next);
  }
  return {
    ...view(shown, viewKey, rows),
    showNew: () => {
      if (rows) setShown(fresh(viewKey, rows));
    },
  };
}
