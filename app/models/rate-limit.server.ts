// Fixed-window rate limits kept in PostgreSQL, so every app server counts the same attempts.
import { db } from "~/db.server";

export type RateLimitResult = { allowed: boolean; count: number; retryAfterSeconds: number };

/** Thrown by `enforceRateLimit`; routes answer it with 429 and this message. */
export class RateLimitError extends Error {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many attempts. Please try again in ${formatWait(retryAfterSeconds)}.`);
    this.name = "RateLimitError";
  }
}

function formatWait(seconds: number): string {
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

/** Like `consumeRateLimit`, but throws a RateLimitError once the limit is passed. */
export async function enforceRateLimit(key: string, limit: number, windowMs: number): Promise<void> {
  const result = await consumeRateLimit(key, limit, windowMs);
  if (!result.allowed) throw new RateLimitError(result.retryAfterSeconds);
}

/**
 * Like `enforceRateLimit`, but refuses with the caller's own error type (built from the 429
 * message), so a model keeps answering with the errors its routes already map.
 */
export async function enforceRateLimitAs(key: string, limit: number, windowMs: number, refuse: (message: string) => Error): Promise<void> {
  const result = await consumeRateLimit(key, limit, windowMs);
  if (!result.allowed) throw refuse(new RateLimitError(result.retryAfterSeconds).message);
}

/** Forgets the attempts of a key (e.g. after a successful login). */
export async function resetRateLimit(key: string): Promise<void> {
  await db.rateLimit.deleteMany({ where: { key } });
}

/** Removes finished windows; run by housekeeping. */
export async function deleteExpiredRateLimits(now = new Date()): Promise<number> {
  const { count } = await db.rateLimit.deleteMany({ where: { resetAt: { lt: now } } });
  return count;
}
