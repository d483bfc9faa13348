// Game patches and compatibility (docs/product.md#game-patches): the patches an admin names, the
// current one (patch day), each post version's mark on each patch, players' confirmations and
// accepting them as the mark. The library reads the marks on the current patch once per library
// version (library-listing.server.ts: the tables bump it, migration 0056); the feed and the digests
// read the "works" marks as news (update-notifications.server.ts).
import { db, type Prisma } from "~/db.server";
import type { PatchMark, PlayerVerdict, User } from "~/generated/prisma/client";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { isPostVisible } from "~/models/post-visibility.server";
import { RESTRICTED_MESSAGE } from "~/models/restriction.server";
import {
  PATCH_MESSAGES,
  type PatchAcceptInput,
  type PatchCreateInput,
  type PatchMarkInput,
  type PatchMarkName,
  type PatchVoteInput,
  type PlayerVerdictName,
} from "~/utils/game-patch-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

type Actor = Pick<User, "id">;
type Client = Prisma.TransactionClient | typeof db;

/** A patch as the admin page and GET /api/admin/patches show it. */
export type GamePatchView = { id: string; name: string; declared_at: string; current_since: string | null; current: boolean };

const markName = (mark: PatchMark): PatchMarkName => mark.toLowerCase() as PatchMarkName;
const markValue = (mark: PatchMarkName): PatchMark => mark.toUpperCase() as PatchMark;
const verdictValue = (verdict: PlayerVerdictName): PlayerVerdict => verdict.toUpperCase() as PlayerVerdict;

/** The current patch: the one declared current last, or null before the first patch day. */
export async function currentGamePatch(client: Client = db): Promise<{ id: string; name: string; currentSince: Date } | null> {
  const patch = await client.gamePatch.findFirst({
    where: { currentSince: { not: null } },
    orderBy: [{ currentSince: "desc" }, { id: "desc" }],
    select: { id: true, name: true, currentSince: true },
  });
  return patch ? { id: patch.id, name: patch.name, currentSince: patch.currentSince! } : null;
}

/** Every named patch in the order it was named, the current one flagged. */
export async function listGamePatches(): Promise<GamePatchView[]> {
  const [patches, current] = await Promise.all([db.gamePatch.findMany({ orderBy: [{ declaredAt: "asc" }, { id: "asc" }] }), currentGamePatch()]);
  return patches.map((patch) => ({
    id: patch.id,
    name: patch.name,
    declared_at: patch.declaredAt.toISOString(),
    current_since: patch.currentSince?.toISOString() ?? null,
    current: patch.id === current?.id,
  }));
}

/** Names a new patch; `current` declares it the current patch at once (patch day). Audited. */
export async function addGamePatch(actor: Actor, input: PatchCreateInput, now = new Date()): Promise<GamePatchView> {
  const taken = await db.gamePatch.findFirst({ where: { name: { equals: input.name, mode: "insensitive" } }, select: { id: true } });
  if (taken) throw new DomainError(409, PATCH_MESSAGES.nameTaken);
  const patch = await db.$transaction(async (tx) => {
    const created = await tx.gamePatch.create({ data: { name: input.name, declaredAt: now, currentSince: input.current ? now : null } });
    await recordAudit(
      { actorId: actor.id, action: "game_patch.add", targetType: "game_patch", targetId: created.id, after: { name: created.name, current: input.current } },
      tx,
    );
    return created;
  });
  return (await listGamePatches()).find((item) => item.id === patch.id)!;
}

/** Patch day: declares a named patch the current one. Audited with the patch it replaces. */
export async function declareCurrentPatch(actor: Actor, patchId: string, now = new Date()): Promise<GamePatchView> {
  await db.$transaction(async (tx) => {
    const patch = await tx.gamePatch.findUnique({ where: { id: patchId } });
    if (!patch) throw new DomainError(404, PATCH_MESSAGES.patchNotFound);
    const before = await currentGamePatch(tx);
    await tx.gamePatch.update({ where: { id: patchId }, data: { currentSince: now } });
    await recordAudit(
      {
        actorId: actor.id,
        action: "game_patch.current",
        targetType: "game_patch",
        targetId: patchId,
        before: { current: before?.name ?? null },
        after: { current: patch.name },
      },
      tx,
    );
  });
  return (await listGamePatches()).find((item) => item.id === patchId)!;
}

/** The patch an input names, or the current one when it names none. */
async function patchOf(patchId: string | undefined, client: Client): Promise<{ id: string; name: string }> {
  if (patchId) {
    const patch = await client.gamePatch.findUnique({ where: { id: patchId }, select: { id: true, name: true } });
    if (!patch) throw new DomainError(404, PATCH_MESSAGES.patchNotFound);
    return patch;
  }
  const current = await currentGamePatch(client);
  if (!current) throw new DomainError(409, PATCH_MESSAGES.noCurrentPatch);
  return current;
}

/** A version of the post (hidden ones too: an admin marks what was shipped). */
async function versionOf(postId: string, versionId: string, client: Client) {
  const version = await client.postVersion.findFirst({ where: { id: versionId, postId }, select: { id: true, label: true } });
  if (!version) throw new DomainError(404, PATCH_MESSAGES.versionNotFound);
  return version;
}

export type MarkAnswer = { postId: string; versionId: string; label: string; patchId: string; patch: string; mark: PatchMarkName };

/** Writes a mark in `tx`; its time moves only when the mark changes (the feed dates news by it). Audited. */
async function writeMark(
  tx: Prisma.TransactionClient,
  actor: Actor,
  postId: string,
  version: { id: string; label: string },
  patch: { id: string; name: string },
  mark: PatchMarkName,
  action: string,
  now: Date,
) {
  const key = { versionId_patchId: { versionId: version.id, patchId: patch.id } };
  const before = await tx.versionPatchMark.findUnique({ where: key });
  if (before?.mark !== markValue(mark)) {
    await tx.versionPatchMark.upsert({
      where: key,
      create: { versionId: version.id, patchId: patch.id, mark: markValue(mark), markedAt: now },
      update: { mark: markValue(mark), markedAt: now },
    });
  }
  await recordAudit(
    {
      actorId: actor.id,
      action,
      targetType: "post",
      targetId: postId,
      before: { version: version.label, patch: patch.name, mark: before ? markName(before.mark) : "untested" },
      after: { version: version.label, patch: patch.name, mark },
    },
    tx,
  );
}

/** An admin's mark of a version on a patch (the current one unless named), without an upload. */
export async function setVersionMark(actor: Actor, postId: string, input: PatchMarkInput, now = new Date()): Promise<MarkAnswer> {
  return db.$transaction(async (tx) => {
    const version = await versionOf(postId, input.versionId, tx);
    const patch = await patchOf(input.patchId, tx);
    await writeMark(tx, actor, postId, version, patch, input.mark, "post_version.patch_mark", now);
    return { postId, versionId: version.id, label: version.label, patchId: patch.id, patch: patch.name, mark: input.mark };
  });
}

/** How many players said a version works or is broken on a patch. */
export type VoteCounts = { works: number; broken: number };

async function countVotes(client: Client, versionId: string, patchId: string): Promise<VoteCounts> {
  const rows = await client.patchConfirmation.groupBy({ by: ["verdict"], where: { versionId, patchId }, _count: { _all: true } });
  const count = (verdict: PlayerVerdict) => rows.find((row) => row.verdict === verdict)?._count._all ?? 0;
  return { works: count("WORKS"), broken: count("BROKEN") };
}

/**
 * One click: the players' answer becomes the version's mark (works when more confirmed than
 * reported broken, broken when fewer). Refused with nothing to accept, or with as many each way.
 */
export async function acceptConfirmations(
  actor: Actor,
  postId: string,
  input: PatchAcceptInput,
  now = new Date(),
): Promise<MarkAnswer & { votes: VoteCounts }> {
  return db.$transaction(async (tx) => {
    const version = await versionOf(postId, input.versionId, tx);
    const patch = await patchOf(input.patchId, tx);
    const votes = await countVotes(tx, version.id, patch.id);
    if (votes.works + votes.broken === 0) throw new DomainError(409, PATCH_MESSAGES.nothingToAccept);
    if (votes.works === votes.broken) throw new DomainError(409, PATCH_MESSAGES.splitVotes);
    const mark: PatchMarkName = votes.works > votes.broken ? "works" : "broken";
    await writeMark(tx, actor, postId, version, patch, mark, "post_version.patch_accept", now);
    return { postId, versionId: version.id, label: version.label, patchId: patch.id, patch: patch.name, mark, votes };
  });
}

type Voter = Pick<User, "id" | "isAdmin" | "restricted">;

/**
 * A player's answer: the version works, or is broken, on the patch (the current one unless named).
 * Only an account with a completed download of the post may answer (403 otherwise), and only for
 * a version it downloaded (the newest one unless named); one answer per account, version and
 * patch, which a second call changes. A post the account may not see is not found.
 */
export async function voteOnPatch(
  user: Voter,
  postId: string,
  input: PatchVoteInput,
  now = new Date(),
): Promise<{ versionId: string; label: string; patch: string; verdict: PlayerVerdictName; votes: VoteCounts }> {
  if (user.restricted) throw new DomainError(403, RESTRICTED_MESSAGE);
  const post = await db.post.findUnique({ where: { id: postId }, select: { enabled: true, publishAt: true } });
  if (!post || !isPostVisible(post, user, now)) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  const downloaded = await db.download.findMany({
    where: { userId: user.id, postId, versionId: { not: null } },
    orderBy: { createdAt: "desc" },
    select: { versionId: true, postVersion: { select: { label: true } } },
  });
  if (downloaded.length === 0) throw new DomainError(403, PATCH_MESSAGES.notDownloaded);
  const chosen = input.versionId ? downloaded.find((row) => row.versionId === input.versionId) : downloaded[0];
  if (!chosen?.versionId || !chosen.postVersion) throw new DomainError(403, PATCH_MESSAGES.versionNotDownloaded);
  const versionId = chosen.versionId;
  return db.$transaction(async (tx) => {
    const patch = await patchOf(input.patchId, tx);
    const verdict = verdictValue(input.verdict);
    await tx.patchConfirmation.upsert({
      where: { userId_versionId_patchId: { userId: user.id, versionId, patchId: patch.id } },
      create: { userId: user.id, versionId, patchId: patch.id, verdict, createdAt: now },
      update: { verdict },
    });
    return { versionId, label: chosen.postVersion!.label, patch: patch.name, verdict: input.verdict, votes: await countVotes(tx, versionId, patch.id) };
  });
}

/** One version's standing on the current patch on the post page. */
export type VersionPatchView = { versionId: string; mark: PatchMarkName; votes: VoteCounts; myVote: PlayerVerdictName | null };

/** The post page's compatibility: the current patch, each listed version's mark and votes on it, and which versions the viewer may vote on. */
export type PostPatchView = {
  patch: { id: string; name: string } | null;
  versions: Record<string, VersionPatchView>;
  /** Marks on earlier patches, newest patch first: "Works on 1.112". */
  history: Record<string, { patch: string; mark: PatchMarkName }[]>;
  /** Versions of the post the viewer downloaded (they may answer for these), newest first. */
  downloadedVersionIds: string[];
};

/** The compatibility of a post's versions for its page: three small queries, whatever the post. */
export async function postPatchView(postId: string, versionIds: string[], viewerId: string | null): Promise<PostPatchView> {
  const current = await currentGamePatch();
  const [marks, votes, mine, downloads] = await Promise.all([
    db.versionPatchMark.findMany({
      where: { versionId: { in: versionIds } },
      select: { versionId: true, patchId: true, mark: true, patch: { select: { name: true, declaredAt: true } } },
      orderBy: { patch: { declaredAt: "desc" } },
    }),
    current
      ? db.patchConfirmation.groupBy({ by: ["versionId", "verdict"], where: { versionId: { in: versionIds }, patchId: current.id }, _count: { _all: true } })
      : [],
    current && viewerId
      ? db.patchConfirmation.findMany({
          where: { userId: viewerId, versionId: { in: versionIds }, patchId: current.id },
          select: { versionId: true, verdict: true },
        })
      : [],
    viewerId
      ? db.download.findMany({ where: { userId: viewerId, postId, versionId: { not: null } }, orderBy: { createdAt: "desc" }, select: { versionId: true } })
      : [],
  ]);
  const versions: Record<string, VersionPatchView> = {};
  const history: PostPatchView["history"] = {};
  for (const versionId of versionIds) {
    const mark = current ? marks.find((row) => row.versionId === versionId && row.patchId === current.id) : undefined;
    const count = (verdict: PlayerVerdict) => votes.find((row) => row.versionId === versionId && row.verdict === verdict)?._count._all ?? 0;
    const my = mine.find((row) => row.versionId === versionId);
    versions[versionId] = {
      versionId,
      mark: mark ? markName(mark.mark) : "untested",
      votes: { works: count("WORKS"), broken: count("BROKEN") },
      myVote: my ? (my.verdict.toLowerCase() as PlayerVerdictName) : null,
    };
    history[versionId] = marks
      .filter((row) => row.versionId === versionId && row.patchId !== current?.id && row.mark !== "UNTESTED")
      .map((row) => ({ patch: row.patch.name, mark: markName(row.mark) }));
  }
  const downloadedVersionIds = [...new Set(downloads.map((row) => row.versionId!))].filter((id) => versionIds.includes(id));
  return { patch: current ? { id: current.id, name: current.name } : null, versions, history, downloadedVersionIds };
}

/**
 * The current patch and every version's mark on it, for the library's snapshot: one query, read
 * once per library version (which the patches and marks bump).
 */
export async function currentPatchMarks(client: Client = db): Promise<{ patch: string; marks: Map<string, PatchMarkName> } | null> {
  const rows = await client.$queryRaw<{ name: string; version_id: string | null; mark: PatchMark | null }[]>`
    SELECT p.name, m.version_id, m.mark
      FROM (SELECT id, name FROM game_patches WHERE current_since IS NOT NULL ORDER BY current_since DESC, id DESC LIMIT 1) p
      LEFT JOIN version_patch_marks m ON m.patch_id = p.id`;
  if (rows.length === 0) return null;
  const marks = new Map<string, PatchMarkName>();
  for (const row of rows) if (row.version_id && row.mark) marks.set(row.version_id, markName(row.mark));
  return { patch: rows[0]!.name, marks };
}

/** A "works" mark as news: "Confirmed for 1.113", or "Fixed for 1.113 in V2.2" after an earlier version was broken on it. */
export type PatchNews = { subjectId: string; postId: string; versionId: string; label: string; patch: string; fixed: boolean; at: Date };

/** The "works" marks on these posts' shown versions since `after`, newest first. */
export async function listPatchNews(postIds: string[], after: Date, limit: number): Promise<PatchNews[]> {
  if (postIds.length === 0) return [];
  const rows = await db.$queryRaw<{ version_id: string; patch_id: string; post_id: string; label: string; name: string; marked_at: Date; fixed: boolean }[]>`
    SELECT m.version_id, m.patch_id, v.post_id, v.label, p.name, m.marked_at,
           EXISTS (SELECT 1 FROM version_patch_marks b JOIN post_versions bv ON bv.id = b.version_id
                    WHERE b.patch_id = m.patch_id AND b.mark = 'BROKEN' AND bv.post_id = v.post_id
                      AND (bv.created_at, bv.id) < (v.created_at, v.id)) AS fixed
      FROM version_patch_marks m
      JOIN post_versions v ON v.id = m.version_id
      JOIN game_patches p ON p.id = m.patch_id
     WHERE m.mark = 'WORKS' AND v.post_id = ANY(${postIds}::text[]) AND NOT v.hidden AND m.marked_at > ${after}
     ORDER BY m.marked_at DESC, m.version_id DESC
     LIMIT ${limit}`;
  return rows.map((row) => ({
    subjectId: `${row.version_id}:${row.patch_id}`,
    postId: row.post_id,
    versionId: row.version_id,
    label: row.label,
    patch: row.name,
    fixed: row.fixed,
    at: row.marked_at,
  }));
}
