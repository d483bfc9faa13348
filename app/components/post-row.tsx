// A post in the library's compact list (layout=list): thumbnail, title with the badge that can be
// acted on, one status line and one button, as a purchase library lists what you own. The card
// (post-card.tsx) holds the rest: versions, verification and what unlocks a locked post. The
// library loads this module only for the list (on-demand.tsx), after drawing it.
import { CardFiles } from "~/components/card-files";
import { Link } from "@remix-run/react";
import {
  DownloadForm,
  InspiredBy,
  PatchLine,
  KeptVersionOffer,
  LockIcon,
  NewsBadge,
  LockedActions,
  OwnedStatus,
  PostRequirements,
  PostTags,
  postPagePath,
  ReleaseLadder,
  ReleaseUpcoming,
  withPageDownload,
  type PostEntryProps,
} from "~/components/post-card";
import { PostAccess } from "~/components/post-access";
import type { LibraryPost } from "~/models/library-listing.server";
import type { News } from "~/utils/badges";
import { imageSrcSet } from "~/utils/responsive-images";

/** A row's thumbnail is 8rem wide (library.css). */
const THUMB_SIZES = "128px";

/** The one badge a row has room for: an update first, then the news. */
function leadBadge(post: LibraryPost, loggedIn: boolean, news: News | undefined) {
  if (loggedIn && post.unlocked && post.downloadStatus === "outdated" && post.userVersion) return <span className="badge badge-update">Update available</span>;
  return <NewsBadge news={news} />;
}

export function PostRow({
  post: listed,
  tiers,
  links,
  loggedIn,
  news,
  back,
  onDownload,
  access,
  downloadedVersion,
  voted,
  kept,
  requirements,
  files,
}: PostEntryProps) {
  const post = withPageDownload(listed, downloadedVersion);
  const titleId = `post-row-${post.postId}-title`;
  return (
    <li className="post-row" data-testid="post-row" data-post-id={post.postId}>
      {post.imageUrl ? (
        <img
          className="post-row-thumb"
          src={post.imageUrl}
          srcSet={imageSrcSet(post.imageUrl)}
          sizes={THUMB_SIZES}
          alt=""
          loading="lazy"
          width={160}
          height={90}
        />
      ) : (
        <div className="post-row-thumb post-image-missing">No preview picture found</div>
      )}
      <div className="post-row-text">
        <div className="post-row-head">
          <h2 id={titleId} className="post-row-title">
            <Link to={postPagePath(post.postId)}>{post.title}</Link>
          </h2>
          <span className="badge badge-version">{post.version}</span>
          {leadBadge(post, loggedIn, news)}
        </div>
        <InspiredBy post={post} voted={voted} />
        <PatchLine post={post} />
        <PostTags post={post} />
        <PostRequirements requirements={requirements} />
        <CardFiles files={files} />
        {post.unlocked ? (
          <OwnedStatus post={post} access={access} />
        ) : (
          <p className="post-status post-status-locked">
            <LockIcon />
            <PostAccess post={post} tiers={tiers} />
          </p>
        )}
        <ReleaseLadder access={access} />
        {post.unlocked ? null : <ReleaseUpcoming access={access} />}
        {post.unlocked ? null : <KeptVersionOffer post={post} kept={kept} back={back} />}
      </div>
      <div className="post-row-action">
        {post.unlocked ? (
          <DownloadForm post={post} back={back} onDownload={onDownload} />
        ) : (
          <LockedActions post={post} tiers={tiers} links={links} action={access?.action} only="primary" />
        )}
      </div>
    </li>
  );
}

/** The list's rows (the library's `library-list` holds them). */
export function PostRows({ entries }: { entries: PostEntryProps[] }) {
  return (
    <>
      {entries.map((entry) => (
        <PostRow key={entry.post.postId} {...entry} />
      ))}
    </>
  );
}
