/** Texts of the pieces several features share; each feature keeps its own next to it. */
export const strings = {
  pager: {
    // The total is grouped (10,000) and the bounds are not: the e2e specs read both.
    range: (from: number, to: number, total: number | undefined) =>
      `${from}–${to}${total === undefined ? '' : ` of ${total.toLocaleString()}`}`,
    empty: '0',
    previous: 'Previous page',
    next: 'Next page',
  },
  runmodeFailed: (id: string) => `Could not change the Runmode of ${id}; it was put back.`,
  retry: 'Retry',
  cancel: 'Cancel',
  retryNotAllowed: (status: string) =>
    `A ${status} request cannot be retried; only Error and Stop can.`,
  cancelNotAllowed: (status: string) =>
    `A ${status} request cannot be cancelled; only Wait, Start and Process can.`,
  confirm: {
    retryTitle: (n: number) => (n === 1 ? 'Retry this request?' : `Retry these ${n} requests?`),
    cancelTitle: (n: number) => (n === 1 ? 'Cancel this request?' : `Cancel these ${n} requests?`),
    retryText: 'Each runs again from the stage where it stopped.',
    cancelText: 'A running request stops at its next batch; nothing it wrote stays half-written.',
    go: 'Yes, go ahead',
    keep: 'Keep as is',
    done: 'Close',
    ok: 'done',
  },
} as const;
