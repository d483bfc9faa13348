// The tag of a leak-trace stamp ("Leak trace <number>-<tag>", docs/security-model.md): an HMAC of
// the number under a key derived from SESSION_SECRET, so a leaker cannot write another account's
// number into a copy and have it pass as ours. It proves who the server wrote the stamp for,
// not which file carried it: a comment can still be copied from one archive to another.
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "~/env.server";

/** Hex digits of the tag: 64 bits, and every guess has to be checked by an admin. */
const TAG_HEX_DIGITS = 16;

/** Trace stamps get their own key, so a tag is never a MAC that another use of the secret also makes. */
function stampKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("creator-library leak-trace stamp key").digest();
}

function tagWith(secret: string, number: number): string {
  return createHmac("sha256", stampKey(secret)).update(`leak-trace:${number}`).digest("hex").slice(0, TAG_HEX_DIGITS);
}

/** The tag of `number` under the current secret (the first of SESSION_SECRET). */
export function traceTag(number: number): string {
  return tagWith(env().SESSION_SECRET[0]!, number);
}

/**
 * What a stamp shows: `verified` (this site wrote the tag for this number, under a secret still
 * listed in SESSION_SECRET), `untagged` (the number alone: an older stamp, or anyone's
 * writing) or `forged` (a tag this site did not write for this number).
 */
export type StampVerdict = "verified" | "untagged" | "forged";

export function verifyTraceTag(number: number, tag: string | null): StampVerdict {
  if (tag === null) return "untagged";
  const given = Buffer.from(tag.toLowerCase());
  for (const secret of env().SESSION_SECRET) {
    const expected = Buffer.from(tagWith(secret, number));
    if (expected.length === given.length && timingSafeEqual(expected, given)) return "verified";
  }
  return "forged";
}
