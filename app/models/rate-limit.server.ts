// Fixed-window rate limits kept in PostgreSQL, so every app server counts the same attempts.
// A key is `<action>:<kind>:<subject>` (kind `email`, `user` or `ip`) or `<action>:<user id>`.
import { db, type Prisma } from "~/db.server";
import { DomainError } from "~/models/errors";

export type RateLimitResult = { allowed: boolean; count: number; retryAfterSeconds: number };

/** The code of every limit refusal; also the /auth/callback code (auth-callback-errors.ts) of a limited sign-in. */
export const RATE_LIMITED = "rate_limited";

/** The refusal of a passed limit: 429, the spec's words and `Retry-After`. */
export function rateLimitRefusal(retryAfterSeconds: number): DomainError {
  return new DomainError(429, `Too many attempts. Please try again in ${formatWait(retryAfterSeconds)}.`, {
    retryAfterSeconds,
    code: RATE_LIMITED,
  });
}

/** "42 seconds", "3 minutes": the wait of a refusal in words. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/**
 * Counts one attempt against `key` in a window of `windowMs`; the window starts at the first
 * attempt. One atomic statement, so concurrent requests on several servers cannot both slip in.
 */
export async function consumeRateLimit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
  const rows = await db.$queryRaw<{ count: number; reset_at: Date }[]>`
    INSERT INTO rate_limits (key, count, reset_at)
    VALUES (${key}, 1, now() + ${windowMs} * interval '1 millisecond')
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN rate_limits.reset_at <= now() THEN 1 ELSE rate_limits.count + 1 END,
      reset_at = CASE WHEN rate_limits.reset_at <= now() THEN EXCLUDED.reset_at ELSE rate_limits.reset_at END
    RETURNING count, reset_at`;
  const row = rows[0]!;
  const retryAfterSeconds = Math.max(1, Math.ceil((row.reset_at.getTime() - Date.now()) / 1000));
  return { allowed: row.count <= limit, count: row.count, retryAfterSeconds };
}

/** Like `consumeRateLimit`, but refuses (`rateLimitRefusal`) once the limit is passed. */
export async function enforceRateLimit(key: string, limit: number, windowMs: number): Promise<void> {
  const result = await consumeRateLimit(key, limit, windowMs);
  if (!result.allowed) throw rateLimitRefusal(result.retryAfterSeconds);
}

/** A per-client-address limit, counted only when the address is known (see `clientAddress`). */
export async function enforceAddressLimit(action: string, client: string | null | undefined, limit: number, windowMs: number): Promise<void> {
  if (client) await enforceRateLimit(`${action}:ip:${client}`, limit, windowMs);
}

/** Forgets the attempts of a key (e.g. after a successful login). */
export async function resetRateLimit(key: string): Promise<void> {
  await db.rateLimit.deleteMany({ where: { key } });
}

/**
 * Forgets the windows whose subject is exactly this account or one of these addresses (any
 * case): `<action>:user:<id>`, `<action>:<id>` and `<action>:email:<address>`, whatever the
 * action. Keys are compared whole, never as patterns, so no other account's window is touched.
 */
export async function deleteRateLimitsOf(client: Pick<Prisma.TransactionClient, "$executeRaw">, userId: string, emails: string[]): Promise<number> {
  const addresses = emails.map((email) => email.toLowerCase());
  return client.$executeRaw`DELETE FROM rate_limits
    WHERE key = split_part(key, ':', 1) || ':user:' || ${userId}
       OR key = split_part(key, ':', 1) || ':' || ${userId}
       OR lower(key) = ANY (SELECT lower(split_part(key, ':', 1)) || ':email:' || address FROM unnest(${addresses}::text[]) AS address)`;
}

/** Removes finished windows; run by housekeeping. */
export async function deleteExpiredRateLimits(now = new Date()): Promise<number> {
  const { count } = await db.rateLimit.deleteMany({ where: { resetAt: { lt: now } } });
  return count;
}
