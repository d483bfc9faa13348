// The one staleness rule of app/cache.server.ts: same version and before `until`, else made again.
import { describe, expect, it } from "vitest";
import { createCache } from "./cache.server";

describe("createCache", () => {
  it("answers the kept value while its version is current, and makes it again once a write moved the version", async () => {
    const cache = createCache<string>(4);
    let made = 0;
    const make = async () => ({ value: `made ${++made}` });
    expect(await cache.get("k", "v1", make)).toBe("made 1");
    expect(await cache.get("k", "v1", make)).toBe("made 1");
    expect(await cache.get("k", "v2", make)).toBe("made 2");
    expect(cache.peek("k", "v1")).toBeUndefined();
  });

  it("makes the value again once the time passes its `until`, with no write at all", async () => {
    const cache = createCache<string>(4);
    const opensAt = 1_000_000;
    const make = async () => ({ value: "locked", until: opensAt });
    expect(await cache.get("post", "v1", make, opensAt - 1)).toBe("locked");
    expect(cache.peek("post", "v1", opensAt - 1)).toBe("locked");
    expect(cache.peek("post", "v1", opensAt)).toBeUndefined();
    expect(await cache.get("post", "v1", async () => ({ value: "open" }), opensAt)).toBe("open");
  });

  it("makes a value once however many ask for it at the same moment", async () => {
    const cache = createCache<number>(4);
    let made = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const make = async () => {
      made += 1;
      await gate;
      return { value: made };
    };
    const asks = [cache.get("k", "v", make), cache.get("k", "v", make), cache.get("k", "v", make)];
    release();
    expect(await Promise.all(asks)).toEqual([1, 1, 1]);
    expect(made).toBe(1);
  });

  it("keeps at most its bound, dropping the least recently used first", async () => {
    const cache = createCache<string>(2);
    cache.set("a", "v", { value: "A" });
    cache.set("b", "v", { value: "B" });
    expect(cache.peek("a", "v")).toBe("A");
    cache.set("c", "v", { value: "C" });
    expect(cache.peek("b", "v")).toBeUndefined();
    expect(cache.peek("a", "v")).toBe("A");
    expect(cache.peek("c", "v")).toBe("C");
  });

  it("keeps nothing when making fails, and tries again on the next ask", async () => {
    const cache = createCache<string>(2);
    await expect(cache.get("k", "v", async () => Promise.reject(new Error("database down")))).rejects.toThrow("database down");
    expect(await cache.get("k", "v", async () => ({ value: "back" }))).toBe("back");
  });
});
