/**
 * Where the keyboard's focus goes after a retry or cancel on the requests list when the
 * button that opened its dialog is gone: the list is read again while the dialog is open, and
 * a request that left the view's status filter (a retried Error now running or finished)
 * takes its row and buttons along.
 */

/**
 * The rows to try, best first: the rows acted on, then the others after the first of them as
 * the list stood when the dialog opened (the one that took its place), then the rows before
 * it, nearest first.
 */
export function focusCandidates(shownIds: readonly string[], actedOn: readonly string[]): string[] {
  const acted = new Set(actedOn);
  const positions = shownIds.flatMap((id, index) => (acted.has(id) ? [index] : []));
  if (positions.length === 0) return [...actedOn];
  const first = Math.min(...positions);
  const after = shownIds.slice(first + 1).filter((id) => !acted.has(id));
  const before = shownIds
    .slice(0, first)
    .filter((id) => !acted.has(id))
    .reverse();
  return [...actedOn, ...after, ...before];
}

/**
 * The first candidate row on the page now: its request id's link, or the row itself made
 * focusable; else `last` (the list's heading), so that focus never falls to the page's body.
 */
export function rowFocusTarget(
  candidates: readonly string[],
  last: HTMLElement | null,
): HTMLElement | undefined {
  for (const id of candidates) {
    const row = document.querySelector<HTMLElement>(`tr[data-request="${CSS.escape(id)}"]`);
    if (!row) continue;
    const link = row.querySelector<HTMLElement>('a[href]');
    if (link) return link;
    row.tabIndex = -1;
    return row;
  }
  return last ?? undefined;
}
