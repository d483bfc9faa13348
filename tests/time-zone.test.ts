// Wall-clock times in the creator's time zone (app/utils/time-zone.ts): what the release editor
// sends is read in that zone, and shown back the same.
import { describe, expect, it } from "vitest";
import { formatDayTime } from "~/utils/dates";
import { instantToZoned, isTimeZone, zonedToInstant } from "~/utils/time-zone";

describe("creator time zone", () => {
  it("reads a wall-clock time in the zone, in winter and in summer", () => {
    expect(zonedToInstant("2026-12-01T18:00", "Europe/Berlin")?.toISOString()).toBe("2026-12-01T17:00:00.000Z");
    expect(zonedToInstant("2026-07-01T18:00", "Europe/Berlin")?.toISOString()).toBe("2026-07-01T16:00:00.000Z");
    expect(zonedToInstant("2026-12-01T18:00", "America/New_York")?.toISOString()).toBe("2026-12-01T23:00:00.000Z");
    expect(zonedToInstant("2026-12-01T18:00", "UTC")?.toISOString()).toBe("2026-12-01T18:00:00.000Z");
  });

  it("refuses what is not a wall-clock time", () => {
    expect(zonedToInstant("tomorrow", "UTC")).toBeNull();
    expect(zonedToInstant("2026-12-01T18:00Z", "UTC")).toBeNull();
  });

  it("shows an instant back as the same wall-clock time", () => {
    expect(instantToZoned(new Date("2026-12-01T17:00:00Z"), "Europe/Berlin")).toBe("2026-12-01T18:00");
    expect(instantToZoned(zonedToInstant("2026-03-29T12:30", "Europe/Berlin")!, "Europe/Berlin")).toBe("2026-03-29T12:30");
    expect(formatDayTime(new Date("2026-12-01T17:00:00Z"), { timeZone: "Europe/Berlin" })).toBe("1 Dec 2026, 18:00");
  });

  it("knows real zones only", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
  });
});
