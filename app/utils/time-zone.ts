// Wall-clock times in a named time zone (IANA, "Europe/Berlin"), with no library: the creator
// enters release times in their own zone (CREATOR_TIME_ZONE, docs/product.md#releases) and the
// site stores instants. Pure: used by the server's form parsing and the editor's preview alike.

import { boundedMemo } from "./bounded-memo";

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** One formatter per zone; a name no zone has throws and is not kept. */
const partsFormats = boundedMemo<Intl.DateTimeFormat>(128);

function partsFormat(zone: string): Intl.DateTimeFormat {
  return partsFormats(
    zone,
    () =>
      new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      }),
  );
}

/** Whether `zone` names a time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    partsFormat(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's wall clock at `date`, as milliseconds of a UTC date with the same fields. */
function wallClock(date: Date, zone: string): number {
  const parts = Object.fromEntries(
    partsFormat(zone)
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
}

/** The zone's offset from UTC at `date`, in milliseconds (east positive). */
function offsetAt(date: Date, zone: string): number {
  return wallClock(date, zone) - Math.floor(date.getTime() / 1000) * 1000;
}

/**
 * The instant a wall-clock time ("2026-12-01T18:00", as <input type="datetime-local"> sends it)
 * names in `zone`; null when the text is not such a time. A time a clock change skips or repeats
 * gets one of its neighbouring instants.
 */
export function zonedToInstant(local: string, zone: string): Date | null {
  const match = LOCAL.exec(local.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0));
  if (Number.isNaN(wall)) return null;
  // Two passes: the offset near the wall time, then the offset at the instant it gives (a clock
  // change between the two moves it).
  const guess = wall - offsetAt(new Date(wall), zone);
  return new Date(wall - offsetAt(new Date(guess), zone));
}

/** The wall-clock time of `date` in `zone`, as a datetime-local input's value ("2026-12-01T18:00"). */
export function instantToZoned(date: Date, zone: string): string {
  return new Date(wallClock(date, zone)).toISOString().slice(0, 16);
}

/**
 * A form's datetime-local field read in `zone`, as the ISO instant the schemas take; any other
 * text as it was (the schema then names what is wrong with it).
 */
export function zonedFieldToIso(value: string, zone: string): string {
  return zonedToInstant(value, zone)?.toISOString() ?? value;
}
