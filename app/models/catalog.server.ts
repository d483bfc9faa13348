// Tags and prices (docs/product.md#tags, #prices), admins only (routes check who may): define and
// delete tags, put them on posts, set a tier's price. Each change is audited in its transaction;
// refusals are DomainErrors in docs/messages.md's words.
import { db } from "~/db.server";
import { Prisma } from "~/generated/prisma/client";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { CATALOG_MESSAGES, type PostTagsInput, type TagCreateInput, type TierPriceInput } from "~/utils/catalog-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

export type ApiTag = { id: string; name: string; slug: string; posts: number };

/** Every tag by name, with how many posts carry it. */
export async function listTags(): Promise<ApiTag[]> {
  const tags = await db.tag.findMany({
    orderBy: [{ name: "asc" }, { slug: "asc" }],
    select: { id: true, name: true, slug: true, _count: { select: { posts: true } } },
  });
  return tags.map((tag) => ({ id: tag.id, name: tag.name, slug: tag.slug, posts: tag._count.posts }));
}

export async function createTag(actorId: string, input: TagCreateInput): Promise<ApiTag> {
  try {
    return await db.$transaction(async (tx) => {
      const tag = await tx.tag.create({ data: { name: input.name, slug: input.slug } });
      await recordAudit({ actorId, action: "tag.create", targetType: "tag", targetId: tag.id, after: { name: tag.name, slug: tag.slug } }, tx);
      return { id: tag.id, name: tag.name, slug: tag.slug, posts: 0 };
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new DomainError(409, CATALOG_MESSAGES.tagSlugTaken, { fields: { slug: CATALOG_MESSAGES.tagSlugTaken } });
    }
    throw error;
  }
}

/** Deletes a tag (by id or slug); the posts lose it. */
export async function deleteTag(actorId: string, ref: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const tag = await tx.tag.findFirst({ where: { OR: [{ id: ref }, { slug: ref }] } });
    if (!tag) throw new DomainError(404, CATALOG_MESSAGES.tagNotFound);
    await tx.tag.delete({ where: { id: tag.id } });
    await recordAudit({ actorId, action: "tag.delete", targetType: "tag", targetId: tag.id, before: { name: tag.name, slug: tag.slug } }, tx);
  });
}

/** Replaces a post's tags (by slug); an unknown slug refuses the whole change. */
export async function setPostTags(actorId: string, postId: string, input: PostTagsInput): Promise<string[]> {
  const slugs = [...new Set(input.tags)];
  return db.$transaction(async (tx) => {
    const post = await tx.post.findUnique({ where: { id: postId }, select: { id: true, tags: { select: { tag: { select: { slug: true } } } } } });
    if (!post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
    const tags = slugs.length > 0 ? await tx.tag.findMany({ where: { slug: { in: slugs } }, select: { id: true, slug: true } }) : [];
    const unknown = slugs.find((slug) => !tags.some((tag) => tag.slug === slug));
    if (unknown !== undefined) throw new DomainError(400, `${CATALOG_MESSAGES.unknownTag} (${unknown})`, { fields: { tags: CATALOG_MESSAGES.unknownTag } });
    await tx.postTag.deleteMany({ where: { postId } });
    if (tags.length > 0) await tx.postTag.createMany({ data: tags.map((tag) => ({ postId, tagId: tag.id })) });
    const before = post.tags.map((link) => link.tag.slug).sort();
    const after = tags.map((tag) => tag.slug).sort();
    await recordAudit({ actorId, action: "post.tags", targetType: "post", targetId: postId, before: { tags: before }, after: { tags: after } }, tx);
    return after;
  });
}

/** Sets a tier's price per month (the members sync fills it too; an admin corrects it here). */
export async function setTierPrice(actorId: string, tierId: string, input: TierPriceInput) {
  return db.$transaction(async (tx) => {
    const tier = await tx.tier.findUnique({ where: { id: tierId } });
    if (!tier) throw new DomainError(404, CATALOG_MESSAGES.tierNotFound);
    const updated = await tx.tier.update({ where: { id: tierId }, data: { amountCents: input.amount_cents, currency: input.currency } });
    await recordAudit(
      {
        actorId,
        action: "tier.price",
        targetType: "tier",
        targetId: tierId,
        before: { amount_cents: tier.amountCents, currency: tier.currency },
        after: { amount_cents: updated.amountCents, currency: updated.currency },
      },
      tx,
    );
    return { tierId: updated.id, title: updated.title, amount_cents: updated.amountCents, currency: updated.currency };
  });
}
