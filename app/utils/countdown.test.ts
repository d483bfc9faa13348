import { countdownParts, isVotingOpen, likeLabel, shuffleForVisitor } from "./countdown";

describe("countdownParts", () => {
  it("splits the time left into days, hours, minutes and seconds", () => {
    const now = Date.UTC(2025, 0, 1);
    const end = now + ((2 * 24 + 3) * 3600 + 4 * 60 + 5) * 1000 + 999;
    expect(countdownParts(end, now)).toEqual({ days: 2, hours: 3, minutes: 4, seconds: 5 });
  });
  it("is all zero once the end has passed", () => {
    expect(countdownParts(1000, 5000)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 0 });
  });
});

describe("isVotingOpen", () => {
  const now = new Date("2025-01-01T12:00:00Z");
  it("needs the flag on", () => {
    expect(isVotingOpen({ votingOpen: false, votingEndTime: null }, now)).toBe(false);
    expect(isVotingOpen({ votingOpen: true, votingEndTime: null }, now)).toBe(true);
  });
  it("closes at the end time even with the flag on", () => {
    expect(isVotingOpen({ votingOpen: true, votingEndTime: "2025-01-01T12:00:01Z" }, now)).toBe(true);
    expect(isVotingOpen({ votingOpen: true, votingEndTime: "2025-01-01T12:00:00Z" }, now)).toBe(false);
  });
});

describe("likeLabel", () => {
  it("shows the count, or ? and ?+1 while hidden", () => {
    expect(likeLabel(4, true)).toBe("4");
    expect(likeLabel(null, false)).toBe("?");
    expect(likeLabel(null, true)).toBe("?+1");
  });
});

describe("shuffleForVisitor", () => {
  const items = Array.from({ length: 8 }, (_, position) => ({ id: `panel-${position}` }));
  it("is stable for a seed and keeps every item", () => {
    const once = shuffleForVisitor(items, "alice");
    expect(shuffleForVisitor(items, "alice")).toEqual(once);
    expect([...once].sort((a, b) => a.id.localeCompare(b.id))).toEqual(items);
  });
  it("differs between visitors", () => {
    const orders = new Set(
      ["a", "b", "c", "d"].map((seed) =>
        shuffleForVisitor(items, seed)
          .map((item) => item.id)
          .join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });
});
