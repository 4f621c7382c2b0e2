/** localStorage for view preferences and remembered sign-ins; failures (private mode) are ignored. */
export function readStored<T>(
  storage: Storage,
  key: string,
  fallback: T,
  valid: (value: unknown) => value is T,
): T {
  try {
    const text = storage.getItem(key);
    if (text === null) return fallback;
    const value: unknown = JSON.parse(text);
    return valid(value) ? value : fallback;
  } catch {
    return fallback;
  }
}

export function writeStored(storage: Storage, key: string, value: unknown): void {
  try {
    if (value === undefined) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or disabled: the preference lasts for this page only.
  }
}
