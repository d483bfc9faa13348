import { Form, Link, useFetcher, useFetchers } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { SubmitButton } from "~/components/form";
import { showToast } from "~/components/toaster";
import { likeLabel } from "~/utils/countdown";
import { IDEA_STATUSES } from "~/utils/inspiration-schemas";
import { GRID_IMAGE_SIZES, imageSrcSet, isLocalImage } from "~/utils/responsive-images";

import type { InspirationPanelView } from "~/models/inspiration.server";

export type InspirationCardPanel = InspirationPanelView;

/** A like or Patreon-like button: posts the wanted state, and shows it at once (optimistic). */
function LikeButton({ panel, kind, disabled }: { panel: InspirationCardPanel; kind: "like" | "patreon-like"; disabled: boolean }) {
  const fetcher = useFetcher<{ ok?: boolean; error?: string }>();
  // Only once hydrated does the form ask to be answered in place (`respond=json`); without JavaScript it redirects back.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.error) showToast({ type: "error", message: fetcher.data.error });
  }, [fetcher.state, fetcher.data]);
  const serverState = kind === "like" ? panel.userHasLiked : panel.userHasPatreonLiked;
  const pending = fetcher.formData?.get("intent") === kind ? fetcher.formData.get("like") === "true" : undefined;
  const liked = pending ?? serverState;
  const label = kind === "like" ? (liked ? "Unlike" : "Like") : liked ? "Remove Patreon Like" : "Patreon Like";
  return (
    <fetcher.Form method="post" action="/inspiration-vote">
      <input type="hidden" name="panelId" value={panel.id} />
      <input type="hidden" name="like" value={String(!liked)} />
      {hydrated ? <input type="hidden" name="respond" value="json" /> : null}
      <button
        type="submit"
        name="intent"
        value={kind}
        className={liked ? "button like-button liked" : "button-secondary like-button"}
        aria-pressed={liked}
        disabled={disabled}
        aria-label={`${label}${panel.title ? `: ${panel.title}` : ""}`}
      >
        <span aria-hidden="true">{kind === "like" ? "♥" : "★"}</span> {label}
      </button>
    </fetcher.Form>
  );
}

/** How many likes a panel shows, including an own like that is still on its way. */
function shownLikes(panel: InspirationCardPanel, fetchers: { like: boolean | undefined; patreon: boolean | undefined }) {
  if (panel.likes === null) return likeLabel(null, fetchers.like ?? panel.userHasLiked);
  let count = panel.likes;
  if (fetchers.like !== undefined && fetchers.like !== panel.userHasLiked) count += fetchers.like ? 1 : -1;
  if (fetchers.patreon !== undefined && fetchers.patreon !== panel.userHasPatreonLiked) count += fetchers.patreon ? 1 : -1;
  return likeLabel(count, false);
}

/**
 * The panel's picture. The heading under it names the card, so the image has an empty alt
 * (read once, and no raw alt text when it fails). An image that fails to load becomes a
 * placeholder; a failure before hydration is caught by checking the element once mounted.
 */
function CardImage({ imageUrl, eager }: { imageUrl: string; eager: boolean }) {
  const [failed, setFailed] = useState(false);
  const image = useRef<HTMLImageElement>(null);
  useEffect(() => {
    const element = image.current;
    if (element?.complete && element.naturalWidth === 0) setFailed(true);
  }, [imageUrl]);
  if (failed) {
    return (
      <div className="inspiration-card-placeholder" data-testid="inspiration-image-placeholder">
        Image not available
      </div>
    );
  }
  return (
    <img
      ref={image}
      src={imageUrl}
      srcSet={isLocalImage(imageUrl) ? imageSrcSet(imageUrl) : undefined}
      sizes={GRID_IMAGE_SIZES}
      alt=""
      loading={eager ? "eager" : "lazy"}
      width={480}
      height={270}
      onError={() => setFailed(true)}
    />
  );
}

export function InspirationPanelCard({
  panel,
  position,
  votingOpen,
  canPatreonLike,
  admin,
  shipped = null,
}: {
  panel: InspirationCardPanel;
  /** The post that realizes this idea, once linked. */
  shipped?: { postId: string; postTitle: string; voters: number; votersGetAccess: boolean } | null;
  position: number;
  votingOpen: boolean;
  canPatreonLike: boolean;
  admin: { editing: boolean; refused: { error: string; values: Record<string, string> } | null } | null;
}) {
  // Pending like states (from any fetcher of this panel) for the optimistic count.
  const likeFetchers = usePendingLikes(panel.id);
  const shown = shownLikes(panel, likeFetchers);
  const name = panel.title ?? `Idea #${position + 1}`;
  return (
    <li className="inspiration-card card" data-testid="inspiration-panel" data-panel-id={panel.id}>
      <CardImage imageUrl={panel.imageUrl} eager={position < 6} />
      <div className="inspiration-card-body">
        <h2 className="inspiration-card-title">{name}</h2>
        {panel.status !== "open" ? (
          <p className={`badge idea-status idea-status-${panel.status}`} data-testid="idea-status">
            {panel.status === "shipped" ? "Shipped" : "Planned"}
          </p>
        ) : null}
        <p className="inspiration-likes" data-testid="like-count">
          <span aria-hidden="true">♥ </span>
          <span className="visually-hidden">Likes: </span>
          {shown}
        </p>
        {panel.status === "shipped" ? (
          // A shipped idea has left the live round: its post instead of a Like.
          shipped ? (
            <p className="idea-shipped-post">
              <Link to={`/library/${encodeURIComponent(shipped.postId)}`}>See the post: {shipped.postTitle}</Link>
            </p>
          ) : null
        ) : (
          <div className="button-row">
            <LikeButton panel={panel} kind="like" disabled={!votingOpen} />
            {canPatreonLike ? <LikeButton panel={panel} kind="patreon-like" disabled={!votingOpen} /> : null}
          </div>
        )}
        {admin ? (
          admin.editing ? (
            <Form method="post" action="/inspiration-vote" className="inspiration-edit" replace>
              <input type="hidden" name="id" value={panel.id} />
              {admin.refused ? (
                <p className="form-error" role="alert">
                  {admin.refused.error}
                </p>
              ) : null}
              <div className="field">
                <label htmlFor={`image-${panel.id}`}>Image URL</label>
                <input id={`image-${panel.id}`} name="imageUrl" type="text" defaultValue={admin.refused?.values.imageUrl ?? panel.imageUrl} required />
              </div>
              <div className="field">
                <label htmlFor={`title-${panel.id}`}>Title</label>
                <input id={`title-${panel.id}`} name="title" type="text" defaultValue={admin.refused?.values.title ?? panel.title ?? ""} />
              </div>
              <div className="field">
                <label htmlFor={`status-${panel.id}`}>Status</label>
                <select id={`status-${panel.id}`} name="status" defaultValue={admin.refused?.values.status ?? panel.status}>
                  {IDEA_STATUSES.map((status) => (
                    <option key={status} value={status}>
                      {status === "open" ? "Open" : status === "planned" ? "Planned" : "Shipped (needs its post linked)"}
                    </option>
                  ))}
                </select>
              </div>
              <div className="button-row">
                <SubmitButton intent="update-panel" pendingLabel="Saving...">
                  Save Changes
                </SubmitButton>
                <Link to="/inspiration-vote" className="button-secondary">
                  Cancel
                </Link>
              </div>
            </Form>
          ) : (
            <>
              <div className="button-row">
                <Link to={`/inspiration-vote?edit=${panel.id}`} className="button-secondary" aria-label={`Edit ${name}`}>
                  Edit
                </Link>
                <Link to={`/inspiration-vote?delete=${panel.id}`} className="button-danger" aria-label={`Delete ${name}`}>
                  Delete
                </Link>
              </div>
              {/* The post that realizes the idea: its voters are kept and told when it opens. */}
              <Form method="post" action="/inspiration-vote" className="inspiration-ship" replace>
                <input type="hidden" name="id" value={panel.id} />
                {shipped ? (
                  <p>
                    Shipped as <Link to={`/library/${encodeURIComponent(shipped.postId)}`}>{shipped.postTitle}</Link> ({shipped.voters}{" "}
                    {shipped.voters === 1 ? "voter" : "voters"})
                  </p>
                ) : (
                  <div className="field">
                    <label htmlFor={`ship-${panel.id}`}>Realized by post (ID or title)</label>
                    <input id={`ship-${panel.id}`} name="post" type="text" maxLength={300} required />
                  </div>
                )}
                <label className="checkbox">
                  <input name="votersGetAccess" type="checkbox" value="true" defaultChecked={shipped?.votersGetAccess ?? false} />
                  Voters get the first step&rsquo;s access whatever their tier
                </label>
                <div className="button-row">
                  {shipped ? (
                    <SubmitButton intent="voter-access" pendingLabel="Saving..." className="button-secondary">
                      Save voter access
                    </SubmitButton>
                  ) : null}
                  <SubmitButton intent={shipped ? "unlink-post" : "link-post"} pendingLabel="Saving...">
                    {shipped ? "Unlink" : "Link to post"}
                  </SubmitButton>
                </div>
              </Form>
            </>
          )
        ) : null}
      </div>
    </li>
  );
}

function usePendingLikes(panelId: string): { like: boolean | undefined; patreon: boolean | undefined } {
  const fetchers = useFetchers();
  let like: boolean | undefined;
  let patreon: boolean | undefined;
  for (const fetcher of fetchers) {
    if (fetcher.formData?.get("panelId") !== panelId) continue;
    const wanted = fetcher.formData.get("like") === "true";
    if (fetcher.formData.get("intent") === "like") like = wanted;
    if (fetcher.formData.get("intent") === "patreon-like") patreon = wanted;
  }
  return { like, patreon };
}
