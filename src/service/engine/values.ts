/** A field value as rows carry it between stages. */
export type Value = string | number | boolean | null;
export type Row = Record<string, Value>;

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
