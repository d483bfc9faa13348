import { describe, expect, it } from "vitest";
import { changeDetail, formatVersionDate } from "./version-history";

describe("a changed file's line", () => {
  it("names both sizes when they differ, and says the content changed when they do not", () => {
    expect(changeDetail(64, 2048)).toBe("64.00 Bytes → 2.00 KB");
    expect(changeDetail(64, 64)).toBe("content changed");
  });
});

describe("a version's date", () => {
  it("reads as day, short month and year, in UTC wherever it is rendered", () => {
    expect(formatVersionDate("2026-03-05T23:30:00.000Z")).toBe("5 Mar 2026");
    expect(formatVersionDate("2025-12-31T00:00:00.000Z")).toBe("31 Dec 2025");
    // The same words as toLocaleDateString with the same options, formatting per call.
    const iso = "2026-11-24T08:00:00.000Z";
    expect(formatVersionDate(iso)).toBe(new Date(iso).toLocaleDateString("en-GB", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }));
  });
});
