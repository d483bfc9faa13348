// The two cookies a visitor gets without an account, built and read with Remix's cookie objects
// (never by hand): the 18+ acceptance of the library and a guest's seed for the inspiration
// vote's shuffled order. Neither grants anything, so neither is signed; `Secure` is added for
// an https site by server/security.ts, as for every cookie of ours.
import { randomBytes } from "node:crypto";
import { createCookie } from "@remix-run/node";

const ONE_YEAR_SECONDS = 60 * 60 * 24 * 365;

/** `nsfwAccepted`: the visitor confirmed they are 18 or older (docs/product.md). */
export const nsfwCookie = createCookie("nsfwAccepted", { path: "/", maxAge: ONE_YEAR_SECONDS, sameSite: "lax" });

export async function hasAcceptedNsfw(request: Request): Promise<boolean> {
  return (await nsfwCookie.parse(request.headers.get("Cookie"))) === true;
}

/** `inspiration_seed`: keeps a guest's shuffled order stable between visits. */
export const inspirationSeedCookie = createCookie("inspiration_seed", { path: "/", maxAge: ONE_YEAR_SECONDS, sameSite: "lax", httpOnly: true });

const SEED_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * The seed of a visitor's randomized order: their user id, else the guest's cookie, else a new
 * random one (answered as `setCookie` to send along).
 */
export async function visitorSeed(request: Request, user: { id: string } | null): Promise<{ seed: string; setCookie: string | null }> {
  if (user) return { seed: user.id, setCookie: null };
  const known: unknown = await inspirationSeedCookie.parse(request.headers.get("Cookie"));
  if (typeof known === "string" && SEED_PATTERN.test(known)) return { seed: known, setCookie: null };
  const seed = randomBytes(12).toString("base64url");
  return { seed, setCookie: await inspirationSeedCookie.serialize(seed) };
}
