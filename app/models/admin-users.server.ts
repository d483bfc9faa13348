// The admin's view of users: search, one user's full record, and edits (each edit in one
// transaction with its audit entry).
import { db, Prisma } from "~/db.server";
import type { PledgeEvent, ShopEmail, Tier, UnlockedContent, User } from "~/generated/prisma/client";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { toApiDownload, toApiPledgeEvent } from "~/models/user.server";
import { ADMIN_MESSAGES, type AdminUserUpdate, type UserSearch } from "~/utils/admin-schemas";

type Tx = Prisma.TransactionClient;

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
  const [users, tiers] = await Promise.all([
    db.user.findMany({ where: { id: { in: ids } }, include: adminUserInclude }),
    tierMap(),
  ]);
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
  const [user, tiers] = await Promise.all([
    db.user.findUnique({ where: { id: userId }, include: adminUserDetailInclude }),
    tierMap(),
  ]);
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

// ------------------------------------------------------------------ edits

/** The editable part of a user, as recorded before and after an edit in the audit log. */
async function editableSnapshot(tx: Tx, userId: string) {
  const user = await tx.user.findUnique({
    where: { id: userId },
    include: { shopEmails: { orderBy: { createdAt: "asc" } }, unlockedContent: { orderBy: { postId: "asc" } } },
  });
  if (!user) return null;
  return {
    fullName: user.fullName,
    email: user.email,
    restricted: user.restricted,
    canBeAdmin: user.canBeAdmin,
    isAdmin: user.isAdmin,
    current_tier: user.currentTierId,
    unlocked_content: user.unlockedContent.map((unlock) => unlock.postId),
    kofiEmails: user.shopEmails.map((shopEmail) => ({ email: shopEmail.email, emailVerified: shopEmail.verifiedAt !== null })),
  };
}

type Snapshot = NonNullable<Awaited<ReturnType<typeof editableSnapshot>>>;

/** Only the fields that changed, so audit entries stay readable. */
function changedFields(before: Snapshot, after: Snapshot) {
  const keys = (Object.keys(after) as (keyof Snapshot)[]).filter(
    (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
  return {
    before: Object.fromEntries(keys.map((key) => [key, before[key]])),
    after: Object.fromEntries(keys.map((key) => [key, after[key]])),
    changed: keys.length > 0,
  };
}

async function lockUser(tx: Tx, userId: string) {
  // Row lock: two admins saving the same user at once apply one after the other.
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
  if (rows.length === 0) throw new DomainError(404, ADMIN_MESSAGES.userNotFound);
}

async function addShopEmailInTx(tx: Tx, userId: string, email: string) {
  await tx.shopEmail.upsert({
    where: { userId_email: { userId, email } },
    create: { userId, email },
    update: {},
  });
}

async function verifyShopEmailInTx(tx: Tx, userId: string, email: string) {
  const holder = await tx.shopEmail.findUnique({ where: { verifiedEmail: email } });
  if (holder && holder.userId !== userId) throw new DomainError(409, ADMIN_MESSAGES.shopEmailTaken);
  if (holder) return; // already verified on this account
  const existing = await tx.shopEmail.findUnique({ where: { userId_email: { userId, email } } });
  const verified = { verifiedEmail: email, verifiedAt: new Date() };
  if (existing) await tx.shopEmail.update({ where: { id: existing.id }, data: verified });
  else await tx.shopEmail.create({ data: { userId, email, ...verified } });
}

/** Admin mode needs canBeAdmin: granting admin grants it, taking canBeAdmin away ends admin. */
function adminFlags(update: AdminUserUpdate): Pick<AdminUserUpdate, "isAdmin" | "canBeAdmin"> {
  if (update.canBeAdmin === false) return { canBeAdmin: false, isAdmin: false };
  if (update.isAdmin === true) return { canBeAdmin: true, isAdmin: true };
  return { canBeAdmin: update.canBeAdmin, isAdmin: update.isAdmin };
}

async function applyUpdate(tx: Tx, actorId: string, userId: string, requested: AdminUserUpdate) {
  const update = { ...requested, ...adminFlags(requested) };
  // An admin cannot lock themselves out from here (admin mode can still be switched on /login).
  if (actorId === userId && (update.restricted === true || update.isAdmin === false)) {
    throw new DomainError(400, ADMIN_MESSAGES.selfLockout);
  }
  const data: Prisma.UserUpdateInput = {};
  if (update.fullName !== undefined) data.fullName = update.fullName || null;
  if (update.email !== undefined) {
    const email = update.email || null;
    if (email) {
      const other = await tx.user.findFirst({ where: { email, NOT: { id: userId } }, select: { id: true } });
      if (other) throw new DomainError(409, ADMIN_MESSAGES.emailTaken);
    }
    data.email = email;
    // An address typed in by an admin is not proven by its owner (no code, no provider).
    const current = await tx.user.findUnique({ where: { id: userId }, select: { email: true } });
    if (current?.email?.toLowerCase() !== email?.toLowerCase()) data.emailVerifiedBy = null;
  }
  if (update.restricted !== undefined) data.restricted = update.restricted;
  if (update.canBeAdmin !== undefined) data.canBeAdmin = update.canBeAdmin;
  if (update.isAdmin !== undefined) data.isAdmin = update.isAdmin;
  if (update.current_tier !== undefined) data.currentTierId = update.current_tier || null;
  if (Object.keys(data).length > 0) await tx.user.update({ where: { id: userId }, data });

  if (update.unlocked_content !== undefined) {
    // The list replaces the user's unlocked content; unknown post ids are ignored.
    const wanted = await tx.post.findMany({ where: { id: { in: update.unlocked_content } }, select: { id: true } });
    const wantedIds = wanted.map((post) => post.id);
    await tx.unlockedContent.deleteMany({ where: { userId, postId: { notIn: wantedIds } } });
    await tx.unlockedContent.createMany({
      data: wantedIds.map((postId) => ({ userId, postId, source: "ADMIN" as const })),
      skipDuplicates: true,
    });
  }

  for (const shopEmail of update.kofiEmails ?? []) {
    await addShopEmailInTx(tx, userId, shopEmail.email);
    if (shopEmail.emailVerified) await verifyShopEmailInTx(tx, userId, shopEmail.email);
  }
}

async function auditedUserChange(
  actorId: string,
  userId: string,
  action: string,
  change: (tx: Tx) => Promise<void>,
): Promise<void> {
  try {
    await db.$transaction(async (tx) => {
      await lockUser(tx, userId);
      const before = (await editableSnapshot(tx, userId))!;
      await change(tx);
      const after = (await editableSnapshot(tx, userId))!;
      const diff = changedFields(before, after);
      if (diff.changed) {
        await recordAudit({ actorId, action, targetType: "user", targetId: userId, before: diff.before, after: diff.after }, tx);
      }
    });
  } catch (error) {
    // A concurrent save took the address between our check and our write.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const target = JSON.stringify(error.meta ?? {});
      throw new DomainError(409, target.includes("verified") ? ADMIN_MESSAGES.shopEmailTaken : ADMIN_MESSAGES.emailTaken);
    }
    throw error;
  }
}

/** PUT /api/admin/users/{id} and the editor's Save: applies the editable fields that were sent. */
export async function updateUserAsAdmin(actorId: string, userId: string, update: AdminUserUpdate): Promise<void> {
  await auditedUserChange(actorId, userId, "user.update", (tx) => applyUpdate(tx, actorId, userId, update));
}

/** Adds a shop email to a user as unverified (it unlocks nothing until verified). */
export async function addShopEmailAsAdmin(actorId: string, userId: string, email: string): Promise<void> {
  await auditedUserChange(actorId, userId, "user.shop_email.add", (tx) => addShopEmailInTx(tx, userId, email));
}

/** Marks a user's shop email verified by hand (adds it first when missing). */
export async function verifyShopEmailAsAdmin(actorId: string, userId: string, email: string): Promise<void> {
  await auditedUserChange(actorId, userId, "user.shop_email.verify", (tx) => verifyShopEmailInTx(tx, userId, email));
}
