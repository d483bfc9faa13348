import { describe, expect, it } from "vitest";
import { orderDateForIndex, reorderDate } from "./reorder";

const at = (iso: string) => new Date(iso);

describe("reorderDate", () => {
  it("puts a moved post 1 minute after the next post", () => {
    expect(reorderDate({ previous: at("2026-01-10T00:00:00Z"), next: at("2026-01-05T00:00:00Z") }).toISOString()).toBe("2026-01-05T00:01:00.000Z");
  });

  it("puts it 1 minute before the previous post when there is no next one", () => {
    expect(reorderDate({ previous: at("2026-01-10T00:00:00Z") }).toISOString()).toBe("2026-01-09T23:59:00.000Z");
  });

  it("goes halfway when the neighbours are a minute or less apart", () => {
    expect(reorderDate({ previous: at("2026-01-05T00:01:00Z"), next: at("2026-01-05T00:00:00Z") }).toISOString()).toBe("2026-01-05T00:00:30.000Z");
  });

  it("falls back to now in an empty list", () => {
    const now = at("2026-02-01T00:00:00Z");
    expect(reorderDate({}, now)).toEqual(now);
  });
});

describe("orderDateForIndex", () => {
  const others = [at("2026-01-30T00:00:00Z"), at("2026-01-20T00:00:00Z"), at("2026-01-10T00:00:00Z")].map((orderDate) => ({ orderDate }));

  it("places the post at the index, newest first", () => {
    expect(orderDateForIndex(others, 0).toISOString()).toBe("2026-01-30T00:01:00.000Z");
    expect(orderDateForIndex(others, 1).toISOString()).toBe("2026-01-20T00:01:00.000Z");
    expect(orderDateForIndex(others, 3).toISOString()).toBe("2026-01-09T23:59:00.000Z");
  });

  it("clamps indexes past the end to the end", () => {
    expect(orderDateForIndex(others, 99).toISOString()).toBe("2026-01-09T23:59:00.000Z");
  });

  it("keeps the list order it promised", () => {
    for (let index = 0; index <= others.length; index++) {
      const date = orderDateForIndex(others, index);
      const sorted = [...others.map((item) => item.orderDate), date].sort((a, b) => b.getTime() - a.getTime());
      expect(sorted.indexOf(date)).toBe(index);
    }
  });
});
