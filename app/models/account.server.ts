// Rules every way of signing in shares: who counts as having proven their email, who may be an
// admin, the username step, admin mode, and where /login?callback= may send sign-in data.
import { db } from "~/db.server";
import { env } from "~/env.server";
import type { User } from "~/generated/prisma/client";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { enforceRateLimit } from "~/models/rate-limit.server";
import { isRestricted, RESTRICTED_MESSAGE } from "~/models/restriction.server";

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
      { actorId: user.id, action: "user.toggle-admin", targetType: "user", targetId: user.id, before: { isAdmin: current.isAdmin }, after: { isAdmin: updated.isAdmin } },
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
