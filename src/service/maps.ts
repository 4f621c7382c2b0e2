/**
 * The value of `key`, made by `make` and kept there first if it has none: TC39's
 * `Map.prototype.getOrInsertComputed` (the "upsert" proposal), which Node 20 lacks.
 */
export function getOrInsertComputed<K, V>(
  map: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  make: (key: K) => V,
): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make(key);
    map.set(key, value);
  }
  return value;
}
