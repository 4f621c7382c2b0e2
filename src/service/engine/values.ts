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
