// A post as supporters see it (docs/design.md#the-library-card): preview, badges led by what can
// be acted on, the title, then one status line with one primary action (Download with why it is
// yours, or the main way in with a lock), a secondary action, and the details (what unlocks it,
// version history) folded at the card's foot.
import { CardFiles } from "~/components/card-files";
import type { CardFile } from "~/models/version-files.server";
import { Link } from "@remix-run/react";
import { AccessNote } from "~/components/access-note";
import { PostAccess } from "~/components/post-access";
import { VerifyFile } from "~/components/verify-file";
import { VersionHistory } from "~/components/card-version-history";
import type { LibraryPost } from "~/models/library-listing.server";
import type { VersionView } from "~/models/post-version-history.server";
import type { News } from "~/utils/badges";
import type { CardAccess, KeptOffer } from "~/utils/card-status";
import type { LockedAction } from "~/utils/locked-action";
import { formatFileSize } from "~/utils/file-size";
import { compatibilityLine } from "~/utils/game-patch-words";
import { formatPrice } from "~/utils/price-words";
import { REQUIREMENT_WORDS, unmetRequirements, type RequirementView } from "~/utils/requirements";
import { GRID_IMAGE_SIZES, imageSrcSet } from "~/utils/responsive-images";
import type { LadderRung } from "~/utils/release-ladder";

export type CardTier = { tierId: string; title: string; isPaid: boolean; subscribeLabel: string | null; amount_cents: number | null; currency?: string };

export type CardLinks = { kofiShopUrl: string; patreonCreatorUrl: string };

/** A Subscribe button's words: "Subscribe (Tier 2) · $5/month" when the tier's price is known. */
export function subscribeWords(tier: { subscribeLabel: string | null; tierId: string }, tiers: readonly CardTier[]): string {
  const priced = tiers.find((item) => item.tierId === tier.tierId);
  const price = priced && priced.amount_cents !== null ? ` · ${formatPrice(priced.amount_cents, priced.currency ?? "USD")}/month` : "";
  return `Subscribe (${tier.subscribeLabel})${price}`;
}

/** The shop button's words: "Ko-fi Shop · $4" when the creator entered the item's price. */
export function shopWords(post: Pick<LibraryPost, "shop_price_cents" | "shop_currency">): string {
  return post.shop_price_cents !== null ? `Ko-fi Shop · ${formatPrice(post.shop_price_cents, post.shop_currency ?? "USD")}` : "Ko-fi Shop";
}

/** The cheapest tier of the post that has a Subscribe label (docs/product.md#constants). */
export function subscribeTier(post: LibraryPost, tiers: CardTier[]): CardTier | undefined {
  return tiers.find((tier) => tier.subscribeLabel && post.tiers.includes(tier.tierId));
}

export function PostImage({ post }: { post: LibraryPost }) {
  return post.imageUrl ? (
    <img
      className="post-image"
      src={post.imageUrl}
      srcSet={imageSrcSet(post.imageUrl)}
      sizes={GRID_IMAGE_SIZES}
      alt=""
      loading="lazy"
      width={1280}
      height={720}
    />
  ) : (
    <div className="post-image post-image-missing">No preview picture found</div>
  );
}

/**
 * The post as the card shows it after downloads made on this page: a post downloaded here is
 * current (its version is the one just fetched), without waiting for a reload.
 */
export function withPageDownload(post: LibraryPost, downloadedVersion: string | undefined): LibraryPost {
  if (downloadedVersion === undefined) return post;
  return { ...post, downloadStatus: "current", userVersion: downloadedVersion };
}

/** The news badge the server decided (app/utils/badges.ts). */
export function NewsBadge({ news }: { news: News | undefined }) {
  if (news === "new") return <span className="badge badge-new">New</span>;
  if (news === "updated") return <span className="badge badge-updated">Updated</span>;
  return null;
}

/**
 * The badges, what can be acted on first: "Update available" (a newer version than the one the
 * user has), then the news (New, Updated), the version, and quietly the user's own version and
 * "Never downloaded".
 */
export function PostBadges({ post, loggedIn, news }: { post: LibraryPost; loggedIn: boolean; news: News | undefined }) {
  const mine = loggedIn && post.unlocked;
  const outdated = mine && post.downloadStatus === "outdated" && Boolean(post.userVersion);
  return (
    <div className="post-badges" data-testid="post-badges">
      {outdated ? <span className="badge badge-update">Update available</span> : null}
      <NewsBadge news={news} />
      <span className="badge badge-version">{post.version}</span>
      {outdated ? <span className="badge badge-quiet badge-outdated">Your version: {post.userVersion}</span> : null}
      {mine && post.downloadStatus === "never" ? <span className="badge badge-quiet badge-never">Never downloaded</span> : null}
    </div>
  );
}

/** The owned card's Download: a plain post to the library's download intent; with JavaScript, in place. */
export function DownloadForm({ post, back, onDownload }: { post: LibraryPost; back: string; onDownload: (post: LibraryPost) => void }) {
  return (
    <form
      method="post"
      action="/library"
      className="post-download"
      onSubmit={(event) => {
        event.preventDefault();
        onDownload(post);
      }}
    >
      <input type="hidden" name="intent" value="download" />
      <input type="hidden" name="postId" value={post.postId} />
      <input type="hidden" name="back" value={back} />
      <button type="submit" className="button">
        Download{post.fileSize !== null ? ` (${formatFileSize(post.fileSize)})` : ""}
      </button>
    </form>
  );
}

/**
 * The owned card's status line: "✓ You own this item · Included in your Tier 2 membership" (or
 * "Free download" for a free post, which everyone may download).
 */
export function OwnedStatus({ post, access }: { post: LibraryPost; access: CardAccess | undefined }) {
  const reason = post.paid_content ? access?.status : null;
  return (
    <p className="post-status post-status-owned" data-testid="post-status">
      <span className="post-status-mark" aria-hidden="true">
        ✓
      </span>{" "}
      <span className="post-owned-label">{post.paid_content ? "You own this item" : "Free download"}</span>
      {reason ? (
        <span className="post-status-reason" data-testid="access-reason">
          <span aria-hidden="true"> · </span>
          <span className="visually-hidden">: </span>
          {reason}
        </span>
      ) : null}
    </p>
  );
}

type WayIn = { label: string; href: string };

/**
 * A locked post's ways in, by the action rule (app/utils/locked-action.ts) when the card has it:
 * the main one first (the tier offered, else the shop); the shop second; the support-platform page
 * last. When the viewer's own turn is coming its date comes first (ReleaseUpcoming), so there is
 * no primary button and the tier offered is a quiet `upgrade` ("Get it now with Tier 3").
 */
export function waysIn(
  post: LibraryPost,
  tiers: CardTier[],
  links: CardLinks,
  action?: LockedAction,
): { primary: WayIn | null; secondary: WayIn | null; upgrade: WayIn | null; more: WayIn | null } {
  const shop = post.kofi_id ? { label: shopWords(post), href: `${links.kofiShopUrl}/s/${encodeURIComponent(post.kofi_id)}` } : null;
  const more = !post.is_kofiOnly && post.url ? { label: "More infos", href: `${links.patreonCreatorUrl}/posts/${encodeURIComponent(post.url)}` } : null;
  const joinHref = `${links.patreonCreatorUrl}/join`;
  if (action) {
    if (action.primary === "turn") {
      const upgrade = action.offer && action.secondaryWords ? { label: action.secondaryWords, href: joinHref } : null;
      return { primary: null, secondary: shop, upgrade, more };
    }
    const join = action.offer ? { label: subscribeWords(action.offer, tiers), href: joinHref } : null;
    return { primary: join ?? shop, secondary: join ? shop : null, upgrade: null, more };
  }
  const subscribe = !post.is_kofiOnly ? subscribeTier(post, tiers) : undefined;
  const join = subscribe ? { label: subscribeWords(subscribe, tiers), href: joinHref } : null;
  return { primary: join ?? shop, secondary: join ? shop : null, upgrade: null, more };
}

function WayLink({ way, className }: { way: WayIn | null; className: string }) {
  if (!way) return null;
  return (
    <a className={className} href={way.href} target="_blank" rel="noreferrer">
      {way.label}
    </a>
  );
}

/**
 * When a locked post's next release step opens it to this viewer: "Opens to your Tier 2 on 10 Dec
 * (in 5 days)". By the action rule it is then the card's first thing, so it is set as the lead.
 */
export function ReleaseUpcoming({ access }: { access: CardAccess | undefined }) {
  if (!access?.upcoming) return null;
  const lead = access.action?.primary === "turn";
  return (
    <p className={lead ? "post-upcoming post-upcoming-lead" : "post-upcoming"} data-testid="release-upcoming">
      {lead ? <strong>{access.upcoming}</strong> : access.upcoming}
    </p>
  );
}

/**
 * The release ladder, every step in opening order with the viewer's own marked in words (not
 * colour alone): "Tier 3 now · Tier 2 on 29 Nov (your step) · Free on 21 Jan".
 */
export function ReleaseLadder({ access }: { access: CardAccess | undefined }) {
  return <LadderRungs rungs={access?.ladder} />;
}

/** The ladder's rungs as the cards draw them (also the release editor's live preview). */
export function LadderRungs({ rungs, testId = "release-ladder" }: { rungs: readonly LadderRung[] | null | undefined; testId?: string }) {
  if (!rungs || rungs.length === 0) return null;
  return (
    <ol className="release-ladder" aria-label="Release steps" data-testid={testId}>
      {rungs.map((rung, index) => (
        <li key={index} className={rung.yours ? "release-rung release-rung-yours" : rung.open ? "release-rung release-rung-open" : "release-rung"}>
          {index > 0 ? (
            <span className="release-rung-sep" aria-hidden="true">
              {" · "}
            </span>
          ) : null}
          {rung.yours ? (
            <strong>
              {rung.name} {rung.when} <span className="release-rung-mark">(your step)</span>
            </strong>
          ) : (
            <>
              {rung.name} {rung.when}
            </>
          )}
        </li>
      ))}
    </ol>
  );
}

/** The locked card's actions: one primary way in (or the quiet upgrade under the viewer's own date), one secondary, and the post's page as a quiet link. */
export function LockedActions({
  post,
  tiers,
  links,
  action,
  only,
}: {
  post: LibraryPost;
  tiers: CardTier[];
  links: CardLinks;
  action?: LockedAction;
  only?: "primary";
}) {
  const ways = waysIn(post, tiers, links, action);
  if (only === "primary") {
    if (ways.primary) return <WayLink way={ways.primary} className="button" />;
    return <WayLink way={ways.upgrade ?? ways.more} className="button-quiet" />;
  }
  if (!ways.primary && !ways.upgrade && !ways.secondary && !ways.more) return null;
  return (
    <div className="button-row post-actions">
      <WayLink way={ways.primary} className="button" />
      <WayLink way={ways.secondary} className="button-secondary" />
      <WayLink way={ways.upgrade} className="button-quiet" />
      <WayLink way={ways.more} className="button-quiet" />
    </div>
  );
}

export function LockIcon() {
  return (
    <svg className="post-lock" role="img" aria-label="Locked" viewBox="0 0 24 24" width="22" height="22">
      <path
        fill="currentColor"
        d="M12 2a5 5 0 0 0-5 5v3H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8a2 2 0 0 0-2-2h-1V7a5 5 0 0 0-5-5Zm-3 5a3 3 0 1 1 6 0v3H9V7Z"
      />
    </svg>
  );
}

/** The post's tags, each a link to the library filtered by it. */
export function PostTags({ post }: { post: LibraryPost }) {
  if (post.tags.length === 0) return null;
  return (
    <ul className="post-tags" aria-label="Tags" data-testid="post-tags">
      {post.tags.map((tag) => (
        <li key={tag.slug}>
          <Link className="tag-chip" to={`/library?tag=${encodeURIComponent(tag.slug)}`}>
            {tag.name}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** What the post requires, each with its own access line for this viewer: "Requires Base Pack V2 or later · unlocked by Tier 2". */
export function PostRequirements({ requirements }: { requirements: readonly RequirementView[] | undefined }) {
  if (!requirements || requirements.length === 0) return null;
  return (
    <ul className="post-requirements" aria-label="Requirements" data-testid="post-requirements">
      {requirements.map((item, index) => (
        <li key={index} className={item.met === false ? "post-requirement post-requirement-missing" : "post-requirement"}>
          {item.kind === "post" ? (
            <>
              Requires <Link to={postPagePath(item.post_id)}>{item.title}</Link>
              {item.min_version ? ` ${item.min_version} or later` : ""}
              <span aria-hidden="true"> · </span>
              <span className="visually-hidden">: </span>
              {item.access}
            </>
          ) : item.kind === "item" ? (
            <>
              Requires{" "}
              <a href={item.url} target="_blank" rel="noreferrer">
                {item.name}
              </a>{" "}
              <span className="muted">(outside this site)</span>
            </>
          ) : (
            <>
              {item.words}
              <span aria-hidden="true"> · </span>
              <span className="visually-hidden">: </span>
              {item.access}
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/** Beside Download when the viewer lacks something the post requires: a warning, never a block. */
export function RequirementNotice({ requirements }: { requirements: readonly RequirementView[] | undefined }) {
  const missing = unmetRequirements(requirements ?? []);
  if (missing.length === 0) return null;
  const names = missing.map((item) => (item.kind === "post" ? item.title : "another post"));
  return (
    <p className="post-requirement-notice" role="note" data-testid="requirement-notice">
      <span aria-hidden="true">⚠ </span>You don&apos;t have {names.join(" or ")} yet. {REQUIREMENT_WORDS.notice}
    </p>
  );
}

/** What a post's card and its list row are shown from. */
export type PostEntryProps = {
  post: LibraryPost;
  /** Why it is unlocked, or what would unlock it (docs/product.md#access-explained). */
  access?: CardAccess;
  tiers: CardTier[];
  links: CardLinks;
  loggedIn: boolean;
  /** Its New or Updated badge, if it has one (app/utils/badges.ts `newsOf`). */
  news?: News;
  back: string;
  onDownload: (post: LibraryPost) => void;
  /** The version downloaded on this page, if any: shown as current. */
  downloadedVersion?: string;
  /** The post realizes an inspiration item the viewer voted for. */
  voted?: boolean;
  /** A version of this locked post the viewer keeps from their membership. */
  kept?: KeptOffer;
  /** What the post requires, in this viewer's words (docs/product.md#requirements). */
  requirements?: RequirementView[];
  /** The current version's added files, in this viewer's words (docs/product.md#files-of-a-version). */
  files?: CardFile[];
};

/** A locked card's kept version: what the viewer keeps, and its Download (a plain post, with or without JavaScript). */
export function KeptVersionOffer({ post, kept, back }: { post: LibraryPost; kept: KeptOffer | undefined; back: string }) {
  if (!kept) return null;
  return (
    <div className="post-kept" data-testid="kept-version">
      <p>{kept.words}</p>
      <form method="post" action="/library">
        <input type="hidden" name="intent" value="download" />
        <input type="hidden" name="postId" value={post.postId} />
        <input type="hidden" name="versionId" value={kept.versionId} />
        <input type="hidden" name="back" value={back} />
        <button type="submit" className="button-secondary">
          Download {kept.label}
        </button>
      </form>
    </div>
  );
}

/** "Inspired by your vote" to those who voted for the idea, "Inspired by 23 voters" to others. */
export function InspiredBy({ post, voted }: { post: LibraryPost; voted: boolean | undefined }) {
  if (!post.inspired_by) return null;
  const count = post.inspired_by.voters;
  return (
    <p className="post-inspired" data-testid="post-inspired">
      {voted ? "Inspired by your vote" : `Inspired by ${count.toLocaleString("en-US")} ${count === 1 ? "voter" : "voters"}`}
    </p>
  );
}

/** The post's standing on the current game patch (docs/product.md#game-patches), when one is current. */
export function PatchLine({ post }: { post: LibraryPost }) {
  if (!post.compatibility) return null;
  return (
    <p className={`post-patch post-patch-${post.compatibility.mark}`} data-testid="post-patch">
      {compatibilityLine(post.compatibility)}
    </p>
  );
}

/** The address of a post's own page. */
export function postPagePath(postId: string): string {
  return `/library/${encodeURIComponent(postId)}`;
}

export function PostCard({
  page = false,
  post: listed,
  tiers,
  links,
  loggedIn,
  news,
  back,
  onDownload,
  access,
  versions = [],
  downloadedVersion,
  voted,
  kept,
  requirements,
  files,
}: PostEntryProps & {
  /** The post's visible versions, newest first. */
  versions?: VersionView[];
  /** Shown as the post's own page: its title is the page's heading and its details are unfolded. */
  page?: boolean;
}) {
  const post = withPageDownload(listed, downloadedVersion);
  const titleId = `post-${post.postId}-title`;
  const Title = page ? "h1" : "h2";
  const hasDetails = (!post.unlocked && access && !access.allowed) || versions.length > 0;
  return (
    <article className={page ? "card post-card post-page-card" : "card post-card"} aria-labelledby={titleId} data-testid="post-card" data-post-id={post.postId}>
      <PostImage post={post} />
      <div className="post-body">
        <PostBadges post={post} loggedIn={loggedIn} news={news} />
        <Title id={titleId} className="post-title">
          {page ? post.title : <Link to={postPagePath(post.postId)}>{post.title}</Link>}
        </Title>
        <InspiredBy post={post} voted={voted} />
        <PatchLine post={post} />
        <PostTags post={post} />
        <PostRequirements requirements={requirements} />
        <CardFiles files={files} />
        {post.unlocked ? (
          <div className="post-owned">
            <div className="post-primary">
              <DownloadForm post={post} back={back} onDownload={onDownload} />
              <OwnedStatus post={post} access={access} />
            </div>
            <RequirementNotice requirements={requirements} />
            <ReleaseLadder access={access} />
            {post.fileSize !== null ? <VerifyFile postId={post.postId} postTitle={post.title} /> : null}
          </div>
        ) : (
          <div className="post-locked">
            <p className="post-status post-status-locked">
              <LockIcon />
              <PostAccess post={post} tiers={tiers} />
            </p>
            <ReleaseLadder access={access} />
            <ReleaseUpcoming access={access} />
            <KeptVersionOffer post={post} kept={kept} back={back} />
            <LockedActions post={post} tiers={tiers} links={links} action={access?.action} />
          </div>
        )}
        {hasDetails ? (
          <div className="post-details">
            {!post.unlocked ? <AccessNote access={access} tiers={tiers} open={page} /> : null}
            <VersionHistory
              postId={post.postId}
              versions={versions}
              downloadable={post.unlocked}
              back={back}
              open={page}
              // One "Verify a file" per card: under Download for a post the viewer may download,
              // else in the history (a copy got elsewhere can still be checked).
              verifySlot={!post.unlocked && versions.length > 0 ? <VerifyFile postId={post.postId} postTitle={post.title} /> : undefined}
            />
          </div>
        ) : null}
      </div>
    </article>
  );
}
