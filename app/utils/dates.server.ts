// The viewer's date settings on the server (docs/design.md#dates-and-times): their locale from
// Accept-Language and their time zone from the `timeZone` cookie the browser sets; a guest, whose
// pages shared caches may keep for everyone, gets the site's locale and the creator's zone, as
// mails and jobs do. Importing this module hands both to app/utils/dates.ts.
import { parse as parseCookies } from "cookie";
import { isGuest } from "~/utils/auth-cookies.server";
import { env } from "~/env.server";
import { currentViewer, type ViewerScope } from "~/request-context.server";
import { negotiateLocale, SITE_LOCALE, TIME_ZONE_COOKIE, type DateSettings } from "~/utils/dates";
import { isTimeZone } from "~/utils/time-zone";

/** The locale and time zone dates are written in for a request with these headers. */
export function dateSettingsFor(viewer: Pick<ViewerScope, "cookie" | "acceptLanguage" | "authorization">): DateSettings {
  const creatorZone = env().CREATOR_TIME_ZONE;
  if (isGuest(viewer)) return { locale: SITE_LOCALE, timeZone: creatorZone };
  const zone = viewer.cookie ? parseCookies(viewer.cookie)[TIME_ZONE_COOKIE] : undefined;
  return { locale: negotiateLocale(viewer.acceptLanguage), timeZone: zone && isTimeZone(zone) ? zone : creatorZone };
}

/** The settings of the request being answered (worked out once per request); undefined outside one. */
function requestDateSettings(): DateSettings | undefined {
  const viewer = currentViewer();
  if (!viewer) return undefined;
  return (viewer.dates ??= dateSettingsFor(viewer)) as DateSettings;
}

const shared = globalThis as unknown as { __viewerDateSettings?: { getStore(): DateSettings | undefined }; __creatorTimeZone?: () => string };
shared.__viewerDateSettings = { getStore: requestDateSettings };
shared.__creatorTimeZone = () => env().CREATOR_TIME_ZONE;

/** For the root loader: what the browser formats with, the same as the server rendered with. */
export function viewerDateSettings(request: Request): DateSettings {
  return (
    requestDateSettings() ??
    dateSettingsFor({
      cookie: request.headers.get("Cookie"),
      acceptLanguage: request.headers.get("Accept-Language"),
      authorization: request.headers.get("Authorization"),
    })
  );
}
