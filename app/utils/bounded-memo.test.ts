import { describe, expect, it } from "vitest";
import { boundedMemo } from "./bounded-memo";

describe("boundedMemo", () => {
  it("makes a value once per key and answers it again", () => {
    const memo = boundedMemo<{ key: string }>(4);
    const made: string[] = [];
    const make = (key: string) => () => {
      made.push(key);
      return { key };
    };
    const first = memo("a", make("a"));
    expect(memo("a", make("a"))).toBe(first);
    memo("b", make("b"));
    expect(made).toEqual(["a", "b"]);
  });

  it("keeps at most its limit, dropping the least recently used first", () => {
    const memo = boundedMemo<string>(3);
    const made: string[] = [];
    const use = (key: string) => memo(key, () => (made.push(key), key));
    for (const key of ["a", "b", "c"]) use(key);
    use("a"); // now b is the least recently used
    use("d"); // drops b
    expect(made).toEqual(["a", "b", "c", "d"]);
    use("a");
    use("c");
    use("d");
    expect(made).toEqual(["a", "b", "c", "d"]);
    use("b"); // dropped: made again
    expect(made).toEqual(["a", "b", "c", "d", "b"]);
  });

  it("keeps a value of null, and keeps nothing when making throws", () => {
    const memo = boundedMemo<string | null>(2);
    let calls = 0;
    expect(memo("x", () => (calls++, null))).toBeNull();
    expect(memo("x", () => (calls++, "other"))).toBeNull();
    expect(calls).toBe(1);
    expect(() =>
      memo("bad", () => {
        throw new RangeError("no such zone");
      }),
    ).toThrow(RangeError);
    expect(memo("bad", () => "made")).toBe("made");
  });

  it("holds a bounded number of Intl formatters however many locales and zones are asked for", () => {
    const memo = boundedMemo<Intl.DateTimeFormat>(16);
    let made = 0;
    const zones = Intl.supportedValuesOf("timeZone").slice(0, 200);
    for (const locale of ["en-GB", "en-US", "de-DE"]) {
      for (const timeZone of zones) memo(`${locale}|${timeZone}`, () => (made++, new Intl.DateTimeFormat(locale, { timeZone })));
    }
    expect(made).toBe(600);
    // The most recent 16 are kept: asking for them again makes none.
    for (const timeZone of zones.slice(-16)) memo(`de-DE|${timeZone}`, () => (made++, new Intl.DateTimeFormat("de-DE", { timeZone })));
    expect(made).toBe(600);
  });
});
