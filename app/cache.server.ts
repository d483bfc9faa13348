// Every in-process cache of the app lives behind this one boundary, with one rule for when an
// entry is stale. An entry is made from data at a version, and its value may also change with
// time alone. It is fresh while
//   1. the version the caller reads now is the version it was made from: every write that could
//      change the value moves the version (a database stamp bumped by triggers, or the content
//      itself when the key is a hash of the data), and
//   2. the time is before its `until`: the first instant at which the value would change with no
//      write at all (a badge that ends, a release step that opens, a vote that closes).
// Anything else is made again. Each cache holds at most `maxEntries` (the least recently used
// goes first), and concurrent misses of one key wait for the same making.
// docs/decisions/015-one-cache-boundary.md lists the caches and what each one saves.

/** What making an entry answers: the value, and when it goes stale with time alone (epoch ms; never when absent). */
export type Made<V> = { value: V; until?: number };

export type Cache<V> = {
  /** The value for `key` made at `version`, made (once, however many ask at the same moment) when none is fresh. */
  get(key: string, version: string, make: () => Promise<Made<V>>, now?: number): Promise<V>;
  /** The fresh value for `key` at `version`, if there is one, without making it. */
  peek(key: string, version: string, now?: number): V | undefined;
  /** Keeps a value made elsewhere (an answer just sent) for `key` at `version`. */
  set(key: string, version: string, made: Made<V>): void;
  /** Drops every entry (tests, and a process that must forget on its own). */
  clear(): void;
  readonly size: number;
};

type Entry<V> = { version: string; until: number; value: V };

/** A cache of at most `maxEntries` entries. */
export function createCache<V>(maxEntries: number): Cache<V> {
  const entries = new Map<string, Entry<V>>();
  const making = new Map<string, { version: string; promise: Promise<V> }>();

  const fresh = (key: string, version: string, now: number): Entry<V> | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.version !== version || now >= entry.until) {
      entries.delete(key);
      return undefined;
    }
    // Map order is insertion order: a hit moves to the back, so the least recently used goes first.
    entries.delete(key);
    entries.set(key, entry);
    return entry;
  };

  const keep = (key: string, version: string, made: Made<V>) => {
    entries.delete(key);
    entries.set(key, { version, until: made.until ?? Number.POSITIVE_INFINITY, value: made.value });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
  };

  return {
    async get(key, version, make, now = Date.now()) {
      const entry = fresh(key, version, now);
      if (entry) return entry.value;
      const pending = making.get(key);
      if (pending?.version === version) return pending.promise;
      const attempt = make();
      const value = attempt.then((made) => made.value);
      // Those who wait for it see a failure; nobody waiting is no unhandled rejection.
      value.catch(() => undefined);
      making.set(key, { version, promise: value });
      try {
        const made = await attempt;
        keep(key, version, made);
        return made.value;
      } finally {
        if (making.get(key)?.version === version) making.delete(key);
      }
    },
    set: keep,
    peek(key, version, now = Date.now()) {
      return fresh(key, version, now)?.value;
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
