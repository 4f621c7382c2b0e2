// What is left of the shared texts before the catalogue: only what files outside the
// requests features still import (overview's counts, shared/queries.ts's Runmode notice).
// Delete this file once they read the catalogue instead.
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** A count as the dashboard writes it: 100006 as "100,006". */
export const formatCount = (n: number): string => COUNT_FORMAT.format(n);

export const strings = {
  runmodeFailed: (id: string) => `Could not change the Runmode of ${id}; it was put back.`,
} as const;
