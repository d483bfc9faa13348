// /library: the catalogue of posts with search, filters, posts per line, the 18+ warning, the
// terms popup before downloads, and (for admins) the post editor. Every form posts here and
// works without JavaScript; with JavaScript, downloads and admin edits happen in place.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Link, useLoaderData, useLocation, useRouteError, type ShouldRevalidateFunction } from "@remix-run/react";
import { useMemo } from "react";
import { firstIssue } from "~/api.server";
import { ErrorPage } from "~/components/error-page";
import type { CacheableHandle } from "~/document-cache.server";
import { LibraryControls } from "~/components/library-controls";
import { AdultWarning, TermsPopup, useNsfwAcceptance } from "~/components/library-gate";
import { CreatePostForm, PostAdminCard } from "~/components/post-admin-card";
import { PostCard } from "~/components/post-card";
import { useLibraryDownload, type DownloadAnswer } from "~/components/use-library-download";
import { env } from "~/env.server";
import { explainLibraryCards, loadLibraryPageViewer } from "~/models/access.server";
import { acceptTerms, authorizeDownload, signedDownloadUrl } from "~/models/download.server";
import { filterLibraryPosts, keptLibraryStamp, listLibraryPosts } from "~/models/library-listing.server";
import { createPost, deletePost, movePostToIndex, setPostEnabled, setPostImage, updatePost } from "~/models/post-admin.server";
import { addPostVersion, makeVersionCurrent, setVersionHidden, storePostVersionFile, versionHistories } from "~/models/post-version.server";
import { getCurrentUser } from "~/models/session.server";
import { listTiers } from "~/models/tier.server";
import libraryStyles from "~/styles/library.css";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { formRefusal } from "~/utils/form-failure.server";
import {
  LIBRARY_MESSAGES,
  parseLibraryFilter,
  parsePostsPerLine,
  parseSetIndex,
  postCreateSchema,
  postFormToInput,
  postUpdateSchema,
} from "~/utils/library-schemas";
import { readUploadedFile, receiveUploadedFile, SELECT_IMAGE_MESSAGE } from "~/utils/upload.server";
import { withParam } from "~/utils/url";
import { VERSION_MESSAGES, VERSION_UPLOAD_FIELDS, versionActionSchema } from "~/utils/version-schemas";
import { hasAcceptedNsfw, nsfwCookie } from "~/utils/visitor-cookies.server";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: libraryStyles }];

export const meta: MetaFunction = () => [{ title: "Library · Creator Library" }];

/**
 * A guest's library depends only on its address and the guest's 18+ answer (a cookie, so shared
 * caches keep one copy per answer: `Vary: Cookie`): a CDN may keep it briefly
 * (app/document-cache.server.ts). Signed-in readers get their own page.
 */
export const handle: CacheableHandle = { guestCacheable: true };

/** Cards rendered per step: a catalogue of 1,000 posts would otherwise hydrate 1,000 cards at once. */
const POSTS_STEP = 48;

function parseShown(value: string | null): number {
  const count = Number(value);
  return Number.isInteger(count) && count > POSTS_STEP ? Math.min(count, 100_000) : POSTS_STEP;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const user = await getCurrentUser(request);
  const loggedIn = user !== null;
  const isAdmin = isEffectiveAdmin(user);
  const adminView = isAdmin && url.searchParams.get("view") !== "user";
  const search = (url.searchParams.get("search") ?? "").slice(0, 200);
  const filter = parseLibraryFilter(url.searchParams.get("filter"), loggedIn);
  const perLine = parsePostsPerLine(url.searchParams.get("perLine"));
  // One round trip for the viewer: the listing's context and the cards' explained viewer.
  const [viewer, tiers] = await Promise.all([loadLibraryPageViewer(user), listTiers()]);
  const allPosts = await listLibraryPosts(user, viewer.context);
  // Admins viewing as a user see what users see: enabled posts only.
  const visible = isAdmin && !adminView ? allPosts.filter((post) => post.enabled) : allPosts;
  const termsParam = url.searchParams.get("terms");
  const config = env();
  const matching = filterLibraryPosts(visible, { search, filter });
  // The post a terms link points at is always among the rendered cards.
  const shown = matching.slice(0, parseShown(url.searchParams.get("show")));
  const termsPost = termsParam ? matching.find((post) => post.postId === termsParam) : undefined;
  if (termsPost && !shown.includes(termsPost)) shown.push(termsPost);
  return json({
    posts: shown,
    access: await explainLibraryCards(user, shown, tiers, viewer.explained),
    versions: await versionHistories(
      shown.map((post) => post.postId),
      { admin: adminView, stamp: keptLibraryStamp() },
    ),
    matching: matching.length,
    total: visible.length,
    tiers,
    search,
    filter,
    perLine,
    isAdmin,
    adminView,
    user: user ? { id: user.id, tosAccepted: user.tosAccepted || isAdmin } : null,
    nsfwAccepted: await hasAcceptedNsfw(request),
    termsPostId: termsParam && visible.some((post) => post.postId === termsParam) ? termsParam : null,
    links: { kofiShopUrl: config.KOFI_SHOP_URL.replace(/\/$/, ""), patreonCreatorUrl: config.PATREON_CREATOR_URL.replace(/\/$/, "") },
    // The minute is enough for the New/Updated badges, and keeps the document the same for a
    // minute when nothing else changed (kept rendered, app/document-cache.server.ts).
    now: new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString(),
  });
}

/** Where to go back to after an action: only library addresses. */
function safeBack(value: unknown): string {
  if (typeof value !== "string" || !/^\/library(\?[^#\s]*)?$/.test(value)) return "/library";
  return value;
}

/** A refused change as the toast on the way back to the library. */
function refused(back: string, error: unknown, failureMessage: string) {
  return redirectWithError(back, formRefusal(error, failureMessage).message);
}

/** Runs one upload of the page: its success message, or the refusal's status and message. */
async function runUpload(request: Request, user: NonNullable<Awaited<ReturnType<typeof getCurrentUser>>>, intent: string | null, postId: string) {
  try {
    if (intent === "upload-image") {
      const file = await readUploadedFile(request, "image", { missingMessage: SELECT_IMAGE_MESSAGE });
      await setPostImage(user, postId, file.bytes);
      return { status: 200, message: "Image uploaded." };
    }
    if (intent === "upload-file") {
      const stored = await receiveUploadedFile(request, "file", { maxBytes: env().POST_FILE_MAX_BYTES, textFields: VERSION_UPLOAD_FIELDS }, (file) => storePostVersionFile(postId, file));
      await addPostVersion(user, stored);
      return { status: 200, message: "File uploaded." };
    }
    return { status: 400, message: LIBRARY_MESSAGES.updateFailed };
  } catch (error) {
    return formRefusal(error, intent === "upload-image" ? LIBRARY_MESSAGES.imageFailed : LIBRARY_MESSAGES.fileUploadFailed);
  }
}

/**
 * File uploads are multipart and streamed: their intent travels in the address. The answer is a
 * redirect with a toast, or JSON with `respond=json` (the post file's upload with a progress bar).
 */
async function uploadAction(request: Request, user: Awaited<ReturnType<typeof getCurrentUser>>) {
  const url = new URL(request.url);
  const back = safeBack(url.searchParams.get("back"));
  const respondJson = url.searchParams.get("respond") === "json";
  const outcome =
    user && isEffectiveAdmin(user)
      ? await runUpload(request, user, url.searchParams.get("intent"), url.searchParams.get("postId") ?? "")
      : { status: 403, message: LIBRARY_MESSAGES.adminOnly };
  const ok = outcome.status < 300;
  if (respondJson) return json(ok ? { message: outcome.message } : { error: outcome.message }, { status: outcome.status });
  return ok ? redirectWithSuccess(back, outcome.message) : redirectWithError(back, outcome.message);
}

/**
 * A download: the terms first (unless accepted, or accepted with this request), then the file's
 * address. Without JavaScript the answer is a redirect (to the terms popup, or to the file);
 * with JavaScript (`respond=json`) it is the address, or the refusal, as JSON.
 */
async function downloadAction(form: FormData, user: Awaited<ReturnType<typeof getCurrentUser>>, back: string) {
  const postId = String(form.get("postId") ?? "");
  const respondJson = form.get("respond") === "json";
  const accepted = form.get("acceptTos") === "true";
  if (!accepted && !(user?.tosAccepted || isEffectiveAdmin(user))) {
    if (respondJson) return json<DownloadAnswer>({ error: LIBRARY_MESSAGES.tosRequired }, { status: 403 });
    return redirect(withParam(back, "terms", postId));
  }
  try {
    if (accepted && user && !user.tosAccepted) await acceptTerms(user, user.id);
    const versionId = String(form.get("versionId") ?? "") || null;
    const post = await authorizeDownload(user ? { ...user, tosAccepted: true } : null, postId, versionId);
    const versionQuery = versionId ? `?version=${encodeURIComponent(versionId)}` : "";
    const downloadUrl = post.paidContent ? `/api/download/${encodeURIComponent(post.id)}${versionQuery}` : signedDownloadUrl(post.id, user?.id ?? null, Date.now(), versionId);
    return respondJson ? json<DownloadAnswer>({ downloadUrl, paid: post.paidContent }) : redirect(downloadUrl);
  } catch (error) {
    const refusal = formRefusal(error, LIBRARY_MESSAGES.freeDownloadFailed);
    if (respondJson) return json<DownloadAnswer>({ error: refusal.message }, { status: refusal.status });
    return redirectWithError(withParam(back, "terms", null), refusal.message);
  }
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await getCurrentUser(request);
  if (request.headers.get("Content-Type")?.startsWith("multipart/form-data")) return uploadAction(request, user);

  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const back = safeBack(form.get("back"));
  const postId = String(form.get("postId") ?? "");

  if (intent === "accept-nsfw") {
    const headers = { "Set-Cookie": await nsfwCookie.serialize(true) };
    return form.get("respond") === "json" ? json({ ok: true }, { headers }) : redirect(back, { headers });
  }
  if (intent === "download") return downloadAction(form, user, back);

  if (!user || !isEffectiveAdmin(user)) return redirectWithError(back, LIBRARY_MESSAGES.adminOnly);

  switch (intent) {
    case "save": {
      const parsed = postUpdateSchema.safeParse(postFormToInput(form));
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await updatePost(user, postId, parsed.data);
        return redirectWithSuccess(back, "Post updated.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.updateFailed);
      }
    }
    case "toggle": {
      try {
        const post = await setPostEnabled(user, postId, form.get("enabled") === "true");
        return redirectWithSuccess(back, post.enabled ? "Post enabled." : "Post disabled.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.toggleFailed);
      }
    }
    case "set-index": {
      const parsed = parseSetIndex(form.get("index"));
      if (!parsed.success) return redirectWithError(back, LIBRARY_MESSAGES.invalidIndex);
      try {
        await movePostToIndex(user, postId, parsed.data.index);
        return redirectWithSuccess(back, "Post order updated.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.orderFailed);
      }
    }
    case "create": {
      const parsed = postCreateSchema.safeParse({ title: form.get("title") ?? "", postId: form.get("postId") ?? "" });
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await createPost(user, parsed.data);
        return redirectWithSuccess(back, "Post created.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.updateFailed);
      }
    }
    case "version-hide":
    case "version-show":
    case "version-current": {
      const parsed = versionActionSchema.safeParse({ postId, versionId: form.get("versionId") ?? "" });
      if (!parsed.success) return redirectWithError(back, VERSION_MESSAGES.versionNotFound);
      try {
        if (intent === "version-current") {
          await makeVersionCurrent(user, parsed.data.postId, parsed.data.versionId);
          return redirectWithSuccess(back, VERSION_MESSAGES.versionMadeCurrent);
        }
        const hidden = intent === "version-hide";
        await setVersionHidden(user, parsed.data.postId, parsed.data.versionId, hidden);
        return redirectWithSuccess(back, hidden ? VERSION_MESSAGES.versionHidden : VERSION_MESSAGES.versionShown);
      } catch (error) {
        return refused(back, error, VERSION_MESSAGES.versionFailed);
      }
    }
    case "delete": {
      try {
        await deletePost(user, postId);
        return redirectWithSuccess(back, "Post deleted.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.updateFailed);
      }
    }
    default:
      return redirectWithError(back, LIBRARY_MESSAGES.updateFailed);
  }
}

/**
 * A JavaScript download or 18+ acceptance changes nothing the page shows (the hook and the gate
 * update their own state), so the catalogue is not reloaded for it. Accepting the terms is: the
 * page learns the server's answer.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) => {
  const intent = formData?.get("intent");
  if (intent === "accept-nsfw") return false;
  if (intent === "download" && formData?.get("acceptTos") !== "true") return false;
  return defaultShouldRevalidate;
};

export default function Library() {
  const data = useLoaderData<typeof loader>();
  const location = useLocation();
  const back = `${location.pathname}${location.search}`;
  const nsfw = useNsfwAcceptance(data.nsfwAccepted);
  const nsfwAccepted = nsfw.accepted;
  const download = useLibraryDownload({ loggedIn: data.user !== null, tosAcceptedOnServer: data.user?.tosAccepted ?? false });
  const termsFor = download.termsFor;
  const now = useMemo(() => new Date(data.now), [data.now]);

  const serverTermsPost = data.termsPostId ? data.posts.find((post) => post.postId === data.termsPostId) ?? null : null;
  const viewToggle = withParam(back, "view", data.adminView ? "user" : null);

  return (
    <div className="library-page">
      {!nsfwAccepted ? <AdultWarning back={back} onAccept={nsfw.accept} /> : null}
      {termsFor ? (
        <TermsPopup postId={termsFor.postId} back={back} guest={!data.user} onAccept={() => download.acceptTermsAndDownload(termsFor)} onCancel={download.cancelTerms} />
      ) : serverTermsPost && nsfwAccepted ? (
        <TermsPopup postId={serverTermsPost.postId} back={withParam(back, "terms", null)} guest={!data.user} />
      ) : null}

      <div className={nsfwAccepted ? "library-content" : "library-content library-blurred"} {...(nsfwAccepted ? {} : { inert: "", "aria-hidden": true })} data-testid="library-content">
        <div className="library-header">
          <h1>Library</h1>
          {data.isAdmin ? (
            <Link className="button-secondary" to={viewToggle} preventScrollReset>
              {data.adminView ? "View as User" : "View as Admin"}
            </Link>
          ) : null}
        </div>

        <LibraryControls search={data.search} filter={data.filter} perLine={data.perLine} loggedIn={data.user !== null} viewAsUser={data.isAdmin && !data.adminView} />

        {data.adminView ? <CreatePostForm back={back} /> : null}

        <p className="muted library-count" aria-live="polite">
          {data.matching} of {data.total} posts
        </p>

        {data.matching === 0 ? (
          <p className="library-empty">No posts match your search.</p>
        ) : (
          <div className="library-grid" style={{ ["--per-line" as string]: data.perLine }} data-per-line={data.perLine} data-testid="library-grid">
            {data.posts.map((post) =>
              data.adminView ? (
                <PostAdminCard key={post.postId} post={post} tiers={data.tiers} back={back} now={now} versions={data.versions[post.postId]} />
              ) : (
                <PostCard key={post.postId} post={post} tiers={data.tiers} links={data.links} loggedIn={data.user !== null} now={now} back={back} onDownload={download.requestDownload} access={data.access[post.postId]} versions={data.versions[post.postId]} />
              ),
            )}
          </div>
        )}
        {data.matching > data.posts.length ? (
          <p className="library-more">
            <Link to={withParam(back, "show", String(data.posts.length + POSTS_STEP))} className="button button-secondary" preventScrollReset>
              Show more posts ({data.posts.length} of {data.matching} shown)
            </Link>
          </p>
        ) : null}
      </div>
      <iframe ref={download.frameRef} title="Download" className="visually-hidden" aria-hidden="true" tabIndex={-1} data-testid="download-frame" />
    </div>
  );
}

/** The library could not be loaded: the spec's message instead of a broken page. */
export function ErrorBoundary() {
  const error = useRouteError();
  console.error(error);
  return <ErrorPage status={500} title={LIBRARY_MESSAGES.loadPostsFailed} message={LIBRARY_MESSAGES.fetchFailed} />;
}
