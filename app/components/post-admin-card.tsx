// A post as admins see it in the library: its image, state and file, with an "Edit" link to the
// post's editor (/admin/posts/{postId}, where every change is made) and Enable/Disable as the one
// quick toggle. Light on purpose: the editors load on the editor's page, not with the library; and
// the library loads this module only for admins (on-demand.tsx), after drawing the cards.
import { Link, useFetcher } from "@remix-run/react";
import { PostBadges, PostImage, type CardTier } from "~/components/post-card";
import type { News } from "~/utils/badges";
import type { LibraryPost } from "~/models/library-listing.server";
import { formatDayTime } from "~/utils/dates";
import { formatFileSize } from "~/utils/file-size";

/** What the card says of the tiers: the current tiers, or who may download otherwise. */
function tierSummary(post: LibraryPost, tiers: CardTier[]): string {
  const names = tiers.filter((tier) => post.tiers.includes(tier.tierId)).map((tier) => tier.title);
  if (post.is_kofiOnly) return "Ko-fi only";
  if (names.length > 0) return names.join(", ");
  return post.paid_content ? "Paid, no tier" : "Free";
}

/** "Scheduled for 3 Dec, 18:00" beside a scheduled post's title. */
export function ScheduledBadge({ post, scheduled }: { post: LibraryPost; scheduled: boolean }) {
  if (!scheduled || !post.publish_at) return null;
  return (
    <span className="badge badge-scheduled" data-testid="scheduled-badge">
      Scheduled for {formatDayTime(post.publish_at)}
    </span>
  );
}

export function PostAdminCard({
  post,
  tiers,
  back,
  news,
  scheduled,
}: {
  post: LibraryPost;
  tiers: CardTier[];
  back: string;
  news: News | undefined;
  /** Is the post's publication still ahead (by the loader's clock)? */
  scheduled: boolean;
}) {
  const toggle = useFetcher();
  const id = post.postId;
  // Optimistic: the button shows the new state while the request runs.
  const enabled = toggle.formData ? toggle.formData.get("enabled") === "true" : post.enabled;
  const titleId = `post-${id}-title`;
  return (
    <article
      className={`card post-card post-admin${enabled ? "" : " post-disabled"}`}
      aria-labelledby={titleId}
      data-testid="admin-post-card"
      data-post-id={id}
    >
      <PostImage post={post} />
      <div className="post-body">
        <PostBadges post={post} loggedIn={false} news={news} />
        <h2 id={titleId} className="post-title">
          {post.title} {enabled ? null : <span className="badge">Disabled</span>} <ScheduledBadge post={post} scheduled={scheduled} />
        </h2>
        <p className="muted">
          Post ID {id}
          {post.fileSize !== null ? ` · ${post.version} · ${formatFileSize(post.fileSize)}` : " · no file"}
        </p>
        <p className="muted">{tierSummary(post, tiers)}</p>
        <div className="admin-actions">
          <Link to={`/admin/posts/${encodeURIComponent(id)}`} className="button" aria-label={`Edit ${post.title}`}>
            Edit
          </Link>
          <toggle.Form method="post" action="/library" preventScrollReset>
            <input type="hidden" name="intent" value="toggle" />
            <input type="hidden" name="postId" value={id} />
            <input type="hidden" name="back" value={back} />
            <input type="hidden" name="enabled" value={enabled ? "false" : "true"} />
            <button type="submit" className="button-secondary">
              {enabled ? "Disable" : "Enable"}
            </button>
          </toggle.Form>
        </div>
      </div>
    </article>
  );
}

/** The admins' grid of cards (the library's `library-grid` holds them). */
export function PostAdminCards({
  posts,
  scheduledPostIds,
  news,
  ...card
}: {
  posts: LibraryPost[];
  tiers: CardTier[];
  back: string;
  /** The posts' New/Updated badges, by post id. */
  news: Record<string, News>;
  /** Posts whose publication is still ahead. */
  scheduledPostIds: string[];
}) {
  return (
    <>
      {posts.map((post) => (
        <PostAdminCard key={post.postId} post={post} {...card} news={news[post.postId]} scheduled={scheduledPostIds.includes(post.postId)} />
      ))}
    </>
  );
}

export function CreatePostForm({ back }: { back: string }) {
  const create = useFetcher();
  return (
    <create.Form method="post" action="/library" className="card create-post" preventScrollReset>
      <h2>Create Post</h2>
      <input type="hidden" name="intent" value="create" />
      <input type="hidden" name="back" value={back} />
      <div className="create-post-fields">
        <div className="field">
          <label htmlFor="create-title">Title</label>
          <input type="text" id="create-title" name="title" required />
        </div>
        <div className="field">
          <label htmlFor="create-id">Post ID (optional)</label>
          <input type="text" id="create-id" name="postId" pattern="[A-Za-z0-9_\-]{1,64}" />
        </div>
        <div className="field">
          <label htmlFor="create-publish-at">Publish at (UTC, optional)</label>
          <input type="datetime-local" id="create-publish-at" name="publish_at" />
        </div>
      </div>
      <button type="submit" className="button" disabled={create.state !== "idle"}>
        {create.state !== "idle" ? "Creating..." : "Create Post"}
      </button>
    </create.Form>
  );
}
