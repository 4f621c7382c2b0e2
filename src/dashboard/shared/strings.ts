// One grouping for every count the dashboard shows, in the catalogue's language rather than
// the browser's, so that "100,001–100,006 of 100,006" reads the same everywhere.
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** A count as the dashboard writes it: 100006 as "100,006". */
export const formatCount = (n: number): string => COUNT_FORMAT.format(n);

/** Texts of the pieces several features share; each feature keeps its own next to it. */
export const strings = {
  pager: {
    range: (from: number, to: number, total: number | undefined) =>
      `${formatCount(from)}–${formatCount(to)}${total === undefined ? '' : ` of ${formatCount(total)}`}`,
    empty: '0',
    first: 'First page',
    previous: 'Previous page',
    next: 'Next page',
    last: 'Last page',
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
