import { describe, expect, it } from "vitest";
import { badgesFor, badgesTurnAt, newsOf } from "./badges";

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

describe("newsOf and badgesTurnAt", () => {
  const listed = (postId: string, first: Date | null, updated: Date | null) => ({
    postId,
    first_published_at: first?.toISOString() ?? null,
    last_updated: updated?.toISOString() ?? null,
  });

  it("gives each post its one news badge, leaving out posts without one", () => {
    const posts = [listed("a", daysAgo(1), daysAgo(0.5)), listed("b", daysAgo(10), daysAgo(2)), listed("c", daysAgo(10), daysAgo(9))];
    expect(newsOf(posts, now)).toEqual({ a: "new", b: "updated" });
  });

  it("names the instant a badge ends or begins, and nothing changes before it", () => {
    const post = { firstPublishedAt: daysAgo(2.5), lastUpdated: daysAgo(1) };
    const turn = badgesTurnAt(post, now.getTime())!;
    // New ends when the first publication is more than 3 days old; Updated then shows.
    expect(turn).toBe(daysAgo(2.5).getTime() + 3 * 24 * 60 * 60 * 1000 + 1);
    expect(badgesFor(post, new Date(turn - 1))).toEqual(badgesFor(post, now));
    expect(badgesFor(post, new Date(turn))).toEqual({ isNew: false, isUpdated: true });
    expect(badgesTurnAt({ firstPublishedAt: daysAgo(30), lastUpdated: null }, now.getTime())).toBeNull();
    expect(badgesTurnAt({ firstPublishedAt: daysAgo(-1), lastUpdated: null }, now.getTime())).toBe(daysAgo(-1).getTime());
  });

  it("holds for many posts and instants: the badges at any instant before the turn are those of now", () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let run = 0; run < 500; run++) {
      const post = { firstPublishedAt: daysAgo(random() * 8 - 1), lastUpdated: random() < 0.2 ? null : daysAgo(random() * 8 - 1) };
      const turn = badgesTurnAt(post, now.getTime()) ?? now.getTime() + 30 * 24 * 60 * 60 * 1000;
      const at = now.getTime() + Math.floor(random() * (turn - now.getTime()));
      expect(badgesFor(post, new Date(at))).toEqual(badgesFor(post, now));
    }
  });
});
