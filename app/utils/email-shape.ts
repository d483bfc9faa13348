// The "valid shape" of an email (docs/product.md#accounts: something@something.tld, no spaces), checked in one
// pass over the string. A backtracking pattern such as ^[^\s@]+@[^\s@]+\.[^\s@]+$ takes
// quadratic time on input like "a@....@" and froze the server; this never backtracks.
import { z } from "zod";

export const MAX_EMAIL_LENGTH = 254;

export function hasEmailShape(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH || /\s/.test(value)) return false;
  const at = value.indexOf("@");
  if (at <= 0 || at !== value.lastIndexOf("@")) return false;
  const domain = value.slice(at + 1);
  // A dot with at least one character on each side.
  return domain.length >= 3 && domain.slice(1, -1).includes(".");
}

/**
 * A trimmed email field: empty -> `emptyMessage`, too long or the wrong shape -> `invalidMessage`.
 * The length is checked first and, when it fails, nothing else runs (zod keeps running later
 * checks of the same string after a failed one; a pipe stops).
 */
export function boundedEmail(emptyMessage: string, invalidMessage: string) {
  return z
    .string({ required_error: emptyMessage, invalid_type_error: emptyMessage })
    .trim()
    .min(1, emptyMessage)
    .max(MAX_EMAIL_LENGTH, invalidMessage)
    .pipe(z.string().refine(hasEmailShape, invalidMessage));
}
