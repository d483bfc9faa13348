// Values that cost far more to make than to use (Intl formatters), kept by key. Never stale: a
// key always makes the same value. Bounded, the least recently used dropped first, because keys
// come from what visitors send (Accept-Language, the time-zone cookie, a currency code) and one
// formatter holds about 30 KiB: unbounded, a client cycling through locales and zones could grow a
// worker by gigabytes. Browser-safe.

/** A memo of at most `limit` values: `memo(key, make)` answers the kept value, or makes and keeps it. */
export function boundedMemo<V>(limit: number): (key: string, make: () => V) => V {
  const kept = new Map<string, V>();
  return (key, make) => {
    if (kept.has(key)) {
      const value = kept.get(key) as V;
      // A Map iterates in insertion order: moved to the end, the first key is the least recently used.
      kept.delete(key);
      kept.set(key, value);
      return value;
    }
    const value = make();
    if (kept.size >= limit) kept.delete(kept.keys().next().value as string);
    kept.set(key, value);
    return value;
  };
}
