// Emailed codes for every purpose (sign-up verification, password reset, shop email): random
// 6 digits, stored only as an HMAC, valid 15 minutes, single use, a few attempts, and a 60 s
// resend cooldown enforced here on the server. Provider login codes live here too, keyed by a
// hash of the code itself (`storeKeyedCode`).
import { createHash, createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { db, Prisma } from "~/db.server";
import { env } from "~/env.server";
import type { VerificationPurpose } from "~/generated/prisma/client";
import type { OutgoingMail } from "~/integrations/mail.server";
import { DomainError } from "~/models/errors";
import { codeTopic, enqueueCodeMail, giveUpTopic } from "~/models/mail-outbox.server";

export const CODE_TTL_MS = 15 * 60 * 1000;
export const RESEND_COOLDOWN_MS = 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;

export type { VerificationPurpose };

function hashCode(purpose: VerificationPurpose, target: string, code: string): string {
  // Keyed with the session secret so a leaked table does not reveal codes by brute force.
  return createHmac("sha256", env().SESSION_SECRET[0]!).update(`${purpose}:${target.toLowerCase()}:${code}`).digest("hex");
}

function newCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

export type IssueResult = { ok: true; code: string; expiresAt: Date } | { ok: false; reason: "cooldown"; retryAfterSeconds: number };

/**
 * Issues a fresh code for (purpose, target), replacing any earlier one, unless one was sent less
 * than 60 s ago. `target` is what the code proves (an email address, or any key the caller
 * chooses, e.g. "<userId>:<email>" when several accounts may verify the same address). `client`:
 * the caller's transaction, when the code is part of a larger change.
 */
export async function issueCode({
  purpose,
  target,
  userId = null,
  now = new Date(),
  client = db,
}: {
  purpose: VerificationPurpose;
  target: string;
  userId?: string | null;
  now?: Date;
  client?: Prisma.TransactionClient | typeof db;
}): Promise<IssueResult> {
  const code = newCode();
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
  const data = { codeHash: hashCode(purpose, target, code), attempts: 0, expiresAt, lastSentAt: now, userId };
  // Replace only a row whose last mail is old enough: one statement, so two racing requests
  // cannot both send.
  const { count } = await client.verification.updateMany({
    where: { purpose, target, lastSentAt: { lte: new Date(now.getTime() - RESEND_COOLDOWN_MS) } },
    data,
  });
  if (count === 1) return { ok: true, code, expiresAt };
  const existing = await client.verification.findUnique({ where: { purpose_target: { purpose, target } } });
  if (existing) return { ok: false, reason: "cooldown", retryAfterSeconds: secondsUntilResend(existing.lastSentAt, now) };
  try {
    await client.verification.create({ data: { purpose, target, ...data } });
    return { ok: true, code, expiresAt };
  } catch (error) {
    // Another request created it a moment ago. In a caller's transaction the failed insert has
    // ended the transaction: the caller must fail whole, not go on as if nothing happened.
    const raced = error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
    if (!raced || client !== db) throw error;
    return { ok: false, reason: "cooldown", retryAfterSeconds: Math.ceil(RESEND_COOLDOWN_MS / 1000) };
  }
}

function secondsUntilResend(lastSentAt: Date, now: Date): number {
  return Math.max(1, Math.ceil((lastSentAt.getTime() + RESEND_COOLDOWN_MS - now.getTime()) / 1000));
}

export type CheckResult = { ok: true; userId: string | null } | { ok: false; reason: "missing" | "expired" | "too-many-attempts" | "wrong-code" };

/** Checks a code; a correct one is consumed (single use), a wrong one uses up an attempt. */
export async function checkCode({
  purpose,
  target,
  code,
  now = new Date(),
}: {
  purpose: VerificationPurpose;
  target: string;
  code: string;
  now?: Date;
}): Promise<CheckResult> {
  const existing = await db.verification.findUnique({ where: { purpose_target: { purpose, target } } });
  if (!existing) return { ok: false, reason: "missing" };
  if (existing.expiresAt <= now) return { ok: false, reason: "expired" };
  // Count the attempt first, atomically, so parallel guesses cannot exceed the limit.
  const { count } = await db.verification.updateMany({
    where: { id: existing.id, attempts: { lt: MAX_CODE_ATTEMPTS } },
    data: { attempts: { increment: 1 } },
  });
  if (count === 0) return { ok: false, reason: "too-many-attempts" };
  const expected = Buffer.from(existing.codeHash, "hex");
  const actual = Buffer.from(hashCode(purpose, target, code.trim()), "hex");
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return { ok: false, reason: "wrong-code" };
  // Delete only this very code: if a parallel request consumed it first, this one fails.
  const consumed = await db.verification.deleteMany({ where: { id: existing.id, codeHash: existing.codeHash } });
  if (consumed.count === 0) return { ok: false, reason: "missing" };
  return { ok: true, userId: existing.userId };
}

/** The words a user sees for a failed check. */
export function checkFailureMessage(reason: Exclude<CheckResult, { ok: true }>["reason"]): string {
  switch (reason) {
    case "missing":
      return "No pending verification code. Please request a new code.";
    case "expired":
      return "This code has expired. Please request a new code.";
    case "too-many-attempts":
      return "Too many wrong codes. Please request a new code.";
    case "wrong-code":
      return "Invalid verification code.";
  }
}

/** A failed check as the refusal a user reads (400). */
export function checkRefusal(reason: Exclude<CheckResult, { ok: true }>["reason"]): DomainError {
  return new DomainError(400, checkFailureMessage(reason));
}

/** The message for a resend refused by the cooldown. */
export function cooldownMessage(retryAfterSeconds: number): string {
  return `Please wait ${retryAfterSeconds} seconds before requesting a new code.`;
}

/** A resend refused by the cooldown: 429 with `Retry-After`, like every other limit. */
export function cooldownRefusal(retryAfterSeconds: number): DomainError {
  return new DomainError(429, cooldownMessage(retryAfterSeconds), { retryAfterSeconds });
}

/** Drops a pending code (e.g. "Cancel Verification"); its mail, if still queued, is given up. */
export async function cancelCode(purpose: VerificationPurpose, target: string): Promise<void> {
  await db.verification.deleteMany({ where: { purpose, target } });
  await giveUpTopic(db, codeTopic(purpose, target), "The code was withdrawn.");
}

/**
 * Issues a code and puts its mail in the outbox, both in `client`'s transaction: the code and its
 * mail exist together or not at all. Returns the issue result and the queued message's id, which
 * the caller sends at once after its commit (`sendQueuedNow`).
 */
export async function issueCodeWithMail(
  client: Prisma.TransactionClient,
  { purpose, target, userId = null, mail }: { purpose: VerificationPurpose; target: string; userId?: string | null; mail: (code: string) => OutgoingMail },
): Promise<{ issued: IssueResult; mailId: string | null }> {
  const now = new Date();
  const issued = await issueCode({ purpose, target, userId, now, client });
  if (!issued.ok) return { issued, mailId: null };
  const mailId = await enqueueCodeMail(client, { purpose, target, userId, mail: mail(issued.code), expiresAt: issued.expiresAt, now });
  return { issued, mailId };
}

// One-time codes that are their own key (provider login codes): 256 random bits, so no attempt
// counting; stored under a hash of the code, never the code itself.
function keyOf(code: string): string {
  return createHash("sha256").update(code).digest("hex");
}

/** Stores a keyed one-time code for `userId`, valid for `ttlMs`. */
export async function storeKeyedCode(purpose: VerificationPurpose, code: string, userId: string, ttlMs: number, now = new Date()): Promise<void> {
  const target = keyOf(code);
  await db.verification.create({
    data: { purpose, target, userId, codeHash: hashCode(purpose, target, code), expiresAt: new Date(now.getTime() + ttlMs), lastSentAt: now },
  });
}

/** The user id of a valid keyed code, consuming it (single use); null for unknown, used or expired. */
export async function consumeKeyedCode(purpose: VerificationPurpose, code: string, now = new Date()): Promise<string | null> {
  const target = keyOf(code);
  const row = await db.verification.findUnique({ where: { purpose_target: { purpose, target } } });
  if (!row) return null;
  // Delete only this very row: of two racing exchanges one wins.
  const { count } = await db.verification.deleteMany({ where: { id: row.id } });
  if (count !== 1 || row.expiresAt <= now || !row.userId) return null;
  return row.userId;
}

/** When the next resend is allowed (null when nothing is pending), for the page's countdown. */
export async function pendingCode(purpose: VerificationPurpose, target: string, now = new Date()) {
  const existing = await db.verification.findUnique({ where: { purpose_target: { purpose, target } } });
  if (!existing) return null;
  const resendInSeconds = Math.max(0, Math.ceil((existing.lastSentAt.getTime() + RESEND_COOLDOWN_MS - now.getTime()) / 1000));
  return { expiresAt: existing.expiresAt, resendInSeconds, userId: existing.userId };
}

/** Removes expired codes; run by housekeeping. */
export async function deleteExpiredCodes(now = new Date()): Promise<number> {
  const { count } = await db.verification.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
