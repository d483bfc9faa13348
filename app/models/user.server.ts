// Users as the `/api` layer shows them: the field names of docs/api.md#user, mapped from our columns.
import { db } from "~/db.server";
import type { PledgeEvent, ShopEmail, User } from "~/generated/prisma/client";
import { visiblePostsWhere } from "~/models/post-visibility.server";

export type UserWithShopEmails = User & { shopEmails: ShopEmail[] };

/** The fields handed to `/login?callback=` as `userData` (docs/api.md#user). */
export function toUserData(user: UserWithShopEmails) {
  return {
    id: user.id,
    email: user.email,
    fullName: user.fullName,
    isAdmin: user.isAdmin,
    mailVerified: user.mailVerified,
    hasPatreon: user.patreonId !== null,
    hasGoogle: user.googleId !== null,
    hasDiscord: user.discordId !== null,
    current_tier: user.currentTierId,
    kofiEmails: user.shopEmails.map((shopEmail) => ({
      email: shopEmail.email,
      emailVerified: shopEmail.verifiedAt !== null,
    })),
    hasPassword: user.passwordHash !== null,
    canBeAdmin: user.canBeAdmin,
    tosAccepted: user.tosAccepted,
  };
}

/** The user as `GET /api/auth/user` answers it: userData plus the rest of docs/api.md#user. */
export function toApiUser(user: UserWithShopEmails) {
  const userData = toUserData(user);
  return {
    _id: user.id,
    ...userData,
    number: user.number,
    patreonId: user.patreonId,
    discordTag: user.discordTag,
    kofi_current_tier: user.kofiCurrentTier,
    restricted: user.restricted,
    koFiEmails: userData.kofiEmails,
  };
}

export async function getUserWithShopEmails(userId: string): Promise<UserWithShopEmails | null> {
  return db.user.findUnique({ where: { id: userId }, include: { shopEmails: { orderBy: { createdAt: "asc" } } } });
}

/** Display name for the navigation: the full name, else the email's local part. */
export function displayName(user: Pick<User, "fullName" | "email">): string {
  return user.fullName ?? user.email?.split("@")[0] ?? "Account";
}

/** A pledge-history entry in the /api field names (docs/api.md). */
export function toApiPledgeEvent(event: PledgeEvent) {
  return {
    pledgeId: event.id,
    amount_cents: event.amountCents,
    date: event.date.toISOString(),
    tier_title: event.tierTitle,
    tier_id: event.tierId,
    payment_status: event.paymentStatus,
  };
}

/** A download record in the /api field names (docs/api.md). */
export function toApiDownload(download: { id: string; postId: string; version: string; createdAt: Date; post: { title: string } }) {
  return {
    _id: download.id,
    postId: download.postId,
    postTitle: download.post.title,
    version: download.version,
    date: download.createdAt.toISOString(),
  };
}

const RECENT_DOWNLOADS = 500;

/**
 * The whole account as `GET /api/auth/user` answers it (docs/api.md#user). Its grants and
 * downloads name only posts the account may see now (the post-visibility rule): one disabled or
 * scheduled since is left out, as on "My downloads".
 */
export async function getAccount(viewer: Pick<User, "id" | "isAdmin" | "restricted">, now: Date = new Date()) {
  const seen = { post: visiblePostsWhere(viewer, now) };
  const user = await db.user.findUnique({
    where: { id: viewer.id },
    include: {
      shopEmails: { orderBy: { createdAt: "asc" } },
      unlockedContent: { where: seen, orderBy: { createdAt: "asc" }, select: { postId: true } },
      downloads: { where: seen, orderBy: { createdAt: "desc" }, take: RECENT_DOWNLOADS, include: { post: { select: { title: true } } } },
      pledgeEvents: { orderBy: { date: "desc" } },
    },
  });
  if (!user) return null;
  return {
    ...toApiUser(user),
    unlocked_content: user.unlockedContent.map((unlock) => unlock.postId),
    downloads: user.downloads.map(toApiDownload),
    pledge_history: user.pledgeEvents.map(toApiPledgeEvent),
  };
}
