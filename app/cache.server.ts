// Every in-process cache of the app, with one staleness rule (docs/decisions/015): an entry is fresh
// while the caller's version (which every write that could change the value moves) is the one it was
// made from and the time is before its `until` (when it would change with no write). At most
// `maxEntries` are kept, least recently used out first; concurrent misses of a key share one making.
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
    /** The value for `key` at `version`, made (once, however many ask at the same moment) when none is fresh. */
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
  };
}
