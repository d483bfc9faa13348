// Releases (docs/product.md#releases, docs/decisions/016-releases.md): scheduling a post's
// publication and saving its release steps (admins only; routes check who may). Each change is
// audited in its transaction and answers the post in the listing's shape. What a step opens is
// decided by the entitlement rule at each instant (app/utils/entitlement.ts); this module only
// stores the steps with the instant and the tiers they resolve to.
import { db, type Prisma } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { recordAudit } from "~/models/audit.server";
import { withAccess, type PostWithAccess } from "~/models/entitlement.server";
import { DomainError } from "~/models/errors";
import { toLibraryPost, type LibraryPost } from "~/models/library-listing.server";
import { isPublishedAt } from "~/utils/post-visibility";
import {
  audienceTierIds,
  presetSteps,
  publicationTime,
  RELEASE_MESSAGES,
  releasePlanProblem,
  stepOpensAt,
  type PublishInput,
  type ReleaseStepInput,
  type ReleaseStepsInput,
  RELEASES_AHEAD_DAYS,
  RELEASES_BEHIND_DAYS,
} from "~/utils/release-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

type Actor = Pick<User, "id">;
type Client = Prisma.TransactionClient;

async function requirePost(client: Client, id: string): Promise<PostWithAccess> {
  const post = await client.post.findUnique({ where: { id }, include: withAccess });
  if (!post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  return post;
}

/** The instant steps given in days count from: the scheduled or first publication. */
export function publicationOf(post: { publishAt: Date | null; firstPublishedAt: Date | null; createdAt: Date }): Date {
  return publicationTime(post.publishAt, post.firstPublishedAt, post.createdAt);
}

/**
 * Steps given in days move with the publication: their instants are computed again. A plan the
 * new publication breaks (a step on a date now before it, or steps now out of order) is refused
 * with its message; the caller's transaction then saves nothing. Every change of the publication
 * time (scheduling, publishing now, editing the first published date) comes through here.
 */
export async function refreshStepTimes(client: Client, postId: string): Promise<void> {
  const post = await client.post.findUniqueOrThrow({ where: { id: postId }, select: { publishAt: true, firstPublishedAt: true, createdAt: true } });
  const publishedAt = publicationOf(post);
  const steps = await client.releaseStep.findMany({
    where: { postId },
    orderBy: { position: "asc" },
    select: { id: true, afterDays: true, opensOn: true, opensAt: true },
  });
  const problem = releasePlanProblem(
    steps.map((step) => ({ after_days: step.afterDays, opens_on: step.opensOn })),
    publishedAt,
  );
  if (problem) throw new DomainError(400, problem);
  for (const step of steps) {
    if (step.afterDays === null) continue;
    const opensAt = stepOpensAt({ after_days: step.afterDays }, publishedAt);
    if (opensAt.getTime() !== step.opensAt.getTime()) await client.releaseStep.update({ where: { id: step.id }, data: { opensAt } });
  }
}

/**
 * Schedules the post's publication (hidden from everyone but admins until then) or publishes it
 * now. Its first published date becomes that moment: the day it actually became visible.
 */
export async function publishPost(actor: Actor, postId: string, input: PublishInput): Promise<LibraryPost> {
  const now = new Date();
  const after = await db.$transaction(async (tx) => {
    const before = await requirePost(tx, postId);
    const at = "publish_now" in input ? now : input.publish_at;
    if ("publish_now" in input && isPublishedAt(before, now)) throw new DomainError(409, RELEASE_MESSAGES.alreadyPublished);
    await tx.post.update({ where: { id: postId }, data: { publishAt: at, firstPublishedAt: at, publishedAt: at } });
    // Steps given in days move with the publication; a step on a date must not open before it.
    await refreshStepTimes(tx, postId);
    const updated = await requirePost(tx, postId);
    await recordAudit(
      {
        actorId: actor.id,
        action: "publish_now" in input ? "post.publish" : "post.schedule",
        targetType: "post",
        targetId: postId,
        before: { publishAt: before.publishAt?.toISOString() ?? null },
        after: { publishAt: at.toISOString() },
      },
      tx,
    );
    return updated;
  });
  return toLibraryPost(after, true, true);
}

/**
 * Replaces the post's release steps with the given ones in their order, or a preset's (an empty
 * list clears them). A plan that goes back in time, or opens a step before the post's publication,
 * is refused (400, `releasePlanProblem`) before anything is written.
 */
export async function setReleaseSteps(actor: Actor, postId: string, input: ReleaseStepsInput): Promise<LibraryPost> {
  const after = await db.$transaction(async (tx) => {
    const before = await requirePost(tx, postId);
    const tiers = await tx.tier.findMany({ select: { id: true, title: true, isPaid: true, amountCents: true } });
    for (const step of "steps" in input ? input.steps : []) {
      if (step.audience !== "everyone" && !tiers.some((tier) => tier.id === step.audience)) throw new DomainError(400, RELEASE_MESSAGES.unknownTier);
    }
    const steps: readonly ReleaseStepInput[] =
      "preset" in input
        ? presetSteps(
            input.preset,
            tiers.map((tier) => ({ tierId: tier.id, title: tier.title, isPaid: tier.isPaid, amount_cents: tier.amountCents })),
          )
        : input.steps;
    const publishedAt = publicationOf(before);
    const problem = releasePlanProblem(steps, publishedAt);
    if (problem) throw new DomainError(400, problem);
    const rows = steps.map((step, position) => ({
      postId,
      position,
      audienceTierId: step.audience === "everyone" ? null : step.audience,
      tierIds: step.audience === "everyone" ? [] : audienceTierIds(step.audience, tiers),
      afterDays: step.opens_on ? null : (step.after_days ?? 0),
      opensOn: step.opens_on ?? null,
      opensAt: stepOpensAt(step, publishedAt),
      announceUrl: step.announce_url ?? null,
    }));
    await tx.releaseStep.deleteMany({ where: { postId } });
    if (rows.length > 0) await tx.releaseStep.createMany({ data: rows });
    // The steps are part of the post: its update time (versioning its image address) moves with them.
    await tx.post.update({ where: { id: postId }, data: { updatedAt: new Date() } });
    const updated = await requirePost(tx, postId);
    const shape = (post: PostWithAccess) =>
      post.releaseSteps.map((step) => ({ audience: step.audienceTierId ?? "everyone", opensAt: step.opensAt.toISOString() }));
    await recordAudit(
      { actorId: actor.id, action: "post.release", targetType: "post", targetId: postId, before: { steps: shape(before) }, after: { steps: shape(updated) } },
      tx,
    );
    return updated;
  });
  return toLibraryPost(after, true, true);
}

/** One release instant on the admins' timeline: a step opening, or a scheduled publication. */
export type ReleaseEvent = {
  postId: string;
  postTitle: string;
  /** "publication", or the step's audience: a tier id, or "everyone". */
  kind: "publication" | "step";
  audience: string | null;
  at: string;
  /**
   * Accounts the instant newly opens the post to: for a step, those its audience reaches that
   * had no access before it (not on the post's own tiers or an earlier step's, no unlock of the
   * post, no earlier step to everyone; admins and restricted accounts left out); for a
   * publication, those on the post's own tiers (every account for a free post). Counted from the
   * accounts' current tiers, the entitlement rule's facts for tiers.
   */
  reached: number;
  /** Release notices sent (the mail outbox's sent "release" mails) naming the post from this instant to the post's next one. */
  mailed: number;
};

type ReleaseRow = {
  post_id: string;
  post_title: string;
  kind: "publication" | "step";
  audience: string | null;
  at: Date;
  reached: bigint;
  mailed: bigint;
};

/**
 * The admins' Releases view: what opens in the next 60 days and what opened in the last 30, each
 * instant with the accounts it reached and the release notices mailed for it. One query: the
 * steps and publications of the window, each with its counts.
 */
export async function listReleases(now: Date = new Date()): Promise<{ upcoming: ReleaseEvent[]; recent: ReleaseEvent[] }> {
  const from = new Date(now.getTime() - RELEASES_BEHIND_DAYS * 86_400_000);
  const to = new Date(now.getTime() + RELEASES_AHEAD_DAYS * 86_400_000);
  const rows = await db.$queryRaw<ReleaseRow[]>`
    WITH instants AS (
      SELECT rs.post_id, 'step' AS kind, rs.audience_tier_id, rs.tier_ids, rs.opens_at AS at, rs.position
      FROM release_steps rs
      WHERE rs.opens_at BETWEEN ${from} AND ${to}
      UNION ALL
      SELECT p.id, 'publication', NULL, NULL, p.publish_at, -1
      FROM posts p
      WHERE p.publish_at BETWEEN ${from} AND ${to}
    ),
    described AS (
      SELECT i.*, p.title AS post_title, p.enabled, p.paid_content, p.is_kofi_only,
        -- The post's next instant (a later step), where this one's mails end.
        (SELECT min(n.opens_at) FROM release_steps n WHERE n.post_id = i.post_id AND n.opens_at > i.at) AS next_at,
        -- Tiers that had the post before this instant: its own, and earlier steps'.
        ARRAY(
          SELECT pt.tier_id FROM post_tiers pt WHERE pt.post_id = i.post_id AND pt.kind = 'CURRENT' AND NOT p.is_kofi_only
          UNION
          SELECT unnest(e.tier_ids) FROM release_steps e WHERE e.post_id = i.post_id AND (e.opens_at, e.position) < (i.at, i.position)
        ) AS covered,
        EXISTS (
          SELECT 1 FROM release_steps e
          WHERE e.post_id = i.post_id AND e.audience_tier_id IS NULL AND (e.opens_at, e.position) < (i.at, i.position)
        ) AS free_before
      FROM instants i JOIN posts p ON p.id = i.post_id
    )
    SELECT d.post_id, d.post_title, d.kind, CASE WHEN d.kind = 'step' THEN COALESCE(d.audience_tier_id, 'everyone') END AS audience, d.at,
      (
        SELECT count(*) FROM users u
        WHERE d.enabled AND NOT u.restricted AND NOT u.is_admin
          AND NOT EXISTS (SELECT 1 FROM unlocked_content uc WHERE uc.user_id = u.id AND uc.post_id = d.post_id)
          AND CASE
            WHEN d.kind = 'publication' THEN NOT d.paid_content OR u.current_tier_id = ANY(d.covered)
            WHEN NOT d.paid_content OR d.free_before THEN false
            WHEN d.audience_tier_id IS NULL THEN u.current_tier_id IS NULL OR NOT (u.current_tier_id = ANY(d.covered))
            ELSE NOT d.is_kofi_only AND u.current_tier_id = ANY(d.tier_ids) AND NOT (u.current_tier_id = ANY(d.covered))
          END
      ) AS reached,
      (
        SELECT count(*) FROM update_mail_ledger l
        WHERE l.kind = 'NEW_POST' AND l.subject_id = d.post_id AND l.mailed_at >= d.at AND (d.next_at IS NULL OR l.mailed_at < d.next_at)
          AND EXISTS (
            SELECT 1 FROM mail_outbox o
            WHERE o.kind = 'release' AND o.status = 'SENT' AND o.user_id = l.user_id AND o.created_at = l.mailed_at
          )
      ) AS mailed
    FROM described d
    ORDER BY d.at, d.position`;
  const events: ReleaseEvent[] = rows.map((row) => ({
    postId: row.post_id,
    postTitle: row.post_title,
    kind: row.kind,
    audience: row.audience,
    at: row.at.toISOString(),
    reached: Number(row.reached),
    mailed: Number(row.mailed),
  }));
  const past = (event: ReleaseEvent) => new Date(event.at).getTime() <= now.getTime();
  return { upcoming: events.filter((event) => !past(event)), recent: events.filter(past).reverse() };
}
