// /library: the catalogue of posts with search, filters, posts per line, the 18+ warning, the
// terms popup before downloads, and (for admins) the post editor. Every form posts here and
// works without JavaScript; with JavaScript, downloads and admin edits happen in place.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useRouteError, useSubmit } from "@remix-run/react";
import { ErrorPage } from "~/components/error-page";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { firstIssue } from "~/api.server";
import { AdultWarning, NSFW_COOKIE, nsfwAcceptedLocally, rememberNsfwAccepted, TermsPopup } from "~/components/library-gate";
import { CreatePostForm, PostAdminCard } from "~/components/post-admin-card";
import { PostCard } from "~/components/post-card";
import { showToast } from "~/components/toaster";
import { env } from "~/env.server";
import { explainLibraryCards } from "~/models/access.server";
import { acceptTerms, authorizeDownload, signedDownloadUrl } from "~/models/download.server";
import {
  createPost,
  deletePost,
  filterLibraryPosts,
  listLibraryPosts,
  movePostToIndex,
  setPostEnabled,
  setPostImage,
  updatePost,
  uploadPostFile,
  type LibraryPost,
} from "~/models/post.server";
import { getCurrentUser } from "~/models/session.server";
import { listTiers } from "~/models/tier.server";
import libraryStyles from "~/styles/library.css";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import {
  DOWNLOAD_MESSAGE_DELAY_MS,
  LIBRARY_FILTERS,
  LIBRARY_MESSAGES,
  parseLibraryFilter,
  parsePostsPerLine,
  parseSetIndex,
  postCreateSchema,
  postFormToInput,
  postUpdateSchema,
  POSTS_PER_LINE,
  USER_ONLY_FILTERS,
  type LibraryFilter,
} from "~/utils/library-schemas";
import { readUploadedFile } from "~/utils/upload.server";
import { isEffectiveAdmin } from "~/utils/entitlement";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: libraryStyles }];

export const meta: MetaFunction = () => [{ title: "Library · Creator Library" }];

const FILTER_LABELS: Record<LibraryFilter, string> = {
  all: "All",
  unlocked: "Unlocked",
  locked: "Locked",
  patreon: "Patreon",
  outdated: "Outdated",
  never: "Never downloaded",
};

/** Cards rendered per step: a catalogue of 1,000 posts would otherwise hydrate 1,000 cards at once. */
const POSTS_STEP = 48;

function parseShown(value: string | null): number {
  const count = Number(value);
  return Number.isInteger(count) && count > POSTS_STEP ? Math.min(count, 100_000) : POSTS_STEP;
}

function hasCookie(request: Request, name: string, value: string): boolean {
  return (request.headers.get("Cookie") ?? "").split(/;\s*/).includes(`${name}=${value}`);
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
  const [allPosts, tiers] = await Promise.all([listLibraryPosts(user), listTiers()]);
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
    access: await explainLibraryCards(user, shown, tiers),
    matching: matching.length,
    total: visible.length,
    tiers,
    search,
    filter,
    perLine,
    isAdmin,
    adminView,
    user: user ? { id: user.id, tosAccepted: user.tosAccepted || isAdmin } : null,
    nsfwAccepted: hasCookie(request, NSFW_COOKIE, "true"),
    termsPostId: termsParam && visible.some((post) => post.postId === termsParam) ? termsParam : null,
    links: { kofiShopUrl: config.KOFI_SHOP_URL.replace(/\/$/, ""), patreonCreatorUrl: config.PATREON_CREATOR_URL.replace(/\/$/, "") },
    now: new Date().toISOString(),
  });
}

/** Where to go back to after an action: only library addresses. */
function safeBack(value: unknown): string {
  if (typeof value !== "string" || !/^\/library(\?[^#\s]*)?$/.test(value)) return "/library";
  return value;
}

function withParam(back: string, name: string, value: string | null): string {
  const url = new URL(back, "http://local");
  if (value === null) url.searchParams.delete(name);
  else url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
}

/** The error text a model failure carries (a JSON Response), or the operation's message. */
async function failureMessage(error: unknown, fallback: string): Promise<string> {
  if (error instanceof Response) {
    try {
      const body = (await error.clone().json()) as { error?: unknown };
      if (typeof body.error === "string") return body.error;
    } catch {
      // Not JSON: use the operation's message.
    }
    return fallback;
  }
  console.error(fallback, error);
  return fallback;
}

export async function action({ request }: ActionFunctionArgs) {
  const url = new URL(request.url);
  const user = await getCurrentUser(request);
  const isAdmin = isEffectiveAdmin(user);

  // File uploads are multipart and streamed: their intent travels in the address.
  if (request.headers.get("Content-Type")?.startsWith("multipart/form-data")) {
    const back = safeBack(url.searchParams.get("back"));
    const intent = url.searchParams.get("intent");
    const postId = url.searchParams.get("postId") ?? "";
    if (!user || !isAdmin) return redirectWithError(back, LIBRARY_MESSAGES.adminOnly);
    if (intent === "upload-image") {
      try {
        const file = await readUploadedFile(request, "image", { missingMessage: "Please choose an image (png, jpg or jpeg)." });
        await setPostImage(user, postId, file.bytes);
        return redirectWithSuccess(back, "Image uploaded.");
      } catch (error) {
        return redirectWithError(back, await failureMessage(error, LIBRARY_MESSAGES.imageFailed));
      }
    }
    if (intent === "upload-file") {
      try {
        await uploadPostFile(user, postId, request, env().POST_FILE_MAX_BYTES);
        return redirectWithSuccess(back, "File uploaded.");
      } catch (error) {
        return redirectWithError(back, await failureMessage(error, LIBRARY_MESSAGES.fileUploadFailed));
      }
    }
    return redirectWithError(back, LIBRARY_MESSAGES.updateFailed);
  }

  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const back = safeBack(form.get("back"));
  const postId = String(form.get("postId") ?? "");

  if (intent === "accept-nsfw") {
    return redirect(back, { headers: { "Set-Cookie": `${NSFW_COOKIE}=true; Path=/; Max-Age=31536000; SameSite=Lax` } });
  }

  if (intent === "download") {
    // Without JavaScript: the terms popup first (unless accepted), then the file itself.
    const accepted = form.get("acceptTos") === "true";
    if (!accepted && !(user?.tosAccepted || isAdmin)) return redirect(withParam(back, "terms", postId));
    try {
      if (accepted && user && !user.tosAccepted) await acceptTerms(user, user.id);
      const post = await authorizeDownload(user ? { ...user, tosAccepted: true } : null, postId);
      if (!post.paidContent) return redirect(signedDownloadUrl(post.id, user?.id ?? null));
      return redirect(`/api/download/${encodeURIComponent(post.id)}`);
    } catch (error) {
      return redirectWithError(withParam(back, "terms", null), await failureMessage(error, LIBRARY_MESSAGES.freeDownloadFailed));
    }
  }

  if (!user || !isAdmin) return redirectWithError(back, LIBRARY_MESSAGES.adminOnly);

  switch (intent) {
    case "save": {
      const parsed = postUpdateSchema.safeParse(postFormToInput(form));
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await updatePost(user, postId, parsed.data);
        return redirectWithSuccess(back, "Post updated.");
      } catch (error) {
        return redirectWithError(back, await failureMessage(error, LIBRARY_MESSAGES.updateFailed));
      }
    }
    case "toggle": {
      try {
        const post = await setPostEnabled(user, postId, form.get("enabled") === "true");
        return redirectWithSuccess(back, post.enabled ? "Post enabled." : "Post disabled.");
      } catch (error) {
        return redirectWithError(back, await failureMessage(error, LIBRARY_MESSAGES.toggleFailed));
      }
    }
    case "set-index": {
      const parsed = parseSetIndex(form.get("index"));
      if (!parsed.success) return redirectWithError(back, LIBRARY_MESSAGES.invalidIndex);
      try {
        await movePostToIndex(user, postId, parsed.data.index);
        return redirectWithSuccess(back, "Post order updated.");
      } catch (error) {
        return redirectWithError(back, await failureMessage(error, LIBRARY_MESSAGES.orderFailed));
      }
    }
    case "create": {
      const parsed = postCreateSchema.safeParse({ title: form.get("title") ?? "", postId: form.get("postId") ?? "" });
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await createPost(user, parsed.data);
        return redirectWithSuccess(back, "Post created.");
      } catch (error) {
        return redirectWithError(back, await failureMessage(error, LIBRARY_MESSAGES.updateFailed));
      }
    }
    case "delete": {
      try {
        await deletePost(user, postId);
        return redirectWithSuccess(back, "Post deleted.");
      } catch (error) {
        return redirectWithError(back, await failureMessage(error, LIBRARY_MESSAGES.updateFailed));
      }
    }
    default:
      return redirectWithError(back, LIBRARY_MESSAGES.updateFailed);
  }
}

const GUEST_TOS_KEY = "tosAcceptedForSession";

function guestAcceptedThisSession(): boolean {
  try {
    return sessionStorage.getItem(GUEST_TOS_KEY) === "true";
  } catch {
    return false;
  }
}

/** Starts a download: free posts open their signed address in a new tab, paid ones load in a hidden frame. */
async function startDownload(post: LibraryPost, frame: HTMLIFrameElement | null) {
  showToast({ type: "info", message: LIBRARY_MESSAGES.downloadStarting });
  if (!post.paid_content) {
    let downloadUrl: string | undefined;
    try {
      const response = await fetch(`/api/download/freedownload/${encodeURIComponent(post.postId)}`, { credentials: "include" });
      const body = (await response.json().catch(() => ({}))) as { downloadUrl?: string; error?: string };
      if (!response.ok || !body.downloadUrl) {
        showToast({ type: "error", message: body.error ?? LIBRARY_MESSAGES.freeDownloadFailed });
        return;
      }
      downloadUrl = body.downloadUrl;
    } catch {
      showToast({ type: "error", message: LIBRARY_MESSAGES.freeDownloadFailed });
      return;
    }
    const tab = window.open(downloadUrl, "_blank");
    if (tab) tab.opener = null;
    else if (frame) frame.src = downloadUrl; // Pop-up blocked: download in place.
  } else if (frame) {
    const address = `/api/download/${encodeURIComponent(post.postId)}`;
    // A locked or missing file answers JSON, which a hidden frame would swallow: ask first.
    try {
      const check = await fetch(address, { method: "HEAD", credentials: "include" });
      if (!check.ok) {
        const answer = await fetch(address, { credentials: "include" });
        const body = (await answer.json().catch(() => ({}))) as { error?: string };
        showToast({ type: "error", message: body.error ?? LIBRARY_MESSAGES.fetchFailed });
        return;
      }
    } catch {
      showToast({ type: "error", message: LIBRARY_MESSAGES.fetchFailed });
      return;
    }
    frame.src = `${address}?at=${Date.now()}`;
  }
  window.setTimeout(() => showToast({ type: "success", message: LIBRARY_MESSAGES.downloadStarted }), DOWNLOAD_MESSAGE_DELAY_MS);
}

export default function Library() {
  const data = useLoaderData<typeof loader>();
  const location = useLocation();
  const submit = useSubmit();
  const back = `${location.pathname}${location.search}`;
  const [nsfwAccepted, setNsfwAccepted] = useState(data.nsfwAccepted);
  const [tosAccepted, setTosAccepted] = useState(data.user?.tosAccepted ?? false);
  const [termsFor, setTermsFor] = useState<LibraryPost | null>(null);
  const [filtersOpen, setFiltersOpen] = useState(data.filter !== "all");
  const frameRef = useRef<HTMLIFrameElement>(null);
  const searchTimer = useRef<number>();
  const now = useMemo(() => new Date(data.now), [data.now]);

  useEffect(() => {
    if (!data.nsfwAccepted && nsfwAcceptedLocally()) {
      // Accepted before in this browser: also set the cookie, so the next page render is clear.
      rememberNsfwAccepted();
      setNsfwAccepted(true);
    }
  }, [data.nsfwAccepted]);
  useEffect(() => setTosAccepted(data.user?.tosAccepted ?? false), [data.user?.tosAccepted]);

  const onDownload = useCallback(
    (post: LibraryPost) => {
      const needsTerms = data.user ? !tosAccepted : !guestAcceptedThisSession();
      if (needsTerms) setTermsFor(post);
      else void startDownload(post, frameRef.current);
    },
    [data.user, tosAccepted],
  );

  async function acceptTermsAndDownload(post: LibraryPost) {
    setTermsFor(null);
    if (data.user) {
      try {
        const response = await fetch(`/api/library/accept-tos/${encodeURIComponent(data.user.id)}`, {
          method: "POST",
          credentials: "include",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ tosAccepted: true }),
        });
        if (!response.ok) {
          const body = (await response.json().catch(() => ({}))) as { error?: string };
          showToast({ type: "error", message: body.error ?? LIBRARY_MESSAGES.tosFailed });
          return;
        }
        setTosAccepted(true);
      } catch {
        showToast({ type: "error", message: LIBRARY_MESSAGES.tosFailed });
        return;
      }
    } else {
      try {
        sessionStorage.setItem(GUEST_TOS_KEY, "true");
      } catch {
        // Remembered for this page only.
      }
      showToast({ type: "info", message: LIBRARY_MESSAGES.guestTos });
    }
    await startDownload(post, frameRef.current);
  }

  const serverTermsPost = data.termsPostId ? data.posts.find((post) => post.postId === data.termsPostId) ?? null : null;
  const filters = LIBRARY_FILTERS.filter((filter) => data.user || !USER_ONLY_FILTERS.includes(filter));
  const viewToggle = withViewParam(back, data.adminView ? "user" : null);

  return (
    <div className="library-page">
      {!nsfwAccepted ? <AdultWarning back={back} onAccept={() => setNsfwAccepted(true)} /> : null}
      {termsFor ? (
        <TermsPopup postId={termsFor.postId} back={back} guest={!data.user} onAccept={() => void acceptTermsAndDownload(termsFor)} onCancel={() => setTermsFor(null)} />
      ) : serverTermsPost && nsfwAccepted ? (
        <TermsPopup postId={serverTermsPost.postId} back={withoutParam(back, "terms")} guest={!data.user} />
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

        <Form
          method="get"
          action="/library"
          className="library-controls"
          role="search"
          onChange={(event) => {
            const form = event.currentTarget;
            const fromSearch = (event.target as HTMLElement).getAttribute("name") === "search";
            window.clearTimeout(searchTimer.current);
            searchTimer.current = window.setTimeout(() => submit(form, { replace: true, preventScrollReset: true }), fromSearch ? 300 : 0);
          }}
        >
          {data.adminView ? null : data.isAdmin ? <input type="hidden" name="view" value="user" /> : null}
          <div className="field library-search">
            <label htmlFor="library-search">Search by title</label>
            <input id="library-search" type="search" name="search" defaultValue={data.search} placeholder="Search posts..." />
          </div>
          <details className="library-filters" open={filtersOpen} onToggle={(event) => setFiltersOpen(event.currentTarget.open)}>
            <summary>Filters</summary>
            <fieldset>
              <legend className="visually-hidden">Show</legend>
              {filters.map((filter) => (
                <label key={filter} className="checkbox">
                  <input type="radio" name="filter" value={filter} defaultChecked={data.filter === filter} /> {FILTER_LABELS[filter]}
                </label>
              ))}
            </fieldset>
          </details>
          <div className="field library-per-line">
            <label htmlFor="library-per-line">Posts per line</label>
            <select id="library-per-line" name="perLine" defaultValue={String(data.perLine)}>
              {POSTS_PER_LINE.map((count) => (
                <option key={count} value={count}>
                  {count}
                </option>
              ))}
            </select>
          </div>
          <noscript>
            <button type="submit" className="button">
              Apply
            </button>
          </noscript>
        </Form>

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
                <PostAdminCard key={post.postId} post={post} tiers={data.tiers} back={back} now={now} />
              ) : (
                <PostCard key={post.postId} post={post} tiers={data.tiers} links={data.links} loggedIn={data.user !== null} now={now} back={back} onDownload={onDownload} access={data.access[post.postId]} />
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
      <iframe ref={frameRef} title="Download" className="visually-hidden" aria-hidden="true" tabIndex={-1} data-testid="download-frame" />
    </div>
  );
}

/** The current address with `view` set (or removed). */
function withViewParam(back: string, view: string | null): string {
  const url = new URL(back, "http://local");
  if (view === null) url.searchParams.delete("view");
  else url.searchParams.set("view", view);
  return `${url.pathname}${url.search}`;
}

function withoutParam(back: string, name: string): string {
  const url = new URL(back, "http://local");
  url.searchParams.delete(name);
  return `${url.pathname}${url.search}`;
}

/** The library could not be loaded: the spec's message instead of a broken page. */
export function ErrorBoundary() {
  const error = useRouteError();
  console.error(error);
  return <ErrorPage status={500} title={LIBRARY_MESSAGES.loadPostsFailed} message={LIBRARY_MESSAGES.fetchFailed} />;
}
