/**
 * How far before a read a request list's AsOf is put (contract section 8), by the embedded
 * engine and by a gateway's index alike. `since` is by the second and inclusive, and a change
 * stamped just before a read may commit just after it (the engine stamps, then writes): a
 * few seconds of overlap mean a change is read twice, never missed.
 */
export const AS_OF_MARGIN_MS = 2000;
