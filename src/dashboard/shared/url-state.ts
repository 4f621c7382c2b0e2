/** Readers of page state from the URL, which is its source of truth on every page. */

/** A page's first row from `index`: a whole number of at least 0, else 0. */
export function indexFrom(value: string | null): number {
  return Math.max(0, Number.parseInt(value ?? '0', 10) || 0);
}

/** A day as yyyymmdd from `date`, else the fallback (today, for the pages that show one). */
export function dayFrom(value: string | null, fallback: () => string): string {
  return value !== null && /^\d{8}$/.test(value) ? value : fallback();
}
