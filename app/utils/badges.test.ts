import { describe, expect, it } from "vitest";
import { badgesFor } from "./badges";

const now = new Date("2026-11-21T12:00:00Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);

describe("badgesFor", () => {
  it("marks posts first published within 3 days as New, and not Updated", () => {
    expect(badgesFor({ firstPublishedAt: daysAgo(1), lastUpdated: daysAgo(0.5) }, now)).toEqual({ isNew: true, isUpdated: false });
    expect(badgesFor({ firstPublishedAt: daysAgo(3), lastUpdated: null }, now)).toEqual({ isNew: true, isUpdated: false });
  });

  it("marks older posts updated within 3 days as Updated", () => {
    expect(badgesFor({ firstPublishedAt: daysAgo(10), lastUpdated: daysAgo(2) }, now)).toEqual({ isNew: false, isUpdated: true });
  });

  it("gives no badge outside the windows, for missing dates or dates in the future", () => {
    expect(badgesFor({ firstPublishedAt: daysAgo(3.01), lastUpdated: daysAgo(3.01) }, now)).toEqual({ isNew: false, isUpdated: false });
    expect(badgesFor({ firstPublishedAt: null, lastUpdated: undefined }, now)).toEqual({ isNew: false, isUpdated: false });
    expect(badgesFor({ firstPublishedAt: daysAgo(-1), lastUpdated: null }, now)).toEqual({ isNew: false, isUpdated: false });
  });

  it("accepts ISO strings (JSON from the API)", () => {
    expect(badgesFor({ firstPublishedAt: daysAgo(20).toISOString(), lastUpdated: daysAgo(1).toISOString() }, now).isUpdated).toBe(true);
  });
});
