import { describe, expect, it } from "vitest";
import { formatDay, formatDayTime, formatTime, formatWeekday, negotiateLocale, SITE_LOCALE } from "~/utils/dates";

describe("dates", () => {
  it("picks the viewer's best language a formatter knows, else the site's", () => {
    expect(negotiateLocale("de-DE,de;q=0.9,en;q=0.8")).toBe("de-DE");
    expect(negotiateLocale("fr;q=0.2, en-US;q=0.9")).toBe("en-US");
    expect(negotiateLocale("*")).toBe(SITE_LOCALE);
    expect(negotiateLocale("!!, ;q=1")).toBe(SITE_LOCALE);
    expect(negotiateLocale(null)).toBe(SITE_LOCALE);
  });

  it("writes one format outside a request: the site's locale, UTC unless a zone is named", () => {
    const at = "2026-03-05T23:30:00.000Z";
    expect(formatDay(at)).toBe("5 Mar 2026");
    expect(formatDayTime(at)).toBe("5 Mar 2026, 23:30");
    expect(formatTime(at)).toBe("23:30");
    expect(formatWeekday(at)).toBe("Thu, 5 Mar 2026");
    expect(formatDay(at, { timeZone: "Europe/Berlin" })).toBe("6 Mar 2026");
    expect(formatDayTime(new Date(at), { timeZone: "Europe/Berlin" })).toBe("6 Mar 2026, 00:30");
  });
});
