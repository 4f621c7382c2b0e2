import { useMemo, useState } from 'react';
import type { RequestSummary } from '../../../kit/index.ts';

interface Shown {
  readonly key: string;
  readonly ids: readonly string[];
  /** Last known state of each shown row, for rows a newer page has pushed out. */
  readonly known: ReadonlyMap<string, RequestSummary>;
  /** The rows this state was last brought up to date with. */
  readonly from: readonly RequestSummary[] | undefined;
}

const fresh = (key: string, rows: readonly RequestSummary[]): Shown => ({
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
  if (fetchedForView && rows && shown.from !== rows) {
    if (shown.key !== viewKey) {
      setShown(fresh(viewKey, rows));
    } else {
      const known = new Map(shown.known);
      for (const row of rows) if (known.has(row.requestId)) known.set(row.requestId, row);
      setShown({ ...shown, known, from: rows });
    }
  }
  const latest = useMemo(() => new Map((rows ?? []).map((r) => [r.requestId, r])), [rows]);
  const current = shown.key === viewKey ? shown.ids : [];
  const shownSet = new Set(current);
  const newCount =
    shown.key === viewKey ? (rows ?? []).filter((r) => !shownSet.has(r.requestId)).length : 0;
  const visible = current
    .map((id) => latest.get(id) ?? shown.known.get(id))
    .filter((r): r is RequestSummary => r !== undefined);
  return {
    rows: visible,
    newCount,
    showNew: () => {
      if (rows) setShown(fresh(viewKey, rows));
    },
  };
}
