// A post as supporters see it: preview, version and status badges, and either the download
// (owned) or the ways to get it (shop, support platform) with a lock.
import { AccessNote } from "~/components/access-note";
import { PostAccess } from "~/components/post-access";
import { VerifyFile } from "~/components/verify-file";
import { VersionHistory } from "~/components/version-history";
import type { LibraryPost } from "~/models/library-listing.server";
import type { VersionView } from "~/models/post-version-history.server";
import type { AccessSummary } from "~/utils/access-words";
import { badgesFor } from "~/utils/badges";
import { formatFileSize } from "~/utils/file-size";
import { GRID_IMAGE_SIZES, imageSrcSet } from "~/utils/responsive-images";

export type CardTier = { tierId: string; title: string; subscribeLabel: string | null; amount_cents: number | null };

export type CardLinks = { kofiShopUrl: string; patreonCreatorUrl: string };

function LockIcon() {
  return (
    <svg className="post-lock" role="img" aria-label="Locked" viewBox="0 0 24 24" width="22" height="22">
      <path
        fill="currentColor"
        d="M12 2a5 5 0 0 0-5 5v3H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8a2 2 0 0 0-2-2h-1V7a5 5 0 0 0-5-5Zm-3 5a3 3 0 1 1 6 0v3H9V7Z"
      />
    </svg>
  );
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

export function PostBadges({ post, loggedIn, now }: { post: LibraryPost; loggedIn: boolean; now: Date }) {
  const { isNew, isUpdated } = badgesFor({ firstPublishedAt: post.first_published_at, lastUpdated: post.last_updated }, now);
  return (
    <div className="post-badges">
      <span className="badge">{post.version}</span>
      {isNew ? <span className="badge badge-new">New</span> : null}
      {isUpdated ? <span className="badge badge-updated">Updated</span> : null}
      {loggedIn && post.unlocked && post.downloadStatus === "outdated" && post.userVersion ? (
        <span className="badge badge-outdated">Your version: {post.userVersion}</span>
      ) : null}
      {loggedIn && post.unlocked && post.downloadStatus === "never" ? <span className="badge badge-never">Never downloaded</span> : null}
    </div>
  );
}

export function PostCard({
  post,
  tiers,
  links,
  loggedIn,
  now,
  back,
  onDownload,
  access,
  versions = [],
}: {
  post: LibraryPost;
  /** The post's visible versions, newest first. */
  versions?: VersionView[];
  /** Why it is unlocked, or what would unlock it (docs/product.md#access-explained). */
  access?: AccessSummary;
  tiers: CardTier[];
  links: CardLinks;
  loggedIn: boolean;
  now: Date;
  back: string;
  onDownload: (post: LibraryPost) => void;
}) {
  const subscribe = subscribeTier(post, tiers);
  const titleId = `post-${post.postId}-title`;
  return (
    <article className="card post-card" aria-labelledby={titleId} data-testid="post-card" data-post-id={post.postId}>
      <PostImage post={post} />
      <div className="post-body">
        <PostBadges post={post} loggedIn={loggedIn} now={now} />
        <h2 id={titleId} className="post-title">
          {post.title}
        </h2>
        {post.unlocked ? (
          <div className="post-owned">
            {/* Everyone may download a free post; owning is what a purchase or tier gives. */}
            <p className="post-owned-label">{post.paid_content ? "You own this item" : "Free download"}</p>
            <form
              method="post"
              action="/library"
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
            {post.fileSize !== null ? <VerifyFile postId={post.postId} postTitle={post.title} /> : null}
          </div>
        ) : (
          <div className="post-locked">
            <LockIcon />
            <PostAccess post={post} tiers={tiers} />
            <div className="button-row">
              {post.kofi_id ? (
                <a className="button-secondary" href={`${links.kofiShopUrl}/s/${encodeURIComponent(post.kofi_id)}`} target="_blank" rel="noreferrer">
                  Ko-fi Shop
                </a>
              ) : null}
              {!post.is_kofiOnly && post.url ? (
                <a className="button-quiet" href={`${links.patreonCreatorUrl}/posts/${encodeURIComponent(post.url)}`} target="_blank" rel="noreferrer">
                  More infos
                </a>
              ) : null}
              {!post.is_kofiOnly && subscribe ? (
                <a className="button" href={`${links.patreonCreatorUrl}/join`} target="_blank" rel="noreferrer">
                  Subscribe ({subscribe.subscribeLabel})
                </a>
              ) : null}
            </div>
          </div>
        )}
        <VersionHistory
          postId={post.postId}
          versions={versions}
          // One "Verify a file" per card: under Download for a post the viewer may download,
          // else in the history (a copy got elsewhere can still be checked).
          verifySlot={!post.unlocked && versions.length > 0 ? <VerifyFile postId={post.postId} postTitle={post.title} /> : undefined}
          renderActions={(version) =>
            post.unlocked && !version.current ? (
              // An older version: a plain post to the library's download intent, with or without JavaScript.
              <form method="post" action="/library">
                <input type="hidden" name="intent" value="download" />
                <input type="hidden" name="postId" value={post.postId} />
                <input type="hidden" name="versionId" value={version.id} />
                <input type="hidden" name="back" value={back} />
                <button type="submit" className="button-secondary">
                  Download {version.label} ({formatFileSize(version.size)})
                </button>
              </form>
            ) : null
          }
        />
        <AccessNote access={access} tiers={tiers} links={links} />
      </div>
    </article>
  );
}
