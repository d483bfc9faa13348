// The admins' release timeline (/admin/releases): its instants by day in the creator's time zone,
// and each one's counts in words. Pure: the page draws these, the tests read them.
import { formatWeekday } from "~/utils/dates";

/** "reached 12 · mailed 9": who the instant newly opens the post to, and the release notices sent for it. */
export function timelineCounts(event: { reached: number; mailed: number }): string {
  return `reached ${event.reached.toLocaleString("en-US")} · mailed ${event.mailed.toLocaleString("en-US")}`;
}

/** The events by day ("Tue, 1 Dec 2026") in `zone`, keeping their order. */
export function timelineDays<E extends { at: string }>(events: readonly E[], zone: string): { day: string; events: E[] }[] {
  const days: { day: string; events: E[] }[] = [];
  for (const event of events) {
    const day = formatWeekday(event.at, { timeZone: zone });
    const last = days.at(-1);
    if (last?.day === day) last.events.push(event);
    else days.push({ day, events: [event] });
  }
  return days;
}
