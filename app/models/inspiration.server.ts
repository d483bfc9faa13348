// The inspiration vote: its single config row, panels, likes (one per user, panel and kind) and
// the admin changes (always audited).
import { isRestricted, RESTRICTED_MESSAGE } from "~/models/restriction.server";
import { db, Prisma, queryRows } from "~/db.server";
import type { IdeaStatus, InspirationConfig, InspirationPanel, LikeKind, User } from "~/generated/prisma/client";
import { storage } from "~/integrations/storage.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { prepareImage } from "~/models/panel.server";
import { isPostVisible } from "~/models/post-visibility.server";
import { enforceRateLimit } from "~/models/rate-limit.server";
import { isVotingOpen, shuffleForVisitor } from "~/utils/countdown";
import {
  DEFAULT_INSPIRATION_TITLE,
  type IdeaStatusName,
  type InspirationConfigInput,
  type InspirationModeName,
  type InspirationPanelInput,
} from "~/utils/inspiration-schemas";

/** Setting an idea shipped needs its post (inspiration-shipped.server.ts links it). */
export const INSPIRATION_NOT_SHIPPED_MESSAGE = "Link the idea to its post first.";

export const VOTING_CLOSED_MESSAGE = "Voting is closed. You cannot like or unlike panels.";
export const LOGIN_TO_LIKE_MESSAGE = "You must be logged in to like an inspiration.";
export const TIER_TOO_LOW_MESSAGE = "You must have at least a tier 2 subscription.";
export const PATREON_LINK_REQUIRED_MESSAGE = "Link your Patreon membership to give a Patreon like.";
export const INSPIRATION_PANEL_NOT_FOUND_MESSAGE = "Inspiration panel not found.";
export const IDEA_SHIPPED_MESSAGE = "This idea has shipped, so it can no longer be liked.";
export const IDEA_REOPEN_LINKED_MESSAGE = "Unlink the idea from its post to reopen it.";

const CONFIG_ID = 1;
const LIKES_PER_MINUTE = 120;

/** The config row, created with its defaults the first time it is needed. */
export async function getInspirationConfig(): Promise<InspirationConfig> {
  // Plain SQL: read on every page view and every like.
  const [existing] = await queryRows<InspirationConfig>(
    `SELECT id, title, mode, voting_open AS "votingOpen", voting_end_time AS "votingEndTime", updated_at AS "updatedAt" FROM inspiration_config WHERE id = $1`,
    [CONFIG_ID],
  );
  if (existing) return existing;
  try {
    return await db.inspirationConfig.create({ data: { id: CONFIG_ID, title: DEFAULT_INSPIRATION_TITLE, mode: "NORMAL" } });
  } catch (error) {
    // Another request created it at the same moment.
    if (isUniqueViolation(error)) return db.inspirationConfig.findUniqueOrThrow({ where: { id: CONFIG_ID } });
    throw error;
  }
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

export function modeName(mode: InspirationConfig["mode"]): InspirationModeName {
  return mode === "RANDOMIZED" ? "randomized" : "normal";
}

/** The spec's config shape; votingOpen is the effective state (the flag and the end time). */
export function toApiConfig(config: InspirationConfig, now = new Date()) {
  return {
    mode: modeName(config.mode),
    votingOpen: isVotingOpen(config, now),
    votingEndTime: config.votingEndTime?.toISOString() ?? null,
    title: config.title,
  };
}

/** Counts are hidden while a randomized vote is running. */
export function likesHidden(config: InspirationConfig, now = new Date()): boolean {
  return config.mode === "RANDOMIZED" && isVotingOpen(config, now);
}

export type VoterRights = { canLike: boolean; canPatreonLike: boolean; reason: string | null };

/** What a visitor may do, decided from data: a tier with canVote, and a linked membership for the Patreon like. */
export async function voterRights(user: Pick<User, "currentTierId" | "patreonId"> | null): Promise<VoterRights> {
  const [tier] = user?.currentTierId
    ? await queryRows<{ canVote: boolean }>(`SELECT can_vote AS "canVote" FROM tiers WHERE id = $1`, [user.currentTierId])
    : [];
  return rightsOf(user, tier?.canVote ?? false);
}

/** The rights of `voterRights`, once whether the visitor's tier may vote is known. */
export function rightsOf(user: Pick<User, "patreonId"> | null, tierCanVote: boolean): VoterRights {
  if (!user) return { canLike: false, canPatreonLike: false, reason: LOGIN_TO_LIKE_MESSAGE };
  if (!tierCanVote) return { canLike: false, canPatreonLike: false, reason: TIER_TOO_LOW_MESSAGE };
  return { canLike: true, canPatreonLike: user.patreonId !== null, reason: null };
}

export type InspirationPanelView = {
  id: string;
  imageUrl: string;
  title: string | null;
  /** null while counts are hidden (randomized mode, voting open). */
  likes: number | null;
  userHasLiked: boolean;
  userHasPatreonLiked: boolean;
  /** Open and planned ideas are in the live round; a shipped one is linked to its post and cannot be liked. */
  status: IdeaStatusName;
};

/** Is the idea in the live round (open or planned)? A shipped one has left it. */
export function inLiveRound(panel: Pick<InspirationPanelView, "status">): boolean {
  return panel.status !== "shipped";
}

export function statusName(status: IdeaStatus): IdeaStatusName {
  return status.toLowerCase() as IdeaStatusName;
}

function storedStatus(status: IdeaStatusName): IdeaStatus {
  return status.toUpperCase() as IdeaStatus;
}

/**
 * Whose order a randomized vote shows: each signed-in visitor their own, stable shuffle (the
 * position bias the randomized mode exists to spread is a voter's); guests, who cannot vote,
 * all share one, so their page carries no cookie and a CDN may keep it.
 */
function orderSeed(viewer: Pick<User, "id"> | null): string {
  return viewer ? viewer.id : "guests";
}

/** A panel as `inspiration_panel_views` gives it: the likes always counted, the status as stored. */
export type PanelRow = Omit<InspirationPanelView, "likes" | "status"> & { likes: number; status: IdeaStatus };

/**
 * What a visitor sees of the panels at `now`: all but `hiddenIdeas` (ideas shipped as a post the
 * visitor may not see, inspiration-shipped.server.ts), and in a running randomized vote no counts
 * and their own order.
 */
export function panelsAsSeen(
  config: InspirationConfig,
  rows: PanelRow[],
  viewer: Pick<User, "id"> | null,
  now: Date,
  hiddenIdeas: ReadonlySet<string>,
): InspirationPanelView[] {
  const hidden = likesHidden(config, now);
  const views: InspirationPanelView[] = rows
    .filter((row) => !hiddenIdeas.has(row.id))
    .map((row) => ({ ...row, likes: hidden ? null : row.likes, status: statusName(row.status) }));
  return hidden ? shuffleForVisitor(views, orderSeed(viewer)) : views;
}

export async function getInspirationPanel(id: string): Promise<InspirationPanel | null> {
  return db.inspirationPanel.findUnique({ where: { id } });
}

/**
 * Likes or unlikes a panel. `wanted` sets the state (repeating it changes nothing); without it
 * the like toggles. The database key (user, panel, kind) makes double clicks and concurrent
 * requests count once.
 */
export async function setLike(
  user: Pick<User, "id" | "isAdmin" | "currentTierId" | "patreonId" | "restricted"> | null,
  panelId: string,
  kind: LikeKind,
  wanted?: boolean,
  now = new Date(),
): Promise<InspirationPanelView> {
  const config = await getInspirationConfig();
  if (!isVotingOpen(config, now)) throw new DomainError(403, VOTING_CLOSED_MESSAGE);
  if (!user) throw new DomainError(401, LOGIN_TO_LIKE_MESSAGE);
  if (isRestricted(user)) throw new DomainError(403, RESTRICTED_MESSAGE);
  // Likes are idempotent, but each costs queries: a scripted flood is cut off per account.
  await enforceRateLimit(`like:user:${user.id}`, LIKES_PER_MINUTE, 60_000);
  const rights = await voterRights(user);
  if (!rights.canLike) throw new DomainError(403, rights.reason ?? TIER_TOO_LOW_MESSAGE);
  if (kind === "PATREON" && !rights.canPatreonLike) throw new DomainError(403, PATREON_LINK_REQUIRED_MESSAGE);
  const panel = await getInspirationPanel(panelId);
  if (!panel) throw new DomainError(404, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
  if (panel.status === "SHIPPED") {
    // An idea shipped as a post the visitor may not see is not there for them (the post-visibility rule).
    const post = panel.postId ? await db.post.findUnique({ where: { id: panel.postId }, select: { enabled: true, publishAt: true } }) : null;
    if (post && !isPostVisible(post, user, now)) throw new DomainError(404, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
    // A shipped idea has left the live round: its likes are what it shipped with.
    throw new DomainError(409, IDEA_SHIPPED_MESSAGE);
  }

  const key = { userId: user.id, panelId, kind };
  let like = wanted;
  if (like === undefined) {
    like = (await db.inspirationLike.findUnique({ where: { userId_panelId_kind: key } })) === null;
  }
  if (like) {
    // ON CONFLICT DO NOTHING: a second identical like is a no-op, never a second row or an error.
    await db.inspirationLike.createMany({ data: [key], skipDuplicates: true });
  } else {
    await db.inspirationLike.deleteMany({ where: key });
  }
  return panelView(panel, user.id, likesHidden(config, now));
}

async function panelView(panel: InspirationPanel, userId: string, hidden: boolean): Promise<InspirationPanelView> {
  const [likes, mine] = await Promise.all([
    db.inspirationLike.count({ where: { panelId: panel.id } }),
    db.inspirationLike.findMany({ where: { panelId: panel.id, userId }, select: { kind: true } }),
  ]);
  return {
    id: panel.id,
    imageUrl: panel.imageUrl,
    title: panel.title,
    likes: hidden ? null : likes,
    userHasLiked: mine.some((like) => like.kind === "LIKE"),
    userHasPatreonLiked: mine.some((like) => like.kind === "PATREON"),
    status: statusName(panel.status),
  };
}

// ---------------------------------------------------------------- admin

function configSnapshot(config: InspirationConfig) {
  return { title: config.title, mode: config.mode, votingOpen: config.votingOpen, votingEndTime: config.votingEndTime };
}

/** Changes the given config fields only. */
export async function updateInspirationConfig(actorId: string, input: InspirationConfigInput): Promise<InspirationConfig> {
  await getInspirationConfig();
  return db.$transaction(async (tx) => {
    const before = await tx.inspirationConfig.findUniqueOrThrow({ where: { id: CONFIG_ID } });
    const config = await tx.inspirationConfig.update({
      where: { id: CONFIG_ID },
      data: {
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.mode !== undefined ? { mode: input.mode === "randomized" ? "RANDOMIZED" : "NORMAL" } : {}),
        ...(input.votingOpen !== undefined ? { votingOpen: input.votingOpen } : {}),
        ...(input.votingEndTime !== undefined ? { votingEndTime: input.votingEndTime } : {}),
      },
    });
    await recordAudit(
      {
        actorId,
        action: "inspiration.config",
        targetType: "inspiration_config",
        targetId: String(CONFIG_ID),
        before: configSnapshot(before),
        after: configSnapshot(config),
      },
      tx,
    );
    return config;
  });
}

export async function setInspirationTitle(actorId: string, title: string): Promise<InspirationConfig> {
  return updateInspirationConfig(actorId, { title });
}

/** Removes every like of both kinds; answers how many were removed. */
export async function resetLikes(actorId: string): Promise<number> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.inspirationLike.deleteMany({});
    await recordAudit({ actorId, action: "inspiration.reset_likes", targetType: "inspiration_like", before: { count } }, tx);
    return count;
  });
}

/**
 * An idea's uploaded image, checked and re-encoded as the home page's panel images are, kept
 * under a name made from its content (so the same image is kept once, and its address may be
 * cached forever); the address `/media/` serves it at, for the idea's image URL.
 */
export async function storeInspirationImage(image: Buffer): Promise<string> {
  const prepared = await prepareImage(image);
  await (await storage()).put(`images/inspiration/${prepared.version}.jpg`, prepared.jpeg, "image/jpeg");
  return `/media/inspiration/${prepared.version}.jpg`;
}

export async function createInspirationPanel(actorId: string, input: InspirationPanelInput): Promise<InspirationPanel> {
  return db.$transaction(async (tx) => {
    // A new idea is open or planned: it ships when an admin links it to its post.
    if (input.status === "shipped") throw new DomainError(409, INSPIRATION_NOT_SHIPPED_MESSAGE);
    const status = input.status ? storedStatus(input.status) : "OPEN";
    const panel = await tx.inspirationPanel.create({ data: { imageUrl: input.imageUrl, title: input.title ?? null, status } });
    await recordAudit({ actorId, action: "inspiration.panel.create", targetType: "inspiration_panel", targetId: panel.id, after: input }, tx);
    return panel;
  });
}

export async function updateInspirationPanel(actorId: string, id: string, input: InspirationPanelInput): Promise<InspirationPanel> {
  return db.$transaction(async (tx) => {
    const before = await tx.inspirationPanel.findUnique({ where: { id } });
    if (!before) throw new DomainError(404, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
    // Shipped exactly while linked to its post: linking ships it, unlinking reopens it.
    if (input.status === "shipped" && before.postId === null) throw new DomainError(409, INSPIRATION_NOT_SHIPPED_MESSAGE);
    if (input.status !== undefined && input.status !== "shipped" && before.postId !== null) throw new DomainError(409, IDEA_REOPEN_LINKED_MESSAGE);
    const panel = await tx.inspirationPanel.update({
      where: { id },
      data: {
        imageUrl: input.imageUrl,
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.status !== undefined ? { status: storedStatus(input.status) } : {}),
      },
    });
    await recordAudit(
      {
        actorId,
        action: "inspiration.panel.update",
        targetType: "inspiration_panel",
        targetId: id,
        before: { imageUrl: before.imageUrl, title: before.title, status: before.status },
        after: { imageUrl: panel.imageUrl, title: panel.title, status: panel.status },
      },
      tx,
    );
    return panel;
  });
}

/** Deletes a panel with its likes. */
export async function deleteInspirationPanel(actorId: string, id: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const before = await tx.inspirationPanel.findUnique({ where: { id } });
    if (!before) throw new DomainError(404, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
    await tx.inspirationPanel.delete({ where: { id } });
    await recordAudit(
      {
        actorId,
        action: "inspiration.panel.delete",
        targetType: "inspiration_panel",
        targetId: id,
        before: { imageUrl: before.imageUrl, title: before.title },
      },
      tx,
    );
  });
}
