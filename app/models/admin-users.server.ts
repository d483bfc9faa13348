// The admin's view of users: search, one user's full record, and the posts of the editor's picker.
// Edits are in admin-user-edits.server.ts.
import { db, Prisma } from "~/db.server";
import type { PledgeEvent, ShopEmail, Tier, UnlockedContent, User } from "~/generated/prisma/client";
import { toApiDownload, toApiPledgeEvent } from "~/models/user.server";
import type { UserSearch } from "~/utils/admin-schemas";

// ------------------------------------------------------------------ search

/** The smallest string above every string that starts with `prefix` (byte order, C collation). */
function prefixUpperBound(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

function capitalizeWords(value: string): string {
  return value.toLowerCase().replace(/(^|\s)(\S)/g, (_match, space: string, letter: string) => space + letter.toUpperCase());
}

const INT_MAX = 2_147_483_647;

/**
 * Ids of users matching a search, by index-friendly conditions only (no trigram index exists):
 * email and shop email prefix (citext, case-insensitive), full name prefix (as typed, lower,
 * Capitalized, UPPER), support-platform id exactly, and the leak-trace number exactly.
 * Each branch is a range or equality on a b-tree index and carries created_at for the order;
 * UNION merges them.
 */
function matchingUserIdsSql(search: string): Prisma.Sql {
  const emailPrefix = search.toLowerCase();
  const emailUpper = prefixUpperBound(emailPrefix);
  const nameVariants = [...new Set([search, search.toLowerCase(), capitalizeWords(search), search.toUpperCase()])];
  const nameConditions = Prisma.join(
    nameVariants.map((variant) => Prisma.sql`(full_name >= ${variant} AND full_name < ${prefixUpperBound(variant)})`),
    " OR ",
  );
  const branches: Prisma.Sql[] = [
    Prisma.sql`SELECT id, created_at FROM users WHERE email >= ${emailPrefix}::citext AND email < ${emailUpper}::citext`,
    Prisma.sql`SELECT id, created_at FROM users WHERE ${nameConditions}`,
    Prisma.sql`SELECT u.id, u.created_at FROM shop_emails s JOIN users u ON u.id = s.user_id WHERE s.email >= ${emailPrefix}::citext AND s.email < ${emailUpper}::citext`,
    Prisma.sql`SELECT id, created_at FROM users WHERE patreon_id = ${search}`,
  ];
  if (/^\d{1,10}$/.test(search) && Number(search) <= INT_MAX) {
    branches.push(Prisma.sql`SELECT id, created_at FROM users WHERE number = ${Number(search)}::int`);
  }
  return Prisma.join(branches, " UNION ");
}

/** The SQL of a search page, exported so a test can EXPLAIN it. */
export function userSearchPageSql({ search, page, pageSize }: UserSearch): Prisma.Sql {
  return Prisma.sql`
    SELECT id FROM (${matchingUserIdsSql(search)}) matched
    ORDER BY created_at DESC, id DESC
    LIMIT ${pageSize}::int OFFSET ${(page - 1) * pageSize}::int`;
}

const adminUserInclude = { shopEmails: { orderBy: { createdAt: "asc" } } } satisfies Prisma.UserInclude;
type UserForList = User & { shopEmails: ShopEmail[] };

export type AdminUserSummary = ReturnType<typeof toAdminUserSummary>;

function toAdminUserSummary(user: UserForList, tiers: Map<string, Tier>) {
  return {
    _id: user.id,
    id: user.id,
    number: user.number,
    email: user.email,
    fullName: user.fullName,
    patreonId: user.patreonId,
    discordTag: user.discordTag,
    current_tier: user.currentTierId,
    current_tier_title: user.currentTierId ? (tiers.get(user.currentTierId)?.title ?? "Unknown Tier") : null,
    kofi_current_tier: user.kofiCurrentTier,
    hasPatreon: user.patreonId !== null,
    hasGoogle: user.googleId !== null,
    hasDiscord: user.discordId !== null,
    hasPassword: user.passwordHash !== null,
    isAdmin: user.isAdmin,
    canBeAdmin: user.canBeAdmin,
    mailVerified: user.mailVerified,
    tosAccepted: user.tosAccepted,
    restricted: user.restricted,
    kofiEmails: user.shopEmails.map((shopEmail) => ({ email: shopEmail.email, emailVerified: shopEmail.verifiedAt !== null })),
    createdAt: user.createdAt.toISOString(),
  };
}

async function tierMap(): Promise<Map<string, Tier>> {
  const tiers = await db.tier.findMany();
  return new Map(tiers.map((tier) => [tier.id, tier]));
}

export type UserSearchResult = { users: AdminUserSummary[]; total: number; page: number; pageSize: number };

/** One page of users, newest first, optionally narrowed by a search. */
export async function searchUsers(query: UserSearch): Promise<UserSearchResult> {
  const { search, page, pageSize } = query;
  let ids: string[];
  let total: number;
  if (!search) {
    const [rows, count] = await Promise.all([
      db.user.findMany({ select: { id: true }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: (page - 1) * pageSize, take: pageSize }),
      db.user.count(),
    ]);
    ids = rows.map((row) => row.id);
    total = count;
  } else {
    const [rows, countRows] = await Promise.all([
      db.$queryRaw<{ id: string }[]>(userSearchPageSql(query)),
      db.$queryRaw<{ total: bigint }[]>(Prisma.sql`SELECT count(*) AS total FROM (${matchingUserIdsSql(search)}) matched`),
    ]);
    ids = rows.map((row) => row.id);
    total = Number(countRows[0]?.total ?? 0);
  }
  const [users, tiers] = await Promise.all([db.user.findMany({ where: { id: { in: ids } }, include: adminUserInclude }), tierMap()]);
  const byId = new Map(users.map((user) => [user.id, user]));
  return {
    users: ids.flatMap((id) => {
      const user = byId.get(id);
      return user ? [toAdminUserSummary(user, tiers)] : [];
    }),
    total,
    page,
    pageSize,
  };
}

// ------------------------------------------------------------------ one user

const adminUserDetailInclude = {
  shopEmails: { orderBy: { createdAt: "asc" } },
  unlockedContent: { orderBy: { createdAt: "asc" } },
  downloads: { orderBy: { createdAt: "desc" }, take: 500, include: { post: { select: { title: true } } } },
  pledgeEvents: { orderBy: { date: "desc" } },
} satisfies Prisma.UserInclude;

type UserDetail = User & {
  shopEmails: ShopEmail[];
  unlockedContent: UnlockedContent[];
  downloads: { postId: string; version: string; createdAt: Date; id: string; post: { title: string } }[];
  pledgeEvents: PledgeEvent[];
};

function toAdminUser(user: UserDetail, tiers: Map<string, Tier>) {
  return {
    ...toAdminUserSummary(user, tiers),
    unlocked_content: user.unlockedContent.map((unlock) => unlock.postId),
    downloads: user.downloads.map(toApiDownload),
    pledge_history: user.pledgeEvents.map(toApiPledgeEvent),
  };
}

export type AdminUser = ReturnType<typeof toAdminUser>;

/** One user as the admin editor shows it (GET /api/admin/users/{id}); null when unknown. */
export async function getAdminUser(userId: string): Promise<AdminUser | null> {
  const [user, tiers] = await Promise.all([db.user.findUnique({ where: { id: userId }, include: adminUserDetailInclude }), tierMap()]);
  return user ? toAdminUser(user, tiers) : null;
}

// ------------------------------------------------------------------ posts for the picker

export type PickerPost = { _id: string; postId: string; title: string; enabled: boolean; paid_content: boolean };

function toPickerPost(post: { id: string; title: string; enabled: boolean; paidContent: boolean }): PickerPost {
  return { _id: post.id, postId: post.id, title: post.title, enabled: post.enabled, paid_content: post.paidContent };
}

/** Every post (disabled ones too), by title, for the unlocked-content picker. */
export async function listPickerPosts(): Promise<PickerPost[]> {
  const posts = await db.post.findMany({
    select: { id: true, title: true, enabled: true, paidContent: true },
    orderBy: [{ title: "asc" }, { id: "asc" }],
  });
  return posts.map(toPickerPost);
}

/** The posts of the given ids, in the order asked; unknown ids are left out. */
export async function getPostsByIds(postIds: string[]): Promise<PickerPost[]> {
  const posts = await db.post.findMany({
    where: { id: { in: postIds } },
    select: { id: true, title: true, enabled: true, paidContent: true },
  });
  const byId = new Map(posts.map((post) => [post.id, post]));
  return [...new Set(postIds)].flatMap((id) => {
    const post = byId.get(id);
    return post ? [toPickerPost(post)] : [];
  });
}
