// Requirements (docs/product.md#requirements): what a post needs to work, another post (with an
// optional minimum version) or an outside item. Admins set them (routes check who may); viewers
// read them with their own access line: the card's words for the required post
// (`describeLibraryCards`), from the listing's own explanation of it (no query per card). A required post the viewer may not see is never named (the post-visibility rule:
// it is named only when the viewer's own listing holds it). Requirements warn, never block.
import { db } from "~/db.server";
import { recordAudit } from "~/models/audit.server";
import { describeLibraryCards } from "~/models/access.server";
import { toEntitlementPost, withAccess, type ViewerContext } from "~/models/entitlement.server";
import { DomainError } from "~/models/errors";
import { storedRequirementsAt, type LibraryListing, type LibraryPost } from "~/models/library-listing.server";
import { isPostVisible } from "~/models/post-visibility.server";
import type { User } from "~/generated/prisma/client";
import { tierName } from "~/utils/access-words";
import { formatDay } from "~/utils/dates";
import { CATALOG_MESSAGES, type RequirementsInput } from "~/utils/catalog-schemas";
import { canDownload, type EntitlementViewer } from "~/utils/entitlement";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { describeRequirements, type RequiredPostFacts, type RequirementView } from "~/utils/requirements";

/** A requirement as the admins' editor and GET /api/admin/posts/{id}/requirements show it. */
export type AdminRequirement = { post_id: string | null; title: string | null; min_version: string | null; name: string | null; url: string | null };

export async function getPostRequirements(postId: string): Promise<AdminRequirement[]> {
  const post = await db.post.findUnique({
    where: { id: postId },
    select: {
      requirements: {
        orderBy: [{ position: "asc" }, { id: "asc" }],
        select: { requiredPostId: true, minVersion: true, name: true, url: true, requiredPost: { select: { title: true } } },
      },
    },
  });
  if (!post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  return post.requirements.map((row) => ({
    post_id: row.requiredPostId,
    title: row.requiredPost?.title ?? null,
    min_version: row.minVersion,
    name: row.name,
    url: row.url,
  }));
}

/** The stored requirements of these posts for the admins' editor, by post id: one query. */
export async function adminRequirementsOf(postIds: readonly string[]): Promise<Record<string, AdminRequirement[]>> {
  if (postIds.length === 0) return {};
  const rows = await db.postRequirement.findMany({
    where: { postId: { in: [...postIds] } },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    select: { postId: true, requiredPostId: true, minVersion: true, name: true, url: true, requiredPost: { select: { title: true } } },
  });
  const result: Record<string, AdminRequirement[]> = {};
  for (const row of rows) {
    (result[row.postId] ??= []).push({
      post_id: row.requiredPostId,
      title: row.requiredPost?.title ?? null,
      min_version: row.minVersion,
      name: row.name,
      url: row.url,
    });
  }
  return result;
}

/** Replaces a post's requirements with these, in order: all or nothing. */
export async function setPostRequirements(actorId: string, postId: string, input: RequirementsInput): Promise<AdminRequirement[]> {
  await db.$transaction(async (tx) => {
    const before = await tx.post.findUnique({
      where: { id: postId },
      select: { requirements: { select: { requiredPostId: true, minVersion: true, name: true, url: true } } },
    });
    if (!before) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
    const ids = input.requirements.flatMap((item) => (item.kind === "post" ? [item.postId] : []));
    if (ids.includes(postId)) throw new DomainError(400, CATALOG_MESSAGES.requiresItself, { fields: { requirements: CATALOG_MESSAGES.requiresItself } });
    const known = ids.length > 0 ? await tx.post.findMany({ where: { id: { in: ids } }, select: { id: true } }) : [];
    if (known.length !== new Set(ids).size) {
      throw new DomainError(400, CATALOG_MESSAGES.requiredPostUnknown, { fields: { requirements: CATALOG_MESSAGES.requiredPostUnknown } });
    }
    await tx.postRequirement.deleteMany({ where: { postId } });
    if (input.requirements.length > 0) {
      await tx.postRequirement.createMany({
        data: input.requirements.map((item, position) =>
          item.kind === "post"
            ? { postId, position, requiredPostId: item.postId, minVersion: item.minVersion }
            : { postId, position, name: item.name, url: item.url },
        ),
      });
    }
    await recordAudit(
      {
        actorId,
        action: "post.requirements",
        targetType: "post",
        targetId: postId,
        before: { requirements: before.requirements },
        after: { requirements: input.requirements },
      },
      tx,
    );
  });
  return getPostRequirements(postId);
}

/**
 * The requirements of the shown posts in this viewer's words, by post id (posts without any are
 * left out). `listed`: the posts of `listing` this page shows its viewer (the required posts are
 * looked up there, so one the viewer may not see is never named); `shown`: those among them whose
 * requirements are wanted. Each required post's words are its card's, from the listing's
 * explanation, whatever the number of cards.
 */
export async function requirementsForViewer(
  listing: LibraryListing,
  shown: readonly LibraryPost[],
  listed: readonly LibraryPost[],
  tiers: readonly { tierId: string; title: string; subscribeLabel?: string | null }[],
): Promise<Record<string, RequirementView[]>> {
  const stored = await storedRequirementsAt(
    listing.stamp,
    shown.map((post) => post.postId),
  );
  if (stored.size === 0) return {};
  const byId = new Map(listed.map((post) => [post.postId, post]));
  const wanted = new Map<string, LibraryPost>();
  for (const items of stored.values()) {
    for (const item of items) {
      const post = item.kind === "post" ? byId.get(item.requiredPostId) : undefined;
      if (post) wanted.set(post.postId, post);
    }
  }
  const access = describeLibraryCards(listing, [...wanted.values()], tiers);
  const facts = new Map<string, RequiredPostFacts>();
  for (const post of wanted.values()) {
    const explained = access[post.postId];
    if (explained) facts.set(post.postId, { title: post.title, free: !post.paid_content, access: explained });
  }
  const result: Record<string, RequirementView[]> = {};
  for (const [postId, items] of stored) result[postId] = describeRequirements(items, facts, tiers);
  return result;
}

/**
 * What a download goes ahead without (docs/api.md#download): the ids of the required posts the
 * downloader may not download, named only when they may see them; hidden ones count as "hidden".
 * `context`: the viewer context the download was authorized with (its library stamp included).
 */
export async function missingRequirementsForDownload(
  user: Pick<User, "id" | "isAdmin" | "restricted" | "currentTierId"> | null,
  context: Pick<ViewerContext, "viewer" | "libraryStamp">,
  postId: string,
): Promise<string[]> {
  const now = new Date();
  // The post's requirements as the library held them at the request's own stamp: from the
  // listing's snapshot, so a post without requirements costs no query.
  const stored = (await storedRequirementsAt(context.libraryStamp, [postId], now)).get(postId) ?? [];
  const ids = stored.flatMap((item) => (item.kind === "post" ? [item.requiredPostId] : []));
  if (ids.length === 0) return [];
  const rows = await db.post.findMany({ where: { id: { in: ids } }, include: withAccess });
  const missing: string[] = [];
  for (const id of ids) {
    const row = rows.find((post) => post.id === id);
    if (!row || !isPostVisible(row, user, now)) missing.push("hidden");
    else if (!canDownload(toEntitlementPost(row), context.viewer, now)) missing.push(id);
  }
  return [...new Set(missing)];
}

/** A member of one tier (or, for `null`, a signed-in account without one) as the rule sees them. */
function audienceMember(tierId: string | null): EntitlementViewer {
  return {
    isAdmin: false,
    restricted: false,
    currentTierId: tierId,
    unlockedPostIds: new Set(),
    purchasedKofiCodes: new Set(),
    pledges: [],
    voterPostIds: new Set(),
  };
}

/**
 * The release editor's warnings (docs/product.md#requirements): each step of the post that opens
 * it to an audience (a tier, or everyone) who, at that step's time, cannot get a post it requires.
 * Asked with the entitlement rule on the required post at the step's instant. Warnings, not errors.
 */
export async function releaseRequirementWarnings(postId: string): Promise<string[]> {
  const post = await db.post.findUnique({
    where: { id: postId },
    select: {
      releaseSteps: { select: { audienceTierId: true, opensAt: true }, orderBy: [{ opensAt: "asc" }, { position: "asc" }] },
      requirements: { where: { requiredPostId: { not: null } }, orderBy: { position: "asc" }, select: { requiredPost: { include: withAccess } } },
    },
  });
  if (!post || post.releaseSteps.length === 0 || post.requirements.length === 0) return [];
  const tiers = await db.tier.findMany({ select: { id: true, title: true } });
  const titles = new Map(tiers.map((tier) => [tier.id, tier.title]));
  const warnings: string[] = [];
  for (const step of post.releaseSteps) {
    const audience = step.audienceTierId === null ? "everyone" : tierName(step.audienceTierId, titles);
    for (const { requiredPost } of post.requirements) {
      if (!requiredPost) continue;
      if (canDownload(toEntitlementPost(requiredPost), audienceMember(step.audienceTierId), step.opensAt)) continue;
      warnings.push(
        `The step for ${audience} on ${formatDay(step.opensAt)} opens this post before ${audience} can get ${requiredPost.title}, which it requires.`,
      );
    }
  }
  return warnings;
}
