// The cookie a visitor gets without an account, built and read with Remix's cookie object (never
// by hand): the 18+ acceptance of the library. It grants nothing, so it is not signed; its
// attributes are set where it is made, Secure on an https site.
import { createCookie } from "@remix-run/node";
import { env } from "~/env.server";

const ONE_YEAR_SECONDS = 60 * 60 * 24 * 365;

/** `nsfwAccepted`: the visitor confirmed they are 18 or older (docs/product.md). */
export const nsfwCookie = createCookie("nsfwAccepted", { path: "/", maxAge: ONE_YEAR_SECONDS, sameSite: "lax" });

/** The Set-Cookie value that records the acceptance. */
export function nsfwAcceptedCookie(): Promise<string> {
  return nsfwCookie.serialize(true, { secure: env().APP_URL.startsWith("https://") });
}

export async function hasAcceptedNsfw(request: Request): Promise<boolean> {
  return (await nsfwCookie.parse(request.headers.get("Cookie"))) === true;
}
