// The account area's signed cookies, built with Remix's createCookie (signing, parsing and
// rotation of SESSION_SECRET are its job, not ours). Created on first use: the configuration
// is read when a request needs them, never at import.
import { createCookie, type Cookie } from "@remix-run/node";
import { parse as parseCookies } from "cookie";
import { env } from "~/env.server";
import { TOAST_COOKIE } from "~/toast.server";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A provider login code lives two minutes; its binding cookie no longer. */
export const LOGIN_CODE_TTL_MS = 2 * 60 * 1000;

function signedCookie(name: string, maxAgeMs: number): () => Cookie {
  let cookie: Cookie | undefined;
  return () =>
    (cookie ??= createCookie(name, {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: env().APP_URL.startsWith("https://"),
      secrets: env().SESSION_SECRET,
      maxAge: maxAgeMs / 1000,
    }));
}

const SESSION_COOKIE = "__session";
/** `__session`: only the random id of a row of `sessions` (docs/decisions/003-sessions.md). */
export const sessionCookie = signedCookie(SESSION_COOKIE, SESSION_TTL_MS);

export type GuestHeaders = { cookie?: string | null; authorization?: string | null };

/** No session or flash (toast) cookie and no API token, read with the parser Remix's cookies use (`__session =…` counts): nothing makes a page personal. */
export function isGuest({ cookie, authorization }: GuestHeaders): boolean {
  if (authorization) return false;
  if (!cookie) return true;
  const names = parseCookies(cookie);
  return !(SESSION_COOKIE in names) && !(TOAST_COOKIE in names);
}

/**
 * `__login_code`: the browser that finished a provider sign-in must be the one that exchanges
 * its login code; the code travels in the address, this cookie proves the same browser holds it.
 */
export const loginCodeCookie = signedCookie("__login_code", LOGIN_CODE_TTL_MS);

/** The cookie's non-empty string value, or null (missing, unsigned or wrongly signed). */
export async function readCookieValue(cookie: Cookie, request: Request): Promise<string | null> {
  const value: unknown = await cookie.parse(request.headers.get("Cookie"));
  return typeof value === "string" && value.length > 0 ? value : null;
}

/** The Set-Cookie value that removes the cookie. */
export function clearCookie(cookie: Cookie): Promise<string> {
  return cookie.serialize("", { maxAge: 0 });
}
