// Shop emails (the spec's kofiEmails): a user links the address they bought with, proves it with
// a mailed code, and from then on every purchase made with it counts for them (rule 6), also
// purchases made before, as a guest. One verified owner per address; one pending address per
// user at a time.
import { db, Prisma } from "~/db.server";
import { codeMail, type OutgoingMail } from "~/integrations/mail.server";
import { requireProvenEmailToAttach } from "~/models/account.server";
import { DomainError } from "~/models/errors";
import { sendQueuedNow } from "~/models/mail-outbox.server";
import { enforceRateLimit } from "~/models/rate-limit.server";
import { cancelCode, checkCode, checkRefusal, cooldownRefusal, issueCodeWithMail, pendingCode } from "~/models/verification.server";
import { SHOP_MESSAGES } from "~/utils/shop-schemas";

/** Code mails one account may cause per hour (cancel + link again must not turn into a mail cannon). */
export const SHOP_MAILS_PER_HOUR = 10;
/** Code mails one mailbox may receive per hour, whichever accounts ask for them. */
export const SHOP_MAILS_PER_EMAIL_PER_HOUR = 5;
/** Code mails one client address may cause per hour, across accounts. */
export const SHOP_MAILS_PER_ADDRESS_PER_HOUR = 30;
const HOUR = 60 * 60 * 1000;

// Several accounts may have the same address pending, so the code is keyed by account too.
function codeTarget(userId: string, email: string): string {
  return `${userId}:${email.toLowerCase()}`;
}

/**
 * Counts one code mail against the account, the target mailbox and the client's address: many
 * accounts (or one client with many accounts) must not flood somebody else's inbox.
 */
async function countMail(userId: string, email: string, client: string | null) {
  const keys: [string, number][] = [
    [`shop-email-mail:${userId}`, SHOP_MAILS_PER_HOUR],
    [`shop-email-mail:email:${email.toLowerCase()}`, SHOP_MAILS_PER_EMAIL_PER_HOUR],
    ...(client ? ([[`shop-email-mail:ip:${client}`, SHOP_MAILS_PER_ADDRESS_PER_HOUR]] as [string, number][]) : []),
  ];
  for (const [key, limit] of keys) await enforceRateLimit(key, limit, HOUR);
}

function codeMailTo(email: string) {
  return (code: string): OutgoingMail =>
    codeMail({
      to: email,
      subject: "Your shop email verification code",
      intro: "Use this code to link this shop email to your account:",
      code,
      outro: "It expires in 15 minutes. If you did not ask for it, ignore this mail.",
    });
}

async function findOwnedElsewhere(userId: string, email: string) {
  return db.shopEmail.findFirst({ where: { verifiedEmail: email, userId: { not: userId } }, select: { id: true } });
}

/** Starts linking `email`: stores it as pending and mails a code. */
export async function linkShopEmail(userId: string, email: string, client: string | null = null): Promise<{ message: string }> {
  await requireProvenEmailToAttach(userId);
  // Answers say whether an address is taken by another account: no probing address lists.
  await enforceRateLimit(`shop-email-link:${userId}`, 20, HOUR);
  const existing = await db.shopEmail.findMany({ where: { userId } });
  const same = existing.find((row) => row.email.toLowerCase() === email);
  if (same?.verifiedAt) throw new DomainError(409, SHOP_MESSAGES.alreadyLinked);
  if (await findOwnedElsewhere(userId, email)) throw new DomainError(409, SHOP_MESSAGES.emailTaken);
  const otherPending = existing.find((row) => !row.verifiedAt && row.email.toLowerCase() !== email);
  if (otherPending) throw new DomainError(409, SHOP_MESSAGES.pendingExists);
  if (same) {
    // Linking the pending address again is a resend.
    await resendShopEmailCode(userId, email, client);
    return { message: SHOP_MESSAGES.sent };
  }

  await countMail(userId, email, client);
  // The pending address, its code and the code's mail: together or not at all. A mail server
  // that is down leaves the mail queued and retried until the code expires.
  const mailId = await db.$transaction(async (tx) => {
    await tx.shopEmail.create({ data: { userId, email } });
    const { issued, mailId } = await issueCodeWithMail(tx, { purpose: "SHOP_EMAIL", target: codeTarget(userId, email), userId, mail: codeMailTo(email) });
    if (!issued.ok) throw cooldownRefusal(issued.retryAfterSeconds);
    return mailId;
  });
  await sendQueuedNow([mailId]);
  return { message: SHOP_MESSAGES.sent };
}

/** Checks the mailed code; on success the address is verified and owned by this user. */
export async function verifyShopEmail(userId: string, email: string, code: string): Promise<{ message: string }> {
  await requireProvenEmailToAttach(userId);
  // Each code allows a few attempts; this caps guesses across resent codes too.
  await enforceRateLimit(`shop-email-verify:${userId}`, 10, 15 * 60 * 1000);
  const pending = await db.shopEmail.findUnique({ where: { userId_email: { userId, email } } });
  if (!pending) throw new DomainError(404, SHOP_MESSAGES.noPending);
  if (pending.verifiedAt) return { message: SHOP_MESSAGES.verified };
  if (await findOwnedElsewhere(userId, email)) throw new DomainError(409, SHOP_MESSAGES.emailTaken);
  const result = await checkCode({ purpose: "SHOP_EMAIL", target: codeTarget(userId, email), code });
  if (!result.ok) throw checkRefusal(result.reason);
  try {
    await db.shopEmail.update({ where: { id: pending.id }, data: { verifiedEmail: email, verifiedAt: new Date() } });
  } catch (error) {
    // Another account verified the same address a moment ago.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new DomainError(409, SHOP_MESSAGES.emailTaken);
    }
    throw error;
  }
  return { message: SHOP_MESSAGES.verified };
}

/** Mails a new code for the pending address (60 s cooldown, enforced here). */
export async function resendShopEmailCode(userId: string, email: string, client: string | null = null): Promise<{ message: string }> {
  await requireProvenEmailToAttach(userId);
  const pending = await db.shopEmail.findUnique({ where: { userId_email: { userId, email } } });
  if (!pending || pending.verifiedAt) throw new DomainError(404, SHOP_MESSAGES.noPending);
  await countMail(userId, email, client);
  const { issued, mailId } = await db.$transaction((tx) =>
    issueCodeWithMail(tx, { purpose: "SHOP_EMAIL", target: codeTarget(userId, email), userId, mail: codeMailTo(email) }),
  );
  if (!issued.ok) throw cooldownRefusal(issued.retryAfterSeconds);
  await sendQueuedNow([mailId]);
  return { message: SHOP_MESSAGES.resent };
}

/** Drops the pending address and its code (allowed whatever the account's proof). Verified addresses are not touched. */
export async function cancelShopEmailVerification(userId: string, email: string): Promise<{ message: string }> {
  const { count } = await db.shopEmail.deleteMany({ where: { userId, email, verifiedAt: null } });
  await cancelCode("SHOP_EMAIL", codeTarget(userId, email));
  if (count === 0) throw new DomainError(404, SHOP_MESSAGES.noPending);
  return { message: SHOP_MESSAGES.canceled };
}

export type ShopEmailPanelData = {
  verified: { email: string; verifiedAt: string }[];
  pending: { email: string; resendInSeconds: number } | null;
};

/** What the account page's shop panel shows. */
export async function shopEmailPanelData(userId: string): Promise<ShopEmailPanelData> {
  const rows = await db.shopEmail.findMany({ where: { userId }, orderBy: { createdAt: "asc" } });
  const verified = rows.filter((row) => row.verifiedAt).map((row) => ({ email: row.email, verifiedAt: row.verifiedAt!.toISOString() }));
  const pendingRow = rows.find((row) => !row.verifiedAt);
  let pending: ShopEmailPanelData["pending"] = null;
  if (pendingRow) {
    const code = await pendingCode("SHOP_EMAIL", codeTarget(userId, pendingRow.email));
    pending = { email: pendingRow.email, resendInSeconds: code?.resendInSeconds ?? 0 };
  }
  return { verified, pending };
}
