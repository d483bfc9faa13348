// An admin's edits of a user (the editor's Save, PUT /api/admin/users/{id}, shop emails added,
// verified or removed by hand): each in one transaction that locks the user's row and records the changed
// fields, before and after, in the audit log.
import { db, Prisma } from "~/db.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { ADMIN_MESSAGES, type AdminUserUpdate } from "~/utils/admin-schemas";

type Tx = Prisma.TransactionClient;

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
  const keys = (Object.keys(after) as (keyof Snapshot)[]).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
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

/** Takes a shop email off the user (any case; verified or not): it unlocks nothing for them any more. */
async function removeShopEmailInTx(tx: Tx, userId: string, email: string) {
  // The column is citext: equality ignores case.
  await tx.shopEmail.deleteMany({ where: { userId, email } });
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

  for (const email of update.removeKofiEmails ?? []) await removeShopEmailInTx(tx, userId, email);
  for (const shopEmail of update.kofiEmails ?? []) {
    await addShopEmailInTx(tx, userId, shopEmail.email);
    if (shopEmail.emailVerified) await verifyShopEmailInTx(tx, userId, shopEmail.email);
  }
}

async function auditedUserChange(actorId: string, userId: string, action: string, change: (tx: Tx) => Promise<void>): Promise<void> {
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

/** Takes a shop email off a user, verified or not (a mistyped address must not unlock someone else's purchases). */
export async function removeShopEmailAsAdmin(actorId: string, userId: string, email: string): Promise<void> {
  await auditedUserChange(actorId, userId, "user.shop_email.remove", (tx) => removeShopEmailInTx(tx, userId, email));
}
