/**
 * Parses a query string or form body with the WHATWG rules (URLSearchParams): a field given
 * twice becomes an array, and bytes that are not UTF-8 become U+FFFD, which the parameter
 * checks refuse (the default parser keeps such `%FF` text as it was, as if it were meant).
 */
export function parseForm(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<
    string,
    string | string[]
  >;
  for (const [name, value] of new URLSearchParams(text)) {
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[name] = [existing, value];
  }
  return out;
}
