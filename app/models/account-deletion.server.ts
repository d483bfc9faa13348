// Self-service account deletion (docs/product.md#deleting-an-account): after re-authentication
// (the password, or a mailed code for accounts without one) every session ends and the personal
// data goes. Purchases and pledges needed for accounting stay, with nothing naming the person.
import { randomBytes } from "node:crypto";
import { db } from "~/db.server";
import { codeMail } from "~/integrations/mail.server";
import { passwordPool } from "~/integrations/password-pool.server";
import { provenEmailsOf } from "~/models/account-data.server";
import { recordAudit, redactAuditOf } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { sendQueuedNow } from "~/models/mail-outbox.server";
import { deleteRateLimitsOf, enforceRateLimit } from "~/models/rate-limit.server";
import { checkCode, checkFailureMessage, cooldownMessage, issueCodeWithMail } from "~/models/verification.server";

export const DELETE_MESSAGES = {
  deleted: "Your account has been deleted.",
  failed: "Could not delete your account.",
  wrongPassword: "Wrong password.",
  passwordRequired: "Please enter your password.",
  codeRequired: "Please enter the 6-digit code from the mail.",
  codeSent: "We sent a code to your email address.",
  noEmail: "Your account has no email address for a code. Set a password first, then delete with it.",
  lastAdmin: "You are the last admin. Make another account an admin before deleting yours.",
  notFound: "Account not found.",
} as const;

const MINUTE = 60_000;

type Proof = { password?: string; code?: string };

/** Accounts without a password confirm with a code mailed to their address. */
export async function sendDeletionCode(userId: string): Promise<void> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { id: true, email: true, passwordHash: true } });
  if (!user) throw new DomainError(404, DELETE_MESSAGES.notFound);
  if (!user.email) throw new DomainError(400, DELETE_MESSAGES.noEmail);
  const email = user.email;
  const { issued, mailId } = await db.$transaction((tx) =>
    issueCodeWithMail(tx, {
      purpose: "ACCOUNT_DELETE",
      target: user.id,
      userId: user.id,
      mail: (code) =>
        codeMail({
          to: email,
          subject: "Confirm deleting your account",
          intro: "Someone (hopefully you) asked to delete your Creator Library account. Enter this code to confirm:",
          code,
          outro: "The code is valid for 15 minutes. If you did not ask for this, ignore this mail: nothing changes.",
        }),
    }),
  );
  if (!issued.ok) throw new DomainError(429, cooldownMessage(issued.retryAfterSeconds), { retryAfterSeconds: issued.retryAfterSeconds });
  await sendQueuedNow([mailId]);
}

async function confirmIdentity(user: { id: string; passwordHash: string | null }, proof: Proof): Promise<void> {
  await enforceRateLimit(`delete-account:user:${user.id}`, 10, 15 * MINUTE);
  if (user.passwordHash) {
    if (!proof.password) throw new DomainError(400, DELETE_MESSAGES.passwordRequired, { fields: { password: DELETE_MESSAGES.passwordRequired } });
    const matches = await (await passwordPool()).compare(proof.password, user.passwordHash);
    if (!matches) throw new DomainError(401, DELETE_MESSAGES.wrongPassword, { fields: { password: DELETE_MESSAGES.wrongPassword } });
    return;
  }
  if (!proof.code || !/^\d{6}$/.test(proof.code.trim()))
    throw new DomainError(400, DELETE_MESSAGES.codeRequired, { fields: { code: DELETE_MESSAGES.codeRequired } });
  const checked = await checkCode({ purpose: "ACCOUNT_DELETE", target: user.id, code: proof.code });
  if (!checked.ok) {
    const message = checkFailureMessage(checked.reason);
    throw new DomainError(400, message, { fields: { code: message } });
  }
}

export type DeletionSummary = { purchasesAnonymised: number; pledgesAnonymised: number };

/**
 * Deletes the account after re-authentication. In one transaction: refuses the last admin, keeps
 * purchases (under a placeholder buyer address) and pledges (copied without the account or the
 * platform's event id), redacts audit entries about the account or naming its id or proven
 * emails, removes its codes, rate-limit windows and platform state, deletes the user (sessions,
 * shop emails, downloads, likes, grants and pledge events go with it) and records the deletion.
 */
export async function deleteOwnAccount(userId: string, proof: Proof): Promise<DeletionSummary> {
  const user = await db.user.findUnique({ where: { id: userId } });
  if (!user) throw new DomainError(404, DELETE_MESSAGES.notFound);
  // Said before a mailed code is used up; the transaction below checks again under a lock.
  if ((user.isAdmin || user.canBeAdmin) && (await db.user.count({ where: { id: { not: user.id }, OR: [{ isAdmin: true }, { canBeAdmin: true }] } })) === 0) {
    throw new DomainError(409, DELETE_MESSAGES.lastAdmin);
  }
  await confirmIdentity(user, proof);
  const emails = await provenEmailsOf(user.id);
  const names = [user.email, ...emails].filter((value): value is string => Boolean(value)).map((value) => value.toLowerCase());
  return db.$transaction(async (tx) => {
    // Admin rows locked in one order, so two admins deleting at once cannot both pass the check.
    const admins = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM users WHERE is_admin OR can_be_admin ORDER BY id FOR UPDATE`;
    const isAdminAccount = admins.some((row) => row.id === user.id);
    if (isAdminAccount && admins.length === 1) throw new DomainError(409, DELETE_MESSAGES.lastAdmin);

    const placeholder = `deleted-${randomBytes(8).toString("hex")}@anonymised.invalid`;
    const purchases = emails.length ? await tx.purchase.updateMany({ where: { email: { in: emails } }, data: { email: placeholder } }) : { count: 0 };
    const pledges = await tx.pledgeEvent.findMany({ where: { userId: user.id } });
    if (pledges.length) {
      await tx.anonymisedPledge.createMany({
        data: pledges.map((event) => ({
          type: event.type,
          amountCents: event.amountCents,
          date: event.date,
          tierId: event.tierId,
          tierTitle: event.tierTitle,
          paymentStatus: event.paymentStatus,
        })),
      });
    }
    if (user.patreonId) await tx.patreonMemberState.deleteMany({ where: { patreonUserId: user.patreonId } });
    await tx.verification.deleteMany({
      where: { OR: [{ userId: user.id }, { target: { in: names } }, { target: { startsWith: `${user.id}:` } }, { target: user.id }] },
    });
    // Only proven addresses: anyone can sign up with an address, and deleting that account must
    // neither lift the address's limits nor wipe other people's audit entries that name it.
    await deleteRateLimitsOf(tx, user.id, emails);
    // What admins changed about the account stays as "something changed", not what it was.
    await redactAuditOf(tx, user.id, emails);
    // The parts of files sent to the account not yet a whole download (keyed by text, no foreign key).
    await tx.downloadProgress.deleteMany({ where: { downloader: `u:${user.id}` } });
    // Discord roles (no foreign key): the roles stay recorded under the Discord member until the
    // next run of the discord-roles job takes them back, no longer tied to the account.
    await tx.discordRoleState.updateMany({ where: { userId: user.id }, data: { userId: null } });
    await tx.discordJob.updateMany({ where: { userId: user.id }, data: { userId: null } });
    await tx.user.delete({ where: { id: user.id } });
    const summary = { purchasesAnonymised: purchases.count, pledgesAnonymised: pledges.length };
    await recordAudit({ actorId: null, action: "account.delete", targetType: "user", targetId: user.id, after: summary }, tx);
    return summary;
  });
}
