import type { Row, Value } from '../db/action/row.ts';

// The row's types are the action database's (db/action/row.ts), which stands below the engine.
export type { Row, Value };

/** A number when the value reads as one (`'12.5'` → 12.5), else undefined. */
export function asNumber(value: Value): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string' || value.length === 0) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) return undefined;
  // Number() reads blank text as 0; only then is the (slower) blank check needed.
  return n === 0 && value.trim() === '' ? undefined : n;
}

export function asText(value: Value): string {
  return value === null ? '' : String(value);
}

/** Substitutes `${name}` with pipeline args; unknown names are left as written. */
export function substitute(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{([A-Za-z][A-Za-z0-9_]*)\}/g, (whole, name: string) =>
    Object.hasOwn(vars, name) ? (vars[name] as string) : whole,
  );
}

/**
 * The row's own value of a field, null when the row has none. Rows are plain objects, so a
 * bare `row[name]` would hand a definition that names `constructor` or `toString` the
 * members of Object.prototype.
 */
export function fieldOf(row: Row, name: string): Value {
  return Object.hasOwn(row, name) ? (row[name] ?? null) : null;
}

/**
 * Sets a field as an own property. Assigning `__proto__` on a plain object would call the
 * prototype setter instead: a string value would vanish and null would strip the prototype.
 * Rows stay plain objects rather than Object.create(null) ones because V8 builds those in
 * dictionary mode, which made building a million rows about twice as slow.
 */
export function setField(row: Row, name: string, value: Value): void {
  if (name === '__proto__')
    Object.defineProperty(row, name, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  else row[name] = value;
}

/**
 * Rows as a reader or a filter passes them on. A CSV's rows share their fields in one
 * order, so they go as the names once and each row's values in that order (`cells`: Papa's
 * own arrays), never built as objects. Building a million rows as objects and reading them
 * back by name took about a third of the reader thread's time: the ingest benchmark's file
 * read, filtered and encoded in 0.91–1.0 s as objects against 0.67–0.70 s as cells, and a
 * whole ingest took 1.25–1.27 s against 1.47–1.54 s (two runs each, one after the other).
 * keep and cast work on cells; rows of other shapes, and rows past an action that reshapes
 * them (select, rename, derive), are objects.
 */
export type Batch =
  { readonly names: readonly string[]; readonly cells: Value[][] } | { readonly objects: Row[] };

export function batchLength(batch: Batch): number {
  return 'cells' in batch ? batch.cells.length : batch.objects.length;
}

/** The batch's rows as objects. */
export function toObjects(batch: Batch): Row[] {
  if ('objects' in batch) return batch.objects;
  const { names, cells } = batch;
  const width = names.length;
  // Plain assignment keeps one hidden class for every row; only `__proto__` needs setField.
  const plain = !names.includes('__proto__');
  const rows = new Array<Row>(cells.length);
  for (let r = 0; r < cells.length; r++) {
    const values = cells[r] as Value[];
    const row: Row = {};
    for (let i = 0; i < width; i++) {
      if (plain) row[names[i] as string] = values[i] as Value;
      else setField(row, names[i] as string, values[i] as Value);
    }
    rows[r] = row;
  }
  return rows;
}
