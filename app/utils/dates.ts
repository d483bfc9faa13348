// How the site writes dates and times: one format ("27 Nov 2026", "27 Nov 2026, 18:00"), in the
// viewer's locale and time zone (docs/design.md#dates-and-times). Every component, page, mail and
// message formats through here; nothing else builds an Intl.DateTimeFormat for display.
//
// Whose locale and zone: the server works them out per request (app/utils/dates.server.ts, from
// Accept-Language and the `timeZone` cookie this module's boot snippet sets) and hands them to the
// browser in the root loader's data, so a hydrated page formats exactly as the server did. Outside
// a request (mails, jobs) and for guests, the site's locale and the creator's time zone.
// Browser-safe and zod-free.
import { boundedMemo } from "./bounded-memo";

export type DateSettings = { locale: string; timeZone: string };

/** The site's own locale: guests, mails and viewers whose languages no formatter knows. */
export const SITE_LOCALE = "en-GB";

/** The cookie in which the browser tells the server its time zone (an IANA name). */
export const TIME_ZONE_COOKIE = "timeZone";

/**
 * For the root's boot script: stores the browser's time zone in the `timeZone` cookie when it is
 * not there yet, so the next request formats in it.
 */
export const TIME_ZONE_COOKIE_SCRIPT = `var z=Intl.DateTimeFormat().resolvedOptions().timeZone;if(z&&document.cookie.split("; ").indexOf("${TIME_ZONE_COOKIE}="+encodeURIComponent(z))<0)document.cookie="${TIME_ZONE_COOKIE}="+encodeURIComponent(z)+"; path=/; max-age=31536000; samesite=lax";`;

/** Where the server keeps the current request's settings, and the creator's zone (shared through globalThis: the HTTP server and the Remix build are bundled apart). */
type Shared = { __viewerDateSettings?: { getStore(): DateSettings | undefined }; __creatorTimeZone?: () => string };
const shared = globalThis as unknown as Shared;

/** In the browser: the settings the server rendered the page with. */
let browserSettings: DateSettings | null = null;

/** The settings the page was rendered with, taken in the browser (root loader data); a no-op on the server. */
export function useBrowserDateSettings(settings: DateSettings): void {
  if (typeof document !== "undefined") browserSettings = settings;
}

/** The creator's time zone where known (server), else UTC. */
function defaultTimeZone(): string {
  return shared.__creatorTimeZone?.() ?? "UTC";
}

/** The locale and time zone dates are written in now. */
function currentDateSettings(): DateSettings {
  return shared.__viewerDateSettings?.getStore() ?? browserSettings ?? { locale: SITE_LOCALE, timeZone: defaultTimeZone() };
}

/**
 * The first language of an Accept-Language header (by weight) that date formatting knows, else
 * the site's locale: "de-DE,de;q=0.9,en;q=0.8" gives "de-DE".
 */
export function negotiateLocale(acceptLanguage: string | null | undefined): string {
  const wanted = (acceptLanguage ?? "")
    .split(",")
    .map((part, order) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
      return { tag: tag.trim(), weight: q === undefined ? 1 : Number(q), order };
    })
    .filter((item) => item.tag !== "" && item.tag !== "*" && item.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.order - b.order);
  for (const { tag } of wanted) {
    try {
      const [known] = Intl.DateTimeFormat.supportedLocalesOf(tag);
      if (known) return known;
    } catch {
      // Not a language tag: the next one.
    }
  }
  return SITE_LOCALE;
}

type Shape = "day" | "weekday" | "day-time" | "time";

const SHAPES: Record<Shape, Intl.DateTimeFormatOptions> = {
  day: { day: "numeric", month: "short", year: "numeric" },
  weekday: { weekday: "short", day: "numeric", month: "short", year: "numeric" },
  "day-time": { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" },
  time: { hour: "2-digit", minute: "2-digit" },
};

// Building a formatter costs far more than using one: one per locale, zone and shape, for the
// few combinations in use at a time (a signed-in viewer picks both).
const formats = boundedMemo<Intl.DateTimeFormat>(256);

function formatter(shape: Shape, zone: string | undefined): Intl.DateTimeFormat {
  const settings = currentDateSettings();
  const timeZone = zone ?? settings.timeZone;
  return formats(`${settings.locale}|${timeZone}|${shape}`, () => new Intl.DateTimeFormat(settings.locale, { ...SHAPES[shape], timeZone }));
}

type When = Date | string | number;
/** `timeZone` names a zone other than the viewer's (the creator's release editor shows its own and UTC). */
type Options = { timeZone?: string };

/** "27 Nov 2026" (en-GB), "Nov 27, 2026" (en-US). */
export function formatDay(when: When, options: Options = {}): string {
  return formatter("day", options.timeZone).format(new Date(when));
}

/** "Fri, 27 Nov 2026": a day heading. */
export function formatWeekday(when: When, options: Options = {}): string {
  return formatter("weekday", options.timeZone).format(new Date(when));
}

/** "27 Nov 2026, 18:00" (en-GB), "Nov 27, 2026, 06:00 PM" (en-US). */
export function formatDayTime(when: When, options: Options = {}): string {
  return formatter("day-time", options.timeZone).format(new Date(when));
}

/** "18:00" (en-GB), "06:00 PM" (en-US). */
export function formatTime(when: When, options: Options = {}): string {
  return formatter("time", options.timeZone).format(new Date(when));
}
