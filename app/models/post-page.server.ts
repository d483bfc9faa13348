// One post as its own page (/library/{postId}) and as GET /api/library/posts/{postId}: the card's
// data for a single post, read through the same listing, explanation and version history as the
// library, so the page never shows a post the library would not. A post the viewer may not see
// is the same "not found" as an unknown id.
import type { KeptOffer } from "~/utils/card-status";
import { keptWords } from "~/utils/card-status";
import { pledgedTierAt } from "~/utils/entitlement";
import { describeLibraryCards, loadLibraryPageViewer } from "~/models/access.server";
import { postPatchView, type PostPatchView } from "~/models/game-patch.server";
import { keptVersions } from "~/models/kept-versions.server";
import { accessOf, listLibraryPosts, type LibraryPost } from "~/models/library-listing.server";
import { fileViews, filesOfVersions, type FileView } from "~/models/version-files.server";
import { versionHistories, withFileChangelogs, type VersionView } from "~/models/post-version-history.server";
import { listTiersAt, type ApiTier } from "~/models/tier.server";
import type { CardAccess } from "~/utils/card-status";
import { requirementsForViewer } from "~/models/post-requirements.server";
import type { RequirementView } from "~/utils/requirements";

type PageViewer = Awaited<ReturnType<typeof loadLibraryPageViewer>>;

/**
 * The versions of these locked posts a lapsed member keeps (docs/product.md#keep-what-you-downloaded),
 * each with its words, by post id.
 */
export async function keptOffers(viewer: PageViewer, posts: readonly LibraryPost[], tiers: readonly ApiTier[]): Promise<Record<string, KeptOffer>> {
  const { user } = viewer;
  const locked = user ? posts.filter((post) => !post.unlocked).map((post) => post.postId) : [];
  if (!user || locked.length === 0) return {};
  const keptByPost = await keptVersions(user.id, locked);
  const titles = new Map(tiers.map((tier) => [tier.tierId, tier.title]));
  const offers: Record<string, KeptOffer> = {};
  for (const [postId, versions] of keptByPost) {
    const newest = versions[versions.length - 1];
    const post = posts.find((item) => item.postId === postId);
    if (!newest || !post) continue;
    const tierId = pledgedTierAt(viewer.explained?.pledges ?? [], newest.downloadedAt);
    const words = keptWords({ label: newest.label, downloadedAt: newest.downloadedAt, tierId }, { label: post.version, tierIds: post.tiers }, titles);
    offers[postId] = { versionId: newest.versionId, label: newest.label, words };
  }
  return offers;
}

export type PostPage = {
  post: LibraryPost;
  /** Why the viewer has it, or what would unlock it. */
  access: CardAccess;
  /** The visible versions, newest first, each with its notes and changelog, and its added files' changelogs. */
  versions: VersionView[];
  tiers: readonly ApiTier[];
  /** The post realizes an inspiration item the viewer voted for. */
  voted: boolean;
  /** A version of this locked post the viewer keeps from their membership. */
  kept: KeptOffer | null;
  /** The versions' marks and players' answers on the current game patch (docs/product.md#game-patches). */
  compatibility: PostPatchView;
  /** What the post requires, each with its access line for this viewer (docs/product.md#requirements). */
  requirements: RequirementView[];
  /** The current version's files, main first, each with whether the viewer may download it (docs/product.md#files-of-a-version). */
  files: FileView[];
  /** The current version's id (admins add files to it); null without a file. */
  currentVersionId: string | null;
};

/** The post as `viewer` may see it now, or null when the library would not list it to them. */
export async function loadPostPage(viewer: PageViewer, postId: string): Promise<PostPage | null> {
  const { user, context } = viewer;
  const listing = await listLibraryPosts(user, viewer);
  const found = listing.posts.find((item) => item.postId === postId);
  if (!found) return null;
  // The page's own `files` (below) list every file, with or without added ones.
  const { files: _listed, ...post } = found;
  const tiers = await listTiersAt(context.libraryStamp);
  const [histories, kept, requirements] = await Promise.all([
    versionHistories([post.postId], { admin: false, stamp: listing.stamp }),
    keptOffers(viewer, [post], tiers),
    requirementsForViewer(listing, [post], listing.posts, tiers),
  ]);
  const listedVersions = histories[post.postId] ?? [];
  const filesByVersion = await filesOfVersions(listedVersions.map((version) => version.id));
  // Each version's added files with what changed in them since the version before.
  const versions = withFileChangelogs(listedVersions, filesByVersion);
  const current = versions.find((version) => version.current) ?? null;
  // The card's words and each file's access are the listing's explanation of the post (a file
  // with a gate of its own: the entitlement rule for that file, the one every download asks).
  const explained = accessOf(listing, post);
  const access = describeLibraryCards(listing, [post], tiers);
  const files = current ? fileViews(explained, current, filesByVersion.get(current.id) ?? [], listing.viewer, listing.now) : [];
  const compatibility = await postPatchView(
    post.postId,
    versions.map((version) => version.id),
    user?.id ?? null,
  );
  return {
    post,
    access: access[post.postId]!,
    versions,
    tiers,
    voted: context.votedPostIds.has(post.postId),
    kept: kept[post.postId] ?? null,
    compatibility,
    requirements: requirements[post.postId] ?? [],
    files,
    currentVersionId: current?.id ?? null,
  };
}
