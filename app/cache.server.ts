// Every in-process cache of the app, with one rule for when an entry is stale: it is fresh while
// the version the caller reads now is the one it was made from (every write that could change the
// value moves the version: a database stamp bumped by triggers, or the key itself when it is a
// hash of the data), and the time is before its `until` (the first instant at which the value
// would change with no write). Anything else is made again. Each cache holds at most `maxEntries`,
// least recently used out first (lru-cache), and concurrent misses of one key share one making.
// docs/decisions/015-one-cache-boundary.md lists the caches and what each one saves.
import { LRUCache } from "lru-cache";

/** What making an entry answers: the value, and when it goes stale with time alone (epoch ms; never when absent). */
export type Made<V> = { value: V; until?: number };

type Entry<V> = { version: string; until: number; value: V };

export function createCache<V>(maxEntries: number) {
  const entries = new LRUCache<string, Entry<V>>({ max: maxEntries });
  const making = new Map<string, { version: string; value: Promise<V> }>();
  const fresh = (key: string, version: string, now: number) => {
    const entry = entries.get(key);
    return entry && entry.version === version && now < entry.until ? entry : undefined;
  };
  const keep = (key: string, version: string, made: Made<V>) => void entries.set(key, { version, until: made.until ?? Infinity, value: made.value });
  return {
    /** The value for `key` made at `version`, made (once, however many ask at the same moment) when none is fresh. */
    get(key: string, version: string, make: () => Promise<Made<V>>, now = Date.now()): Promise<V> {
      const entry = fresh(key, version, now);
      if (entry) return Promise.resolve(entry.value);
      const pending = making.get(key);
      if (pending?.version === version) return pending.value;
      const value = make().then((made) => (keep(key, version, made), made.value));
      making.set(key, { version, value });
      const done = () => void (making.get(key)?.value === value && making.delete(key));
      value.then(done, done);
      return value;
    },
    /** The fresh value for `key` at `version`, if there is one, without making it. */
    peek: (key: string, version: string, now = Date.now()) => fresh(key, version, now)?.value,
    /** Keeps a value made elsewhere (an answer just sent). */
    set: keep,
    get size() {
      return entries.size;
    },
  };
}
