import type { VendorBehaviour } from './behaviour.ts';
import { VENDOR_VARIANTS, type VendorVariant } from './vendor-service.ts';

// The switches multiply to tens of thousands of vendors; most faults need only two of them
// to meet. An all-pairs cover meets every two values of every two switches in a few dozen
// vendors, the same ones on every run, so a failure names a vendor that can be started again.

type Dimensions = Readonly<Record<string, readonly unknown[]>>;

/** One combination: a value of each dimension. */
export type Combination<D extends Dimensions> = { -readonly [K in keyof D]: D[K][number] };

/**
 * Combinations covering every pair of values of every two dimensions, built greedily and
 * deterministically: each starts from the first pair not yet covered, then takes for every
 * other dimension (the widest first) the value that covers the most new pairs, the earliest
 * on a tie.
 */
export function pairwiseBehaviours<const D extends Dimensions>(dimensions: D): Combination<D>[] {
  const names = Object.keys(dimensions);
  const sizes = names.map((name) => (dimensions[name] as readonly unknown[]).length);
  if (sizes.some((size) => size === 0)) throw new Error('Every dimension needs a value');
  const pair = (i: number, a: number, j: number, b: number) =>
    i < j ? `${i}:${a}/${j}:${b}` : `${j}:${b}/${i}:${a}`;
  const uncovered = new Map<string, [number, number, number, number]>();
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++)
      for (let a = 0; a < (sizes[i] as number); a++)
        for (let b = 0; b < (sizes[j] as number); b++)
          uncovered.set(pair(i, a, j, b), [i, a, j, b]);
  const widestFirst = names
    .map((_, i) => i)
    .sort((x, y) => (sizes[y] as number) - (sizes[x] as number));
  const rows: number[][] = [];
  const cover = (row: number[]) => {
    for (let i = 0; i < row.length; i++)
      for (let j = i + 1; j < row.length; j++)
        uncovered.delete(pair(i, row[i] as number, j, row[j] as number));
  };
  if (names.length < 2)
    for (let a = 0; a < (sizes[0] ?? 1); a++) rows.push(names.length === 0 ? [] : [a]);
  while (uncovered.size > 0) {
    const [i, a, j, b] = uncovered.values().next().value as [number, number, number, number];
    const row: (number | undefined)[] = names.map(() => undefined);
    row[i] = a;
    row[j] = b;
    for (const k of widestFirst) {
      if (row[k] !== undefined) continue;
      let best = 0;
      let bestGain = -1;
      for (let v = 0; v < (sizes[k] as number); v++) {
        let gain = 0;
        row.forEach((w, m) => {
          if (w !== undefined && m !== k && uncovered.has(pair(k, v, m, w))) gain++;
        });
        if (gain > bestGain) [best, bestGain] = [v, gain];
      }
      row[k] = best;
    }
    cover(row as number[]);
    rows.push(row as number[]);
  }
  return rows.map(
    (row) =>
      Object.fromEntries(
        names.map((name, i) => [name, (dimensions[name] as readonly unknown[])[row[i] as number]]),
      ) as Combination<D>,
  );
}

/**
 * The vendors worth meeting: each switch with its telling values, and the failures told
 * through the two variants. Left out: latencyMs and concurrency, which a test sets for what
 * it times; and declare, whose other values leave some answers (plain-text refusals, JSON)
 * with no charset anywhere, which tests of declaring pick on purpose.
 */
export const VENDOR_SPACE = {
  variant: [VENDOR_VARIANTS.kanto, VENDOR_VARIANTS.pacific],
  pagesize: ['honoured', 'ignored', { cap: 250 }],
  index: [false, true, 'pages'],
  next: ['always-1', 'stated', 'absent'],
  order: ['newest', 'oldest'],
  total: [false, true],
  charset: ['utf-8', 'shift_jis', 'euc-jp'],
  bom: [false, true],
  language: ['en', 'ja'],
  dates: ['dash', 'slash', 'iso', 'millis', 'zoned'],
  echoKey: [false, true],
  sessionId: [true, false],
  gzip: [false, true],
  failureLog: ['closing', 'app-log', 'none'],
} as const satisfies { readonly variant: readonly VendorVariant[] } & {
  readonly [K in keyof VendorBehaviour]?: readonly VendorBehaviour[K][];
};

/**
 * The pairwise cover of VENDOR_SPACE. Each is started as
 * `const { variant, ...behaviour } = vendor; startVendorService({ variant, behaviour })`.
 */
export const VENDOR_PAIRWISE: readonly Combination<typeof VENDOR_SPACE>[] =
  pairwiseBehaviours(VENDOR_SPACE);
