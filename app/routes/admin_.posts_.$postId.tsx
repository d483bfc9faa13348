// /admin/posts/{postId}: one post's editor (docs/product.md#the-post-editor). Its state (draft →
// scheduled → published, or disabled) with its own actions, the details with one Save, the
// release plan, the image, file and versions (with the current version's added files, each with
// a Remove), the library position and delete (removing a file and deleting the post ask on a
// confirmation page without JavaScript, a dialog with it). Every form posts here, calls the model function the
// /api routes call (postEditAction) and comes back to this post. Effective admins only.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useFetcher, useLoaderData, useRouteError } from "@remix-run/react";
import { useMemo } from "react";
import { AdminVersionHistory } from "~/components/admin/version-admin";
import { PostDetailsForm, PostFileUpload, PostImageUpload } from "~/components/admin/post-editor";
import { ReleaseSection } from "~/components/admin/release-admin";
import { ConfirmDialog } from "~/components/confirm-dialog";
import { ErrorPage, logInBrowser, refusedRequestPage } from "~/components/error-page";
import { AddedFilesList, AddVersionFileForm, RemoveFileDialog } from "~/components/version-files";
import { PostImage } from "~/components/post-card";
import { postEditAction, uploadAction } from "~/library-actions.server";
import { DomainError } from "~/models/errors";
import { loadPostEditor } from "~/models/post-table.server";
import { adminUploads } from "~/request-policy.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css?url";
import libraryStyles from "~/styles/library.css?url";
import { formatDayTime } from "~/utils/dates";
import { formatFileSize } from "~/utils/file-size";
import { LIBRARY_MESSAGES } from "~/utils/library-words";
import { personalPageHeaders } from "~/utils/page-headers";
import { readPageForm } from "~/utils/page-form.server";
import { POST_STATUS_WORDS, type PostState } from "~/utils/post-table-words";

// The post's file and image are uploaded here (the largest: a post file).
export function requestPolicy() {
  return adminUploads("post-file");
}

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: libraryStyles },
  { rel: "stylesheet", href: adminStyles },
];

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.post.title ?? "Post"} · Posts · Admin · Creator Library` }];

export const headers = personalPageHeaders;

function editorPath(postId: string): string {
  return `/admin/posts/${encodeURIComponent(postId)}`;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const postId = params.postId ?? "";
  try {
    const editor = await loadPostEditor(admin, postId);
    const url = new URL(request.url);
    return data(
      {
        ...editor,
        confirmDelete: url.searchParams.has("delete"),
        removeFile: editor.files.find((file) => file.fileId === url.searchParams.get("remove-file")) ?? null,
        now: new Date().toISOString(),
      },
      { headers: { "Cache-Control": "private, no-store" } },
    );
  } catch (error) {
    if (error instanceof DomainError && error.status === 404) throw data({ error: LIBRARY_MESSAGES.postNotFound }, { status: 404 });
    throw error;
  }
}

export async function action({ request, params }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  if (request.headers.get("Content-Type")?.startsWith("multipart/form-data")) return uploadAction(request, admin);
  const form = await readPageForm(request);
  // Always this post, and back to it (a delete goes on to the table).
  const postId = params.postId ?? "";
  form.set("postId", postId);
  return postEditAction(admin, form, editorPath(postId));
}

const STATE_STEPS: PostState[] = ["draft", "scheduled", "published"];

/** Where the post is: draft → scheduled → published (or disabled), with its warnings. */
function StateSection({ data, action }: { data: ReturnType<typeof useLoaderData<typeof loader>>; action: string }) {
  const toggle = useFetcher();
  const { post, state } = data;
  const scheduledFor = data.scheduled && post.publish_at ? ` for ${formatDayTime(post.publish_at)}` : "";
  return (
    <section className="card post-editor-state" aria-labelledby="post-state-title">
      <h2 id="post-state-title">State</h2>
      <p className="post-state-now">
        <span className={`badge post-state post-state-${state}`} data-testid="post-state">
          {POST_STATUS_WORDS[state]}
          {state === "scheduled" ? scheduledFor : ""}
        </span>
        {data.paidWithoutTier ? <span className="badge admin-badge-danger">{POST_STATUS_WORDS["paid-no-tier"]}</span> : null}
        {data.outdated ? <span className="badge">{POST_STATUS_WORDS.outdated}</span> : null}
      </p>
      <ol className="post-state-steps" aria-label="From draft to published">
        {STATE_STEPS.map((step) => (
          <li key={step} aria-current={step === state ? "step" : undefined} className={step === state ? "post-state-step-current" : undefined}>
            {POST_STATUS_WORDS[step]}
          </li>
        ))}
      </ol>
      <p className="muted">
        {state === "draft"
          ? "No file yet: upload it below. Until then the post is listed with nothing to download."
          : state === "disabled"
            ? "Disabled: only admins see it. Enable it to show it again."
            : state === "scheduled"
              ? "Only admins see it until then."
              : "Everyone its tiers and steps allow sees it."}
      </p>
      <div className="button-row">
        <toggle.Form method="post" action={action} preventScrollReset>
          <input type="hidden" name="intent" value="toggle" />
          <input type="hidden" name="enabled" value={post.enabled ? "false" : "true"} />
          <button type="submit" className="button-secondary" disabled={toggle.state !== "idle"}>
            {post.enabled ? "Disable (unpublish)" : "Enable"}
          </button>
        </toggle.Form>
        <Link to={`/library/${encodeURIComponent(post.postId)}`} className="button-secondary">
          View its page
        </Link>
      </div>
    </section>
  );
}

export default function PostEditor() {
  const data = useLoaderData<typeof loader>();
  const { post } = data;
  const action = editorPath(post.postId);
  const now = useMemo(() => new Date(data.now), [data.now]);
  const order = useFetcher();
  const currentVersionId = data.versions.find((version) => version.current)?.id ?? null;
  return (
    <div className="admin-page stack post-editor" data-testid="post-editor" data-post-id={post.postId}>
      <p>
        <Link to="/admin/posts">Back to all posts</Link>
      </p>
      <div className="post-editor-head">
        <h1>{post.title}</h1>
        <p className="muted">
          Post ID <span className="admin-mono">{post.postId}</span>
          {post.fileSize !== null ? ` · ${post.version} · ${formatFileSize(post.fileSize)}` : " · no file yet"}
        </p>
      </div>

      <StateSection data={data} action={action} />

      <section className="card" aria-labelledby="post-release-title">
        <h2 id="post-release-title">Publication and release</h2>
        <ReleaseSection post={post} tiers={data.tiers} back={action} now={now} scheduled={data.scheduled} action={action} initiallyOpen />
      </section>

      <section className="card" aria-labelledby="post-details-title">
        <h2 id="post-details-title">Details</h2>
        <datalist id="post-choices">
          {data.postChoices.map((choice) => (
            <option key={choice.postId} value={choice.postId}>
              {choice.title}
            </option>
          ))}
        </datalist>
        <PostDetailsForm post={post} tiers={data.tiers} tags={data.tags} requirements={data.requirements} action={action} />
      </section>

      <section className="card" aria-labelledby="post-files-title">
        <h2 id="post-files-title">Image, file and versions</h2>
        <div className="post-editor-image">
          <PostImage post={post} />
          <PostImageUpload postId={post.postId} action={action} />
        </div>
        <h3>New version</h3>
        <PostFileUpload post={post} action={action} />
        <AdminVersionHistory postId={post.postId} versions={data.versions} back={action} action={action} />
        {currentVersionId ? (
          <>
            <h3>Files of the current version</h3>
            <p className="muted">
              Variants, optional add-ons and translations beside the main file, each with its own gate if it needs one; the{" "}
              <Link to={`/library/${encodeURIComponent(post.postId)}`}>post page</Link> lists them as users see them.
            </p>
            <AddedFilesList files={data.files} removeHref={(fileId) => `${action}?remove-file=${encodeURIComponent(fileId)}`} />
            <AddVersionFileForm postId={post.postId} versionId={currentVersionId} tiers={[...data.tiers]} back={action} />
          </>
        ) : null}
      </section>

      <section className="card" aria-labelledby="post-order-title">
        <h2 id="post-order-title">Place in the library</h2>
        <order.Form method="post" action={action} preventScrollReset className="set-index" noValidate>
          <input type="hidden" name="intent" value="set-index" />
          <label htmlFor="post-index">Index (0 = first)</label>
          <input id="post-index" type="number" name="index" min={0} step={1} inputMode="numeric" defaultValue={data.position} key={data.position} />
          <button type="submit" className="button-secondary" disabled={order.state !== "idle"}>
            Set Index
          </button>
        </order.Form>
      </section>

      <section className="card" aria-labelledby="post-delete-title">
        <h2 id="post-delete-title">Delete</h2>
        <p>Deleting removes the post, its versions and files for everyone.</p>
        <Link to={`${action}?delete`} className="button-danger" preventScrollReset>
          Delete post
        </Link>
      </section>

      {data.removeFile ? <RemoveFileDialog file={data.removeFile} version={post.version} action={action} cancelTo={action} /> : null}

      {data.confirmDelete ? (
        <ConfirmDialog
          title="Delete post"
          testId="delete-post-dialog"
          action={action}
          cancelTo={action}
          intent="delete"
          confirmLabel="Delete"
          pendingLabel="Deleting..."
        >
          <p>Are you sure you want to delete this post?</p>
          <p className="muted">{post.title}</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const refused = refusedRequestPage(error);
  if (refused) return refused;
  if (error && typeof error === "object" && "status" in error && error.status === 404) {
    return <ErrorPage status={404} title={LIBRARY_MESSAGES.postNotFound} message="It may have been deleted." />;
  }
  logInBrowser(error);
  return <ErrorPage status={500} title="The post could not be loaded." message="Please try again." />;
}
