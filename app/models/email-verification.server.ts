// Proving the address of an email account: the code mailed at sign-up, its resend and the
// "Cancel Verification" that abandons the sign-up.
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { codeMail, type OutgoingMail } from "~/integrations/mail.server";
import { dropUnprovenAttachments, grantAdminIfListed, hasProvenEmail, MINUTE } from "~/models/account.server";
import { DomainError } from "~/models/errors";
import { sendQueuedNow } from "~/models/mail-outbox.server";
import { enforceAddressLimit, enforceRateLimit } from "~/models/rate-limit.server";
import { cancelCode, checkCode, checkRefusal, cooldownRefusal, issueCodeWithMail, pendingCode } from "~/models/verification.server";

export const ALREADY_VERIFIED_MESSAGE = "This email is already verified.";

/** The mail with the code that proves a new account's address. */
export function verificationMail(email: string, code: string): OutgoingMail {
  return codeMail({
    to: email,
    subject: "Your verification code",
    intro: "Welcome! Enter this code on the login page to verify your email address:",
    code,
    outro: "The code is valid for 15 minutes. If you did not create an account, you can ignore this mail.",
  });
}

/**
 * Verifies an email account with its code; optionally sets the username in the same step. The
 * first proof of the address ends what was attached before it, every session included: a caller
 * that keeps its user signed in starts a new session (`renewUserSession`).
 */
export async function verifyEmail({
  email,
  code,
  username,
  client,
}: {
  email: string;
  code: string;
  username?: string;
  client?: string | null;
}): Promise<User> {
  await enforceAddressLimit("verify", client, 50, 15 * MINUTE);
  await enforceRateLimit(`verify:email:${email}`, 10, 15 * MINUTE);
  const user = await db.user.findUnique({ where: { email } });
  if (!user) throw checkRefusal("missing");
  if (user.mailVerified && username === undefined) throw new DomainError(409, ALREADY_VERIFIED_MESSAGE);
  await enforceRateLimit(`verify:user:${user.id}`, 10, 15 * MINUTE);
  const result = await checkCode({ purpose: "EMAIL_VERIFY", target: email, code });
  if (!result.ok) throw checkRefusal(result.reason);
  const verified = await db.$transaction(async (tx) => {
    if (!hasProvenEmail(user)) await dropUnprovenAttachments(tx, user.id);
    return tx.user.update({
      where: { id: user.id },
      data: { mailVerified: true, emailVerifiedBy: "CODE", ...(username !== undefined ? { fullName: username } : {}) },
    });
  });
  return grantAdminIfListed(verified);
}

/** Sends a new code to an unverified email account; refused for 60 s after the last one. */
export async function resendVerification(email: string, client?: string | null): Promise<void> {
  await enforceAddressLimit("resend", client, 30, 60 * MINUTE);
  await enforceRateLimit(`resend:email:${email}`, 10, 60 * MINUTE);
  const user = await db.user.findUnique({ where: { email } });
  if (!user || user.mailVerified || !user.passwordHash) throw new DomainError(400, "There is no unverified account with this email.");
  // The new code replaces the old one, and its mail any still queued mail of the old one.
  const { issued, mailId } = await db.$transaction((tx) =>
    issueCodeWithMail(tx, { purpose: "EMAIL_VERIFY", target: email, userId: user.id, mail: (code) => verificationMail(email, code) }),
  );
  if (!issued.ok) throw cooldownRefusal(issued.retryAfterSeconds);
  await sendQueuedNow([mailId]);
}

/** The signed-in account's own address, for the forms that verify it. */
export function ownEmail(user: Pick<User, "email">): string {
  if (!user.email) throw new DomainError(400, "Your account has no email address.");
  return user.email;
}

/** Seconds until "Resend verification code" may be pressed again (0 when it may now). */
export async function verificationResendWait(user: User): Promise<number> {
  if (!user.email || user.mailVerified) return 0;
  return (await pendingCode("EMAIL_VERIFY", user.email))?.resendInSeconds ?? 0;
}

/**
 * "Cancel Verification": the sign-up is abandoned. An email account that never proved its
 * address and has nothing else attached is removed; its session goes with it.
 */
export async function cancelEmailVerification(user: User): Promise<void> {
  if (user.mailVerified) throw new DomainError(409, ALREADY_VERIFIED_MESSAGE);
  if (user.email) await cancelCode("EMAIL_VERIFY", user.email);
  if (!user.patreonId && !user.googleId && !user.discordId) await db.user.delete({ where: { id: user.id } });
}
