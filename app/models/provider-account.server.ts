// Provider identities (support platform, general provider, chat community) and the accounts
// they sign in to or link to. Refusals carry a callback `code` (app/utils/auth-callback-errors.ts):
// /auth/callback shows the words of that code only.
import { db, type Prisma } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import type { ProviderName, ProviderProfile } from "~/integrations/oauth.server";
import { grantAdminIfListed, hasProvenEmail, hasUnprovenEmail, isListedAdmin } from "~/models/account.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { isRestricted } from "~/models/restriction.server";
import { CALLBACK_ERRORS, type CallbackErrorCode } from "~/utils/auth-callback-errors";

export type { ProviderName, ProviderProfile };

export const PROVIDER_LABELS: Record<ProviderName, string> = { patreon: "Patreon", google: "Google", discord: "Discord" };

const PROVIDER_COLUMN = { patreon: "patreonId", google: "googleId", discord: "discordId" } as const;
const PROVIDER_METHOD = { patreon: "PATREON", google: "GOOGLE", discord: "DISCORD" } as const;

/** A refused provider sign-in, in the words of its callback code. */
function signInRefusal(status: number, code: CallbackErrorCode): DomainError {
  return new DomainError(status, CALLBACK_ERRORS[code], { code });
}

function providerData(profile: ProviderProfile) {
  return {
    [PROVIDER_COLUMN[profile.provider]]: profile.id,
    ...(profile.provider === "discord" ? { discordTag: profile.discordTag ?? null } : {}),
    ...(profile.provider === "patreon" ? { currentTierId: profile.currentTierId ?? null } : {}),
  };
}

/**
 * The owner of `email` (a provider just proved it) takes it back from an account that never
 * proved it: that account loses the address (and admin rights that came from it), its sessions
 * and pending codes end, and nothing of it is merged into the owner's account.
 */
async function evictUnprovenHolder(holder: User, email: string, tx: Prisma.TransactionClient) {
  const listed = isListedAdmin(email);
  await tx.user.update({
    where: { id: holder.id },
    data: { email: null, emailVerifiedBy: null, mailVerified: false, ...(listed ? { canBeAdmin: false, isAdmin: false } : {}) },
  });
  await tx.session.deleteMany({ where: { userId: holder.id } });
  await tx.verification.deleteMany({ where: { purpose: { in: ["EMAIL_VERIFY", "PASSWORD_RESET"] }, target: email } });
  await recordAudit(
    {
      actorId: null,
      action: "user.email.reclaimed",
      targetType: "user",
      targetId: holder.id,
      before: { email, mailVerified: holder.mailVerified },
      after: { email: null },
    },
    tx,
  );
}

/**
 * Finds or creates the account of a provider identity: keyed on the provider's id; linked to
 * the logged-in account (which changes no email or its proof, and is refused while that account's
 * email is unproven), or to the account that has proven the same verified email; never
 * duplicated. An account holding that email unproven loses it.
 */
export async function signInWithProvider(profile: ProviderProfile, currentUser: User | null): Promise<User> {
  const column = PROVIDER_COLUMN[profile.provider];
  const byProviderId = await db.user.findFirst({ where: { [column]: profile.id } });

  if (currentUser) {
    if (isRestricted(currentUser)) throw signInRefusal(403, "restricted");
    // Whoever later proves the address owns the account: no identity may wait on it until then.
    if (hasUnprovenEmail(currentUser)) throw signInRefusal(403, "email_unproven");
    if (byProviderId && byProviderId.id !== currentUser.id) throw signInRefusal(409, "already_linked");
    return db.user.update({ where: { id: currentUser.id }, data: providerData(profile) });
  }

  if (byProviderId) {
    const updated = await db.user.update({ where: { id: byProviderId.id }, data: providerData(profile) });
    return grantAdminIfListed(updated);
  }

  const email = profile.email && profile.emailVerified ? profile.email.toLowerCase() : null;
  if (email) {
    const byEmail = await db.user.findUnique({ where: { email } });
    if (byEmail && hasProvenEmail(byEmail)) {
      if (byEmail[column] !== null) throw signInRefusal(409, "email_linked");
      const linked = await db.user.update({ where: { id: byEmail.id }, data: providerData(profile) });
      return grantAdminIfListed(linked);
    }
  }

  // New account, holding the provider's verified email (taken back from an account that never
  // proved it). General and chat-community accounts become verified by choosing a username;
  // support-platform accounts come with their name.
  const created = await db.$transaction(async (tx) => {
    if (email) {
      const holder = await tx.user.findUnique({ where: { email } });
      if (holder && hasProvenEmail(holder)) throw signInRefusal(409, "email_taken");
      if (holder) await evictUnprovenHolder(holder, email, tx);
    }
    return tx.user.create({
      data: {
        email,
        emailVerifiedBy: email ? PROVIDER_METHOD[profile.provider] : null,
        signUpMethod: PROVIDER_METHOD[profile.provider],
        fullName: profile.provider === "patreon" ? profile.name : null,
        mailVerified: profile.provider === "patreon",
        ...providerData(profile),
      },
    });
  });
  return grantAdminIfListed(created);
}
