// One-time login codes: after a provider sign-in the browser goes to /auth/callback with a
// short-lived, single-use code that it exchanges for a session. Kept as verifications of their
// own purpose (LOGIN_CODE) under a hash of the code, so no session row ever stands for one.
import { randomBytes } from "node:crypto";
import { MINUTE } from "~/models/account.server";
import { DomainError } from "~/models/errors";
import { enforceAddressLimit } from "~/models/rate-limit.server";
import { consumeKeyedCode, storeKeyedCode } from "~/models/verification.server";
import { LOGIN_CODE_TTL_MS } from "~/utils/auth-cookies.server";

export const COOKIE_BLOCKED_MESSAGE =
  "Your browser did not send our sign-in cookie. Cookies may be blocked by your browser settings or an extension (ad or privacy blockers). Please allow cookies for this site and try again.";
export const INVALID_LOGIN_CODE_MESSAGE = "Invalid or expired login code. Please try logging in again.";

const CODE_SHAPE = /^[A-Za-z0-9_-]{20,100}$/;

/** A fresh code for the user, valid two minutes. */
export async function createLoginCode(userId: string): Promise<string> {
  const code = randomBytes(32).toString("base64url");
  await storeKeyedCode("LOGIN_CODE", code, userId, LOGIN_CODE_TTL_MS);
  return code;
}

/** The user id of a valid code, consuming it; null for an unknown, used or expired code. */
export async function exchangeLoginCode(code: string): Promise<string | null> {
  if (!CODE_SHAPE.test(code)) return null;
  return consumeKeyedCode("LOGIN_CODE", code);
}

/**
 * The exchange of POST /api/auth/callback and of the callback page's form: the code must come
 * from the browser that holds its binding cookie (`boundCode`, null when none arrived).
 */
export async function redeemLoginCode({ code, boundCode, client }: { code: string; boundCode: string | null; client: string | null }): Promise<string> {
  await enforceAddressLimit("login-code", client, 30, 15 * MINUTE);
  if (!boundCode) throw new DomainError(403, COOKIE_BLOCKED_MESSAGE);
  if (boundCode !== code) throw new DomainError(400, INVALID_LOGIN_CODE_MESSAGE);
  const userId = await exchangeLoginCode(code);
  if (!userId) throw new DomainError(400, INVALID_LOGIN_CODE_MESSAGE);
  return userId;
}
