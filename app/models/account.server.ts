// Rules every way of signing in shares: who counts as having proven their email, who may be an
// admin, the username step, admin mode, and where /login?callback= may send sign-in data.
import { db, type Prisma } from "~/db.server";
import { env } from "~/env.server";
import type { User } from "~/generated/prisma/client";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { enforceRateLimit } from "~/models/rate-limit.server";
import { isRestricted, RESTRICTED_MESSAGE } from "~/models/restriction.server";
import { CALLBACK_ERRORS } from "~/utils/auth-callback-errors";

export const MINUTE = 60 * 1000;

export function isListedAdmin(email: string | null): boolean {
  return email !== null && env().ADMIN_EMAILS.includes(email.toLowerCase());
}

/**
 * Whether the account's email address is proven: by a code mailed to it, or by a provider that
 * asserted this very address as verified. `mailVerified` alone is not proof (it is also the
 * "finished setting up" state of provider accounts).
 */
export function hasProvenEmail(user: Pick<User, "email" | "emailVerifiedBy">): boolean {
  return user.email !== null && user.emailVerifiedBy !== null;
}

export const UNPROVEN_EMAIL_MESSAGE = CALLBACK_ERRORS.email_unproven;

/**
 * Whether the account holds an address nobody has proven yet. An account without an address
 * (a provider account that came without one) holds nothing a stranger could later prove.
 */
export function hasUnprovenEmail(user: Pick<User, "email" | "emailVerifiedBy">): boolean {
  return user.email !== null && user.emailVerifiedBy === null;
}

/**
 * Refuses (403) to attach a way into the account (a shop email, the feed link; provider
 * identities are refused in provider-account.server.ts) while its address is unproven: whoever
 * proves the address later owns the account and must find nobody else's way in on it.
 */
export async function requireProvenEmailToAttach(userId: string): Promise<void> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { email: true, emailVerifiedBy: true } });
  if (user && hasUnprovenEmail(user)) throw new DomainError(403, UNPROVEN_EMAIL_MESSAGE);
}

/**
 * The first proof of the account's address (its sign-up code, or a password reset by code): what
 * was attached while the address was unproven may be a stranger's way in, so it ends here, in the
 * caller's transaction. Linked provider identities (with the tiers that only they kept up to
 * date), shop emails and their pending codes, the feed link, personal API tokens, unused login
 * codes and every session. Audited when more than sessions went.
 */
export async function dropUnprovenAttachments(tx: Prisma.TransactionClient, userId: string): Promise<void> {
  const user = await tx.user.findUniqueOrThrow({ where: { id: userId } });
  const shopEmails = await tx.shopEmail.findMany({ where: { userId }, select: { email: true, verifiedAt: true } });
  const feed = await tx.updateSubscription.findUnique({ where: { userId }, select: { feedTokenHash: true } });
  const apiTokens = await tx.apiToken.count({ where: { userId } });
  // The support-platform tier follows the linked identity, the shop tier the verified shop emails.
  const tierFromIdentity = user.patreonId !== null;
  const tierFromShop = shopEmails.some((row) => row.verifiedAt !== null);
  await tx.user.update({
    where: { id: userId },
    data: {
      googleId: null,
      discordId: null,
      discordTag: null,
      patreonId: null,
      ...(tierFromIdentity ? { currentTierId: null } : {}),
      ...(tierFromShop ? { kofiCurrentTier: null } : {}),
    },
  });
  await tx.shopEmail.deleteMany({ where: { userId } });
  await tx.verification.deleteMany({ where: { userId, purpose: { in: ["SHOP_EMAIL", "LOGIN_CODE"] } } });
  await tx.updateSubscription.updateMany({ where: { userId }, data: { feedTokenHash: null, feedTokenCreatedAt: null } });
  await tx.apiToken.deleteMany({ where: { userId } });
  await tx.session.deleteMany({ where: { userId } });

  const before = {
    googleId: user.googleId,
    discordId: user.discordId,
    patreonId: user.patreonId,
    ...(tierFromIdentity ? { current_tier: user.currentTierId } : {}),
    ...(tierFromShop ? { kofi_current_tier: user.kofiCurrentTier } : {}),
    kofiEmails: shopEmails.map((row) => ({ email: row.email, emailVerified: row.verifiedAt !== null })),
    feedLink: Boolean(feed?.feedTokenHash),
    apiTokens,
  };
  const dropped = user.googleId !== null || user.discordId !== null || tierFromIdentity || shopEmails.length > 0 || before.feedLink || apiTokens > 0;
  if (dropped) await recordAudit({ actorId: null, action: "user.email.proven", targetType: "user", targetId: userId, before, after: null }, tx);
}

/** Accounts whose proven email is in ADMIN_EMAILS may switch admin mode on. */
export async function grantAdminIfListed(user: User): Promise<User> {
  if (user.canBeAdmin || !user.mailVerified || !hasProvenEmail(user) || !isListedAdmin(user.email)) return user;
  return db.user.update({ where: { id: user.id }, data: { canBeAdmin: true } });
}

/**
 * Whether choosing a username verifies this account (docs/product.md#accounts): only an account created by
 * the general or chat-community provider, holding no email or the address that same provider
 * asserted as verified. An email account that merely linked a provider must still enter its code.
 */
export function verifiesByUsername(user: Pick<User, "signUpMethod" | "email" | "emailVerifiedBy" | "mailVerified">): boolean {
  if (user.mailVerified) return false;
  if (user.signUpMethod !== "GOOGLE" && user.signUpMethod !== "DISCORD") return false;
  return user.email === null || user.emailVerifiedBy === user.signUpMethod;
}

/** What the Google/Discord username step answers (docs/messages.md). */
export const USERNAME_STEP_MESSAGES = {
  verified: "Username set successfully! Your account is now verified.",
  set: "Username set successfully.",
} as const;

/** The username step's answer for the account as the step left it: "now verified" only when it is. */
export function usernameStepMessage(user: Pick<User, "mailVerified">): string {
  return user.mailVerified ? USERNAME_STEP_MESSAGES.verified : USERNAME_STEP_MESSAGES.set;
}

/** Sets the display name; for the accounts of `verifiesByUsername` it is the verifying step. */
export async function setUsername(user: User, username: string): Promise<User> {
  if (isRestricted(user)) throw new DomainError(403, RESTRICTED_MESSAGE);
  await enforceRateLimit(`username:user:${user.id}`, 10, 15 * MINUTE);
  const updated = await db.user.update({
    where: { id: user.id },
    data: { fullName: username, ...(verifiesByUsername(user) ? { mailVerified: true } : {}) },
  });
  return grantAdminIfListed(updated);
}

/** Switches admin mode; only accounts with canBeAdmin may. Recorded in the audit log. */
export async function toggleAdmin(user: User): Promise<boolean> {
  if (!user.canBeAdmin || user.restricted) throw new DomainError(403, "You are not allowed to change admin status.");
  return db.$transaction(async (tx) => {
    const current = await tx.user.findUniqueOrThrow({ where: { id: user.id }, select: { isAdmin: true } });
    const updated = await tx.user.update({ where: { id: user.id }, data: { isAdmin: !current.isAdmin } });
    await recordAudit(
      {
        actorId: user.id,
        action: "user.toggle-admin",
        targetType: "user",
        targetId: user.id,
        before: { isAdmin: current.isAdmin },
        after: { isAdmin: updated.isAdmin },
      },
      tx,
    );
    return updated.isAdmin;
  });
}

/** The callback address when its origin is on CALLBACK_ORIGINS; null otherwise (no open redirect). */
export function allowedCallback(callback: string): URL | null {
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password) return null;
  return env().CALLBACK_ORIGINS.includes(url.origin) ? url : null;
}
