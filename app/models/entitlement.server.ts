// Loads what the entitlement rule needs about a viewer with a fixed number of queries (never one
// per post), and answers the rule for posts loaded with their tiers.
import { queryRows } from "~/db.server";
import { getCurrentUserWith } from "~/models/session.server";
import type { Post, PostTier, Prisma, ReleaseStep, User } from "~/generated/prisma/client";
import type { EntitlementPost, EntitlementViewer } from "~/utils/entitlement";

/** Release steps in the order they open (the listing's `release_steps`); saved plans never go back in time. */
const IN_OPENING_ORDER: Prisma.ReleaseStepOrderByWithRelationInput[] = [{ opensAt: "asc" }, { position: "asc" }];

/** What a post query includes for the entitlement rule: its tiers and its release steps in the order they open. */
export const withAccess = {
  tiers: { select: { tierId: true, kind: true } },
  releaseSteps: {
    select: { position: true, audienceTierId: true, tierIds: true, afterDays: true, opensOn: true, opensAt: true, announceUrl: true },
    orderBy: IN_OPENING_ORDER,
  },
} as const;

export type StoredReleaseStep = Pick<ReleaseStep, "position" | "audienceTierId" | "tierIds" | "afterDays" | "opensOn" | "opensAt"> &
  Partial<Pick<ReleaseStep, "announceUrl">>;

export type PostWithAccess = Post & { tiers: Pick<PostTier, "tierId" | "kind">[]; releaseSteps: StoredReleaseStep[] };

type ViewerUser = Pick<User, "id" | "isAdmin" | "restricted" | "currentTierId">;

/** JSON texts, parsed only when needed: a repeated listing is answered from its fingerprint. */
export type ViewerRow = {
  /** string[] */
  unlocked: string | null;
  /** string[] */
  purchases: string | null;
  /** { type, date, tierId, paymentStatus }[] */
  pledges: string | null;
  /** { [postId]: version } */
  downloads: string | null;
  stamp: string;
  /** { [postId]: givesAccess }: posts whose linked inspiration item this viewer voted for (prisma/functions/viewer_context.sql) */
  voted: string | null;
};

type PledgeRow = { type: string; date: string; tierId: string | null; paymentStatus: string | null };

export type ViewerContext = {
  viewer: EntitlementViewer | null;
  /** Posts realizing an inspiration item this viewer voted for (with or without voter access). */
  votedPostIds: ReadonlySet<string>;
  downloads: Map<string, string> | undefined;
  /** The library's version stamp, when asked for. */
  libraryStamp: string;
  /** Equal for two requests exactly when everything about the viewer is equal. */
  fingerprint: string;
};

const NO_POSTS: ReadonlySet<string> = new Set();

type ViewerOptions = { withDownloads?: boolean; withLibraryStamp?: boolean };

/**
 * Everything about a viewer, from the database function `viewer_context` (prisma/functions/viewer_context.sql):
 * unlocked_content, the shop item codes bought with any of their verified shop emails (guest
 * purchases included), their pledge history, the version of each post they downloaded last (when
 * asked), the library's version stamp (when asked) and the posts whose linked inspiration item
 * this viewer voted for, each with whether the link gives voters access. A
 * PL/pgSQL function keeps its plan per server connection, which works through a transaction-mode
 * pooler where a named prepared statement does not (docs/decisions/006).
 * One round trip; a guest has no row.
 */
export async function loadViewerContext(
  user: ViewerUser | null,
  { withDownloads = false, withLibraryStamp = false }: ViewerOptions = {},
): Promise<ViewerContext> {
  if (!user) {
    if (!withLibraryStamp) return { viewer: null, votedPostIds: NO_POSTS, downloads: undefined, libraryStamp: "", fingerprint: "guest" };
    const [row] = await queryRows<{ stamp: string }>("SELECT version::text AS stamp FROM library_versions WHERE id = 1", []);
    return { viewer: null, votedPostIds: NO_POSTS, downloads: undefined, libraryStamp: row?.stamp ?? "", fingerprint: "guest" };
  }
  // Asked for on every listing and download: plain SQL (see `queryRows`).
  const [row] = await queryRows<ViewerRow>("SELECT * FROM viewer_context($1, $2, $3)", [user.id, withDownloads, withLibraryStamp]);
  return toViewerContext(user, row, withDownloads);
}

/**
 * The request's user and their viewer context in a single round trip (the listing's path: the
 * session lookup and the entitlements are one statement).
 */
export async function loadRequestViewer(
  request: Request,
  { withDownloads = false, withLibraryStamp = false }: ViewerOptions = {},
): Promise<{ user: User | null; context: ViewerContext }> {
  const found = await getCurrentUserWith<ViewerRow>(request, { withDownloads, withLibraryStamp });
  if (!found) return { user: null, context: await loadViewerContext(null, { withDownloads, withLibraryStamp }) };
  return { user: found.user, context: toViewerContext(found.user, found.extra, withDownloads) };
}

/** The context from a `viewer_context` row (also used by app/models/access.server.ts). */
export function toViewerContext(user: ViewerUser, row: ViewerRow | undefined, withDownloads: boolean): ViewerContext {
  const parse = <T>(text: string | null | undefined, empty: T): T => (text ? (JSON.parse(text) as T) : empty);
  let viewer: EntitlementViewer | undefined;
  let downloads: Map<string, string> | undefined;
  let voted: Record<string, boolean> | undefined;
  const votedFor = () => (voted ??= parse<Record<string, boolean>>(row?.voted, {}));
  return {
    get viewer() {
      viewer ??= {
        isAdmin: user.isAdmin,
        restricted: user.restricted,
        currentTierId: user.currentTierId,
        unlockedPostIds: new Set(parse<string[]>(row?.unlocked, [])),
        purchasedKofiCodes: new Set(parse<string[]>(row?.purchases, [])),
        pledges: parse<PledgeRow[]>(row?.pledges, []).map((event) => ({ ...event, date: new Date(event.date) })),
        voterPostIds: new Set(
          Object.entries(votedFor())
            .filter(([, givesAccess]) => givesAccess)
            .map(([postId]) => postId),
        ),
      };
      return viewer;
    },
    get votedPostIds() {
      return new Set(Object.keys(votedFor()));
    },
    get downloads() {
      if (!withDownloads) return undefined;
      downloads ??= new Map(Object.entries(parse<Record<string, string>>(row?.downloads, {})));
      return downloads;
    },
    libraryStamp: row?.stamp ?? "",
    // JSON texts never hold a raw NUL, so the joined texts are equal exactly when all parts are.
    fingerprint: [user.id, user.isAdmin, user.restricted, user.currentTierId, row?.unlocked, row?.purchases, row?.pledges, row?.downloads, row?.voted].join(
      "\u0000",
    ),
  };
}

export async function loadEntitlementViewer(user: ViewerUser | null): Promise<EntitlementViewer | null> {
  return (await loadViewerContext(user)).viewer;
}

export function toEntitlementPost(post: PostWithAccess): EntitlementPost {
  return {
    id: post.id,
    enabled: post.enabled,
    paidContent: post.paidContent,
    isKofiOnly: post.isKofiOnly,
    kofiId: post.kofiId,
    currentTierIds: post.tiers.filter((tier) => tier.kind === "CURRENT").map((tier) => tier.tierId),
    firstTierIds: post.tiers.filter((tier) => tier.kind === "FIRST").map((tier) => tier.tierId),
    firstPublishedAt: post.firstPublishedAt,
    publishAt: post.publishAt,
    // A step without an audience tier opens the post to everyone.
    releaseSteps: post.releaseSteps.map((step) => ({ tierIds: step.audienceTierId === null ? null : step.tierIds, opensAt: step.opensAt })),
  };
}
