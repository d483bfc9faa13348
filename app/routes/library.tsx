// /library: the catalogue of posts with search, filters, posts per line or a compact list, the 18+ warning, the
// terms popup before downloads, and (for admins) the post editor. Every form posts here and
// works without JavaScript; with JavaScript, downloads and admin edits happen in place. The
// action itself is app/library-actions.server.ts.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useLocation, useRouteError, type ShouldRevalidateFunction } from "@remix-run/react";
import { ErrorPage, logInBrowser, refusedRequestPage, unavailableRoutePage } from "~/components/error-page";
import type { CacheableHandle } from "~/document-cache.server";
import { EmptyLibrary, LibraryControls } from "~/components/library-controls";
import { AdultWarning } from "~/components/adult-warning";
import { useNsfwAcceptance } from "~/components/library-gate";
import { onDemand, ServerDrawn } from "~/components/on-demand";
import { CreatePostForm, PostAdminCards } from "~/components/post-admin-card";
import { PostCard, type PostEntryProps } from "~/components/post-card";
import { PostRows } from "~/components/post-row";
import { TermsPopup } from "~/components/terms-popup";
import { keptOffers } from "~/models/post-page.server";
import { useLibraryDownload } from "~/components/use-library-download";
import { env } from "~/env.server";
import { libraryAction } from "~/library-actions.server";
import { describeLibraryCards, loadLibraryPageViewer } from "~/models/access.server";
import { filterLibraryPosts, isListedPostPublic, listLibraryPosts, patchDayCounts } from "~/models/library-listing.server";
import { versionHistories } from "~/models/post-version-history.server";
import { requirementsForViewer } from "~/models/post-requirements.server";
import { libraryPageTurnsAt } from "~/models/reader-pages.server";
import { notePageTurnsAt } from "~/request-context.server";
import { cardFilesOf } from "~/models/version-files.server";
import { newsOf } from "~/utils/badges";
import { parseTagFilter } from "~/utils/catalog-schemas";
import { listTiersAt } from "~/models/tier.server";
import libraryStyles from "~/styles/library.css?url";
import { isEffectiveAdmin, isPublishedAt } from "~/utils/post-visibility";
import { parseLibraryLayout } from "~/utils/library-layout";
import { patchBanner } from "~/utils/game-patch-words";
import { LIBRARY_PAGE_MESSAGES, parseLibraryFilter, parsePostsPerLine } from "~/utils/library-words";
import { withParam } from "~/utils/url";
import { hasAcceptedNsfw } from "~/utils/visitor-cookies.server";
import { adminUploads } from "~/request-policy.server";

// Admins upload post files and images from the library (the largest: a post file).
export function requestPolicy() {
  return adminUploads("post-file");
}

// What not every visitor's first view runs loads after it (on-demand.tsx): the 18+ warning (once
// per browser), the admins' cards, the compact list and the terms popup. The server draws them as ever, and the browser keeps its copy
// until their code is here (plain links and forms work meanwhile).
const adultWarning = onDemand(import.meta.env.SSR ? AdultWarning : null, () => import("~/components/adult-warning").then((module) => module.AdultWarning));
const adminCards = onDemand(import.meta.env.SSR ? PostAdminCards : null, () => import("~/components/post-admin-card").then((module) => module.PostAdminCards));
const createPost = onDemand(import.meta.env.SSR ? CreatePostForm : null, () => import("~/components/post-admin-card").then((module) => module.CreatePostForm));
const postRows = onDemand(import.meta.env.SSR ? PostRows : null, () => import("~/components/post-row").then((module) => module.PostRows));
const termsPopup = onDemand(import.meta.env.SSR ? TermsPopup : null, () => import("~/components/terms-popup").then((module) => module.TermsPopup));

export const links: LinksFunction = () => [{ rel: "stylesheet", href: libraryStyles }];

export const meta: MetaFunction = () => [{ title: "Library · Creator Library" }];

/**
 * A guest's library depends only on its address and the guest's 18+ answer (a cookie, so shared
 * caches keep one copy per answer: `Vary: Cookie`): a CDN may keep it briefly
 * (app/document-cache.server.ts). Signed-in readers get their own page.
 */
export const handle: CacheableHandle = { guestCacheable: true, keptForReaders: true };

/** Cards rendered per step: a catalogue of 1,000 posts would otherwise hydrate 1,000 cards at once. */
const POSTS_STEP = 48;

function parseShown(value: string | null): number {
  const count = Number(value);
  return Number.isInteger(count) && count > POSTS_STEP ? Math.min(count, 100_000) : POSTS_STEP;
}

/** The posts whose scheduled publication is still ahead at `now`. */
function scheduledPosts(posts: { postId: string; publish_at: string | null }[], now: Date): string[] {
  return posts.filter((post) => !isPublishedAt({ publishAt: post.publish_at ? new Date(post.publish_at) : null }, now)).map((post) => post.postId);
}

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  // First, before any other wait: the root loader's lookup of the user is still reading the
  // cookie then, and this page's viewer joins it (one round trip for both).
  const viewer = await loadLibraryPageViewer(request);
  const { user } = viewer;
  const loggedIn = user !== null;
  const isAdmin = isEffectiveAdmin(user);
  const adminView = isAdmin && url.searchParams.get("view") !== "user";
  const search = (url.searchParams.get("search") ?? "").slice(0, 200);
  const filter = parseLibraryFilter(url.searchParams.get("filter"), loggedIn);
  const tag = parseTagFilter(url.searchParams.get("tag"));
  const perLine = parsePostsPerLine(url.searchParams.get("perLine"));
  // Admins' cards lead to each post's editor: the compact list is the user view's.
  const layout = adminView ? "grid" : parseLibraryLayout(url.searchParams.get("layout"));
  // The viewer's library version says whether the tiers kept from an earlier request are current.
  const tiers = await listTiersAt(viewer.context.libraryStamp);
  const listing = await listLibraryPosts(user, viewer);
  const allPosts = listing.posts;
  // Admins viewing as a user see what users see: posts shown to everyone only.
  const visible = isAdmin && !adminView ? allPosts.filter((post) => isListedPostPublic(post)) : allPosts;
  const termsParam = url.searchParams.get("terms");
  const config = env();
  const matching = filterLibraryPosts(visible, { search, filter, tag });
  // The tags to filter by: those on posts this viewer sees, by name.
  const tagChoices = [...new Map(visible.flatMap((post) => post.tags.map((item) => [item.slug, item] as const))).values()].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  // The post a terms link points at is always among the rendered cards.
  const shown = matching.slice(0, parseShown(url.searchParams.get("show")));
  const termsPost = termsParam ? matching.find((post) => post.postId === termsParam) : undefined;
  if (termsPost && !shown.includes(termsPost)) shown.push(termsPost);
  // Locked posts whose versions a lapsed member keeps (docs/product.md#keep-what-you-downloaded).
  const kept = await keptOffers(viewer, shown, tiers);
  // Which shown posts realize an idea this user voted for ("Inspired by your vote").
  const voted = shown.filter((post) => viewer.context.votedPostIds.has(post.postId)).map((post) => post.postId);
  // When this page would read otherwise with no write (a reader's kept page goes stale then).
  notePageTurnsAt(await libraryPageTurnsAt(listing.stamp, listing.now.getTime()));
  // Plain data (single fetch): a json() answer was stringified and parsed again per view.
  return {
    // The listing's per-file list stays on the server: a card shows its words (`files`).
    posts: shown.map(({ files: _files, ...post }) => post),
    votedPostIds: voted,
    kept,
    access: describeLibraryCards(listing, shown, tiers),
    // What each shown post requires, in this viewer's words; required posts are looked up among
    // those this page lists (an admin's user view: public ones only).
    requirements: await requirementsForViewer(listing, shown, visible, tiers),
    // The current version's added files of each shown post that has some, in this viewer's words
    // (admins' cards lead to the editor, which lists them).
    files: adminView ? {} : cardFilesOf(listing, shown, tiers),
    // The cards' version histories (admins edit versions on the post's editor).
    versions: adminView
      ? {}
      : await versionHistories(
          shown.map((post) => post.postId),
          // At this request's library version, as the listing: the newest this process read may
          // be an older request's (docs/decisions/025-kept-reader-pages.md).
          { admin: false, stamp: viewer.context.libraryStamp },
        ),
    // Posts still waiting for their publication, by the same clock and rule as the listing that
    // hides them from everyone else (not the minute below: a post published now is published).
    scheduledPostIds: adminView ? scheduledPosts(shown, new Date()) : [],
    matching: matching.length,
    total: visible.length,
    // Patch day: how many of the viewer's posts are confirmed on the current game patch (null: none is current).
    patchDay: patchDayCounts(visible),
    tiers: [...tiers],
    search,
    filter,
    tag,
    tags: tagChoices,
    perLine,
    layout,
    isAdmin,
    adminView,
    user: user ? { id: user.id, tosAccepted: user.tosAccepted || isAdmin } : null,
    // Admins run the library: they are not asked to confirm their age for it (in no session).
    nsfwAccepted: isAdmin || (await hasAcceptedNsfw(request)),
    termsPostId: termsParam && visible.some((post) => post.postId === termsParam) ? termsParam : null,
    links: { kofiShopUrl: config.KOFI_SHOP_URL.replace(/\/$/, ""), patreonCreatorUrl: config.PATREON_CREATOR_URL.replace(/\/$/, "") },
    // The New/Updated badges, decided here: the data (and so the kept document) change when a
    // badge does, not with the clock (docs/decisions/027-pages-change-when-they-do.md).
    news: newsOf(shown, listing.now),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  return libraryAction(request);
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
  // What a post's card and its list row share.
  const entryProps = (post: (typeof data.posts)[number]): PostEntryProps => ({
    post,
    tiers: data.tiers,
    links: data.links,
    loggedIn: data.user !== null,
    news: data.news[post.postId],
    back,
    onDownload: download.requestDownload,
    access: data.access[post.postId],
    downloadedVersion: download.downloaded[post.postId],
    voted: data.votedPostIds.includes(post.postId),
    kept: data.kept[post.postId],
    requirements: data.requirements[post.postId],
    files: data.files[post.postId],
  });

  const serverTermsPost = data.termsPostId ? (data.posts.find((post) => post.postId === data.termsPostId) ?? null) : null;
  const viewToggle = withParam(back, "view", data.adminView ? "user" : null);
  const gridAttributes = {
    className: "library-grid",
    style: { ["--per-line" as string]: data.perLine },
    "data-per-line": data.perLine,
    "data-testid": "library-grid",
  };

  return (
    <div className="library-page">
      {!nsfwAccepted ? (
        <ServerDrawn
          part={adultWarning}
          wanted
          props={{ back, onAccept: nsfw.accept }}
          // Accepted in place even before the dialog's code is here: its form, still the
          // server's, submits through this holder (the dialog's own handler, once loaded, goes first).
          onSubmit={(event) => {
            if (event.defaultPrevented) return;
            event.preventDefault();
            nsfw.accept();
          }}
        />
      ) : null}
      {termsFor ? (
        <ServerDrawn
          part={termsPopup}
          wanted
          props={{
            postId: termsFor.postId,
            back,
            guest: !data.user,
            onAccept: () => download.acceptTermsAndDownload(termsFor),
            onCancel: download.cancelTerms,
          }}
        />
      ) : serverTermsPost && nsfwAccepted ? (
        <ServerDrawn part={termsPopup} wanted props={{ postId: serverTermsPost.postId, back: withParam(back, "terms", null), guest: !data.user }} />
      ) : null}

      <div
        className={nsfwAccepted ? "library-content" : "library-content library-blurred"}
        {...(nsfwAccepted ? {} : { inert: "", "aria-hidden": true })}
        data-testid="library-content"
      >
        <div className="library-header">
          <h1>Library</h1>
          {data.isAdmin ? (
            <div className="button-row">
              {data.adminView ? (
                <Link className="button-secondary" to="/admin/posts">
                  Post table
                </Link>
              ) : null}
              <Link className="button-secondary" to={viewToggle} preventScrollReset>
                {data.adminView ? "View as User" : "View as Admin"}
              </Link>
            </div>
          ) : null}
        </div>

        <LibraryControls
          search={data.search}
          filter={data.filter}
          perLine={data.perLine}
          layout={data.layout}
          showLayout={!data.adminView}
          loggedIn={data.user !== null}
          viewAsUser={data.isAdmin && !data.adminView}
          patchDay={data.patchDay !== null}
          tag={data.tag}
          tags={data.tags}
        />

        {data.patchDay ? (
          <p className="patch-banner" data-testid="patch-banner">
            {patchBanner(data.patchDay.confirmed, data.patchDay.total, data.patchDay.patch)}
            {data.patchDay.confirmed < data.patchDay.total ? (
              <>
                {" "}
                <Link to={withParam(withParam(back, "filter", "unconfirmed"), "show", null)} preventScrollReset>
                  Show the ones not confirmed
                </Link>
              </>
            ) : null}
          </p>
        ) : null}

        {data.adminView ? <ServerDrawn part={createPost} wanted props={{ back }} /> : null}

        <p className="muted library-count" aria-live="polite">
          {data.matching} of {data.total} posts
        </p>

        {data.matching === 0 ? (
          <EmptyLibrary
            search={data.search}
            filter={data.filter}
            back={back}
            tag={data.tag === null ? null : (data.tags.find((choice) => choice.slug === data.tag)?.name ?? data.tag)}
          />
        ) : data.layout === "list" ? (
          <ServerDrawn
            as="ul"
            className="library-list"
            data-testid="library-list"
            part={postRows}
            wanted
            props={{ entries: data.posts.map(entryProps) }}
            // A row's Download before the rows' code is here: in place, as a loaded row does (its
            // form, still the server's, submits through this list; a loaded row's handler goes first).
            onSubmit={(event) => {
              if (event.defaultPrevented) return;
              const form = new FormData(event.target as HTMLFormElement);
              const post =
                form.get("intent") === "download" && !form.has("versionId") ? data.posts.find((item) => item.postId === form.get("postId")) : undefined;
              if (!post) return;
              event.preventDefault();
              download.requestDownload(post);
            }}
          />
        ) : data.adminView ? (
          <ServerDrawn
            {...gridAttributes}
            part={adminCards}
            wanted
            props={{ posts: data.posts, tiers: data.tiers, back, news: data.news, scheduledPostIds: data.scheduledPostIds }}
          />
        ) : (
          <div {...gridAttributes}>
            {data.posts.map((post) => (
              <PostCard key={post.postId} {...entryProps(post)} versions={data.versions[post.postId]} />
            ))}
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
  const refused = refusedRequestPage(error) ?? unavailableRoutePage(error, LIBRARY_PAGE_MESSAGES.loadPostsFailed, LIBRARY_PAGE_MESSAGES.fetchFailed);
  if (refused) return refused;
  logInBrowser(error);
  return <ErrorPage status={500} title={LIBRARY_PAGE_MESSAGES.loadPostsFailed} message={LIBRARY_PAGE_MESSAGES.fetchFailed} />;
}
