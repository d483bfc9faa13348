// /library/{postId}: one post's own page, linkable and shareable. It holds what the library card
// holds, unfolded: the download (or the ways in, and what unlocks the post), every version with its
// notes and changelog, and "Verify a file". Link previews (Discord, Tumblr, …) read its Open Graph
// and Twitter tags: the title, the cover, and "Free" or what unlocks the post. A post the viewer
// may not see answers 404, as an unknown id does. Forms post to the library's action and come back
// here, with or without JavaScript. Admins remove an added file from here too (asked at
// `?remove-file=<id>`).
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Link, useLoaderData, useLocation, useRouteError } from "@remix-run/react";
import { ErrorPage, logInBrowser, refusedRequestPage } from "~/components/error-page";
import { KnownIssues, type ReportActionData } from "~/components/known-issues";
import { AdultWarning } from "~/components/adult-warning";
import { useNsfwAcceptance } from "~/components/library-gate";
import { TermsPopup } from "~/components/terms-popup";
import { accessLine } from "~/components/post-access";
import { PatchCompatibility } from "~/components/patch-compatibility";
import { PostCard } from "~/components/post-card";
import { useLibraryDownload } from "~/components/use-library-download";
import { AddVersionFileForm, RemoveFileDialog, VersionFiles } from "~/components/version-files";
import type { CacheableHandle } from "~/document-cache.server";
import { env } from "~/env.server";
import { loadLibraryPageViewer } from "~/models/access.server";
import { addMeToo, BUG_REPORT_MESSAGES, fileBugReport, listKnownIssues, removeMeToo, reportFormFor } from "~/models/bug-report.server";
import { loadPostPage } from "~/models/post-page.server";
import { libraryPageTurnsAt } from "~/models/reader-pages.server";
import { getCurrentUser } from "~/models/session.server";
import { notePageTurnsAt } from "~/request-context.server";
import { redirectWithSuccess } from "~/toast.server";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import libraryStyles from "~/styles/library.css?url";
import { newsOf } from "~/utils/badges";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { LIBRARY_MESSAGES, LIBRARY_PAGE_MESSAGES } from "~/utils/library-words";
import { withParam } from "~/utils/url";
import { hasAcceptedNsfw } from "~/utils/visitor-cookies.server";
import { formInput, parseForm, text } from "~/utils/form-fields";
import { bugReportSchema } from "~/utils/bug-report-schemas";
import { z } from "zod";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: libraryStyles }];

/** Like the library, a guest's page depends only on its address and the 18+ answer. */
export const handle: CacheableHandle = { guestCacheable: true };

export async function loader({ request, params }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const viewer = await loadLibraryPageViewer(request);
  const page = await loadPostPage(viewer, params.postId ?? "");
  if (!page) throw data({ error: LIBRARY_MESSAGES.postNotFound }, { status: 404 });
  const { user } = viewer;
  const config = env();
  const { post } = page;
  const canonical = `${config.APP_URL}/library/${encodeURIComponent(post.postId)}`;
  const admin = isEffectiveAdmin(user);
  // Known issues follow the post's visibility (the page is a 404 before this for a hidden post).
  const [knownIssues, reportForm, turnsAt] = await Promise.all([
    listKnownIssues(user, post.postId),
    reportFormFor(user, post.postId),
    // When this page would read otherwise with no write (a guest's kept page goes stale then).
    libraryPageTurnsAt(viewer.context.libraryStamp, Date.now(), post.postId),
  ]);
  notePageTurnsAt(turnsAt);
  return {
    ...page,
    knownIssues,
    reportForm,
    user: user ? { id: user.id, tosAccepted: user.tosAccepted || isEffectiveAdmin(user) } : null,
    admin,
    // An admin's "Remove this file?" for one of the page's added files.
    removeFileId: admin ? (page.files.find((file) => file.fileId !== null && file.fileId === url.searchParams.get("remove-file"))?.fileId ?? null) : null,
    // Admins are not asked to confirm their age (as on the library).
    nsfwAccepted: isEffectiveAdmin(user) || (await hasAcceptedNsfw(request)),
    termsPostId: url.searchParams.get("terms") === post.postId ? post.postId : null,
    // The file the terms were asked for, when it is one of the page's.
    termsFileId: page.files.find((file) => file.fileId !== null && file.fileId === url.searchParams.get("file"))?.fileId ?? null,
    links: { kofiShopUrl: config.KOFI_SHOP_URL.replace(/\/$/, ""), patreonCreatorUrl: config.PATREON_CREATOR_URL.replace(/\/$/, "") },
    // The New/Updated badge, decided here (as on the library).
    news: newsOf([post], new Date())[post.postId] ?? null,
    preview: { url: canonical, image: post.imageUrl ? `${config.APP_URL}${post.imageUrl}` : null },
  };
}

/** What a form of the post page asks (intent), and the bug report it is about. */
const postFormSchema = z.object({ intent: text, reportId: text });

/**
 * The post page's bug-report forms (docs/product.md#bug-reports): `intent` "report" (title, body,
 * gamePatch), "me-too" or "undo-me-too" (reportId). The same model functions as
 * /api/library/posts/{id}/reports and /api/reports/{id}/me-too. Done: back to the known issues with
 * a toast; refused: the message (and the field's) with the model's status.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await getCurrentUser(request);
  const postId = params.postId ?? "";
  const back = `/library/${encodeURIComponent(postId)}#known-issues`;
  if (!user) throw redirect("/login");
  const form = await readPageForm(request);
  const { intent, reportId } = parseForm(form, postFormSchema);
  try {
    if (intent === "report") {
      // The report as posted: the model checks it with the schema of POST /api/library/posts/{id}/reports.
      await fileBugReport(user, postId, formInput(form, bugReportSchema));
      return redirectWithSuccess(back, BUG_REPORT_MESSAGES.reported, { status: 303 });
    }
    if (intent === "me-too") {
      await addMeToo(user, reportId);
      return redirectWithSuccess(back, BUG_REPORT_MESSAGES.meTooAdded, { status: 303 });
    }
    if (intent === "undo-me-too") {
      await removeMeToo(user, reportId);
      return redirectWithSuccess(back, BUG_REPORT_MESSAGES.meTooRemoved, { status: 303 });
    }
    return data<ReportActionData>({ ok: false, intent, message: "Invalid input." }, { status: 400 });
  } catch (error) {
    const refusal = formRefusal(error, BUG_REPORT_MESSAGES.failed);
    return data<ReportActionData>(
      { ok: false, intent, message: refusal.message, fields: refusal.fields },
      { status: refusal.status, headers: { "Cache-Control": "private, no-store", ...refusal.headers } },
    );
  }
}

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: "Post not found · Creator Library" }];
  const { post, tiers, preview } = data;
  const audience = post.paid_content ? accessLine(post, [...tiers]) : "Free";
  const title = `${post.title} · Creator Library`;
  return [
    { title },
    { name: "description", content: audience },
    { tagName: "link", rel: "canonical", href: preview.url },
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: "Creator Library" },
    { property: "og:title", content: post.title },
    { property: "og:description", content: audience },
    { property: "og:url", content: preview.url },
    ...(preview.image ? [{ property: "og:image", content: preview.image }] : []),
    { name: "twitter:card", content: preview.image ? "summary_large_image" : "summary" },
    { name: "twitter:title", content: post.title },
    { name: "twitter:description", content: audience },
    ...(preview.image ? [{ name: "twitter:image", content: preview.image }] : []),
  ];
};

export default function PostPage() {
  const data = useLoaderData<typeof loader>();
  const location = useLocation();
  const back = `${location.pathname}${location.search}`;
  const nsfw = useNsfwAcceptance(data.nsfwAccepted);
  const download = useLibraryDownload({ loggedIn: data.user !== null, tosAcceptedOnServer: data.user?.tosAccepted ?? false });
  const { post } = data;
  const termsFor = download.termsFor;
  const removing = data.removeFileId ? data.files.find((file) => file.fileId === data.removeFileId) : undefined;
  return (
    <div className="library-page">
      {!nsfw.accepted ? <AdultWarning back={back} onAccept={nsfw.accept} /> : null}
      {termsFor ? (
        <TermsPopup
          postId={termsFor.postId}
          back={back}
          guest={!data.user}
          onAccept={() => download.acceptTermsAndDownload(termsFor)}
          onCancel={download.cancelTerms}
        />
      ) : data.termsPostId && nsfw.accepted ? (
        <TermsPopup postId={data.termsPostId} fileId={data.termsFileId} back={withParam(withParam(back, "terms", null), "file", null)} guest={!data.user} />
      ) : null}
      <div
        className={nsfw.accepted ? "library-content post-page" : "library-content post-page library-blurred"}
        {...(nsfw.accepted ? {} : { inert: "", "aria-hidden": true })}
        data-testid="post-page"
      >
        <p>
          <Link to="/library">← Library</Link>
        </p>
        <PostCard
          page
          post={post}
          tiers={[...data.tiers]}
          links={data.links}
          loggedIn={data.user !== null}
          news={data.news ?? undefined}
          back={back}
          onDownload={download.requestDownload}
          access={data.access}
          versions={data.versions}
          downloadedVersion={download.downloaded[post.postId]}
          voted={data.voted}
          kept={data.kept ?? undefined}
          requirements={data.requirements}
        />
        <VersionFiles
          post={post}
          files={data.files}
          tiers={[...data.tiers]}
          back={back}
          onDownload={download.requestDownload}
          removeHref={data.admin ? (fileId) => withParam(location.pathname, "remove-file", fileId) : undefined}
        />
        {data.admin && data.currentVersionId ? (
          <AddVersionFileForm postId={post.postId} versionId={data.currentVersionId} tiers={[...data.tiers]} back={location.pathname} />
        ) : null}
        {removing?.fileId ? (
          <RemoveFileDialog
            file={{ ...removing, fileId: removing.fileId }}
            version={post.version}
            action="/library"
            cancelTo={location.pathname}
            hidden={{ postId: post.postId, back: location.pathname }}
          />
        ) : null}
        <PatchCompatibility postId={post.postId} versions={data.versions} compatibility={data.compatibility} admin={data.admin} back={back} />
        <KnownIssues postId={post.postId} issues={data.knownIssues} form={data.reportForm} />
      </div>
      <iframe ref={download.frameRef} title="Download" className="visually-hidden" aria-hidden="true" tabIndex={-1} data-testid="download-frame" />
    </div>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const refused = refusedRequestPage(error);
  if (refused) return refused;
  logInBrowser(error);
  return <ErrorPage status={500} title={LIBRARY_PAGE_MESSAGES.loadPostsFailed} message={LIBRARY_PAGE_MESSAGES.fetchFailed} />;
}
