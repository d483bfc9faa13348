// A post as admins edit it in the library: image, Ko-fi ID, file (an upload, or a storage key),
// dates, first and current tiers, Ko-fi only, Save, Enable/Disable, Set Index and Delete. Every
// form posts to the library's action, with JavaScript (a fetcher; the file upload by
// XMLHttpRequest for its progress) and plainly without.
import { useFetcher, useRevalidator } from "@remix-run/react";
import { useRef, useState } from "react";
import { ReleaseSection, ScheduledBadge } from "~/components/admin/release-admin";
import { AdminVersionHistory } from "~/components/admin/version-admin";
import { FileDrop } from "~/components/file-drop";
import { FoldingSection } from "~/components/folding-section";
import { RequirementsSection, TagsSection } from "~/components/post-catalog-admin";
import type { AdminRequirement } from "~/models/post-requirements.server";
import { PostBadges, PostImage, type CardTier } from "~/components/post-card";
import { showToast } from "~/components/toaster";
import type { LibraryPost } from "~/models/library-listing.server";
import type { VersionView } from "~/models/post-version-history.server";
import { formatFileSize } from "~/utils/file-size";
import { formText } from "~/utils/form-fields";
import { uploadResumably, UploadRefused, type UploadProgress } from "~/utils/resumable-upload";
import { drawnFieldName, drawnTierList, LIBRARY_MESSAGES } from "~/utils/library-words";
import { nextVersionLabel } from "~/utils/version-schemas";

function dateInput(value: string | null): string {
  return value ? value.slice(0, 10) : "";
}

/*
 * The post's details form draws each field twice: the field, and a hidden copy of its value as
 * drawn (`drawn_<name>`), so Save applies only what the admin changed (postFormToInput). Each is
 * keyed by its drawn value: when the post changes under the card (a new version uploaded, a save
 * answered), the field and its copy are drawn again together with the new value.
 */

/** Cents as the price field shows them: "4.50", or "" when none. */
function priceInput(cents: number | null): string {
  return cents === null ? "" : (cents / 100).toFixed(2);
}

function DrawnTextField({
  id,
  label,
  name,
  drawn,
  type = "text",
  required,
  placeholder,
}: {
  id: string;
  label: string;
  name: string;
  drawn: string;
  type?: "text" | "date";
  required?: boolean;
  placeholder?: string;
}) {
  return (
    <div className="field" key={drawn}>
      <label htmlFor={id}>{label}</label>
      <input type={type} id={id} name={name} defaultValue={drawn} required={required} placeholder={placeholder} />
      <input type="hidden" name={drawnFieldName(name)} value={drawn} />
    </div>
  );
}

function DrawnCheckbox({ name, label, drawn }: { name: string; label: string; drawn: boolean }) {
  return (
    <label className="checkbox" key={String(drawn)}>
      <input type="checkbox" name={name} defaultChecked={drawn} /> {label}
      <input type="hidden" name={drawnFieldName(name)} value={drawn ? "on" : ""} />
    </label>
  );
}

/** The Blender extension marking: none, add-on or theme (docs/product.md#blender-extensions). */
function BlenderExtensionField({ id, drawn }: { id: string; drawn: string }) {
  const hint = `${id}-hint`;
  return (
    <div className="field" key={drawn}>
      <label htmlFor={id}>Blender extension</label>
      <select id={id} name="blender_extension" defaultValue={drawn} aria-describedby={hint}>
        <option value="none">Not a Blender extension</option>
        <option value="add-on">Blender add-on</option>
        <option value="theme">Blender theme</option>
      </select>
      <input type="hidden" name={drawnFieldName("blender_extension")} value={drawn} />
      <p id={hint} className="field-hint">
        Listed in supporters&apos; Blender repository. The file must be an extension ZIP with a blender_manifest.toml.
      </p>
    </div>
  );
}

function TierBoxes({ legend, name, tiers, checked }: { legend: string; name: string; tiers: CardTier[]; checked: string[] }) {
  const drawn = drawnTierList(checked);
  return (
    <fieldset className="tier-boxes" key={drawn}>
      <legend>{legend}</legend>
      <input type="hidden" name={drawnFieldName(name)} value={drawn} />
      {tiers.map((tier) => (
        <label key={tier.tierId} className="checkbox">
          <input type="checkbox" name={name} value={tier.tierId} defaultChecked={checked.includes(tier.tierId)} /> {tier.title}
        </label>
      ))}
    </fieldset>
  );
}

/** What the folded details say: the current tiers, or who may download otherwise. */
function tierSummary(post: LibraryPost, tiers: CardTier[]): string {
  const names = tiers.filter((tier) => post.tiers.includes(tier.tierId)).map((tier) => tier.title);
  if (post.is_kofiOnly) return "Ko-fi only";
  if (names.length > 0) return names.join(", ");
  return post.paid_content ? "Paid, no tier" : "Free";
}

/** The library action's address for an upload: multipart bodies are streamed, so the intent travels in it. */
function uploadAction(intent: "upload-image" | "upload-file", postId: string, back: string): string {
  return `/library?intent=${intent}&postId=${encodeURIComponent(postId)}&back=${encodeURIComponent(back)}`;
}

/**
 * The post's file as a new version. Without JavaScript the form posts it to the library action in
 * one request (label and notes first, the file streamed into storage) and is redirected back.
 * With JavaScript it is sent as a resumable upload (app/utils/resumable-upload.ts): in parts, with
 * the bytes sent and the percentage shown, resuming after a dropped connection, cancellable.
 */
function FileUpload({ post, back }: { post: LibraryPost; back: string }) {
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const cancelRef = useRef<AbortController | null>(null);
  const revalidator = useRevalidator();
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = `file-${post.postId}`;
  const action = uploadAction("upload-file", post.postId, back);
  const percent = progress && progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  const progressText = progress
    ? progress.retryInSeconds !== undefined
      ? `Connection lost. Trying again in ${progress.retryInSeconds} s… (${formatFileSize(progress.sent)} of ${formatFileSize(progress.total)} arrived)`
      : `Uploading ${formatFileSize(progress.sent)} of ${formatFileSize(progress.total)} (${percent}%)`
    : "";
  return (
    <form
      method="post"
      action={action}
      encType="multipart/form-data"
      className="admin-upload"
      onSubmit={(event) => {
        event.preventDefault();
        const file = inputRef.current?.files?.[0];
        if (!file) {
          showToast({ type: "error", message: "Please select a file first." });
          return;
        }
        const form = new FormData(event.currentTarget);
        const controller = new AbortController();
        cancelRef.current = controller;
        setProgress({ sent: 0, total: file.size });
        uploadResumably({
          postId: post.postId,
          file,
          label: formText(form, "label"),
          notes: formText(form, "notes"),
          signal: controller.signal,
          onProgress: setProgress,
          failureMessage: LIBRARY_MESSAGES.fileUploadFailed,
        })
          .then((answer) => {
            showToast({ type: "success", message: answer.message ?? "File uploaded." });
            inputRef.current?.form?.reset();
            revalidator.revalidate();
          })
          .catch((error: unknown) => {
            if (controller.signal.aborted) showToast({ type: "success", message: "Upload cancelled." });
            else showToast({ type: "error", message: error instanceof UploadRefused ? error.message : LIBRARY_MESSAGES.fileUploadFailed });
          })
          .finally(() => {
            cancelRef.current = null;
            setProgress(null);
          });
      }}
    >
      <div className="field">
        <label htmlFor={`${inputId}-label`}>New version label</label>
        <input
          type="text"
          id={`${inputId}-label`}
          name="label"
          maxLength={40}
          defaultValue={post.fileSize !== null ? nextVersionLabel(post.version) : post.version}
        />
      </div>
      <div className="field">
        <label htmlFor={`${inputId}-notes`}>Version notes (Markdown)</label>
        <textarea id={`${inputId}-notes`} name="notes" rows={3} maxLength={20000} />
      </div>
      <FileDrop id={inputId} ref={inputRef} name="file" label="File" />
      {progress !== null ? (
        <div className="upload-progress">
          <progress max={100} value={percent} aria-label={`Uploading file: ${percent}%`}>
            {percent}%
          </progress>
          <p role="status" aria-live="polite">
            {progressText}
          </p>
          <button type="button" className="button-secondary" onClick={() => cancelRef.current?.abort()}>
            Cancel upload
          </button>
        </div>
      ) : null}
      <button type="submit" className="button-secondary" disabled={progress !== null}>
        {progress !== null ? `Uploading ${percent}%` : "Upload file"}
      </button>
    </form>
  );
}

export function PostAdminCard({
  post,
  tiers,
  back,
  now,
  scheduled,
  versions = [],
  position,
  requirements = [],
  tags = [],
}: {
  post: LibraryPost;
  tiers: CardTier[];
  back: string;
  now: Date;
  /** The post's requirements as stored, and every tag (docs/product.md#requirements, #tags). */
  requirements?: readonly AdminRequirement[];
  tags?: readonly { slug: string; name: string }[];
  /** Is the post's publication still ahead (the loader's exact clock, not the page's minute)? */
  scheduled: boolean;
  versions?: VersionView[];
  /** The post's place in the whole library order (0 = first): what Set Index shows to start from. */
  position?: number;
}) {
  const save = useFetcher();
  const toggle = useFetcher();
  const order = useFetcher();
  const image = useFetcher();
  const remove = useFetcher();
  const id = post.postId;
  const field = (name: string) => `${name}-${id}`;
  // Optimistic: the button shows the new state while the request runs.
  const enabled = toggle.formData ? toggle.formData.get("enabled") === "true" : post.enabled;
  const titleId = `post-${id}-title`;
  const settingUp = post.fileSize === null;
  const filesHint = settingUp ? "No file yet" : `${post.version} · ${versions.length} version${versions.length === 1 ? "" : "s"}`;
  const detailsHint = tierSummary(post, tiers);
  return (
    <article
      className={`card post-card post-admin${enabled ? "" : " post-disabled"}`}
      aria-labelledby={titleId}
      data-testid="admin-post-card"
      data-post-id={id}
    >
      <PostImage post={post} />
      <div className="post-body">
        <PostBadges post={post} loggedIn={false} now={now} />
        <h2 id={titleId} className="post-title">
          {post.title} {enabled ? null : <span className="badge">Disabled</span>} <ScheduledBadge post={post} scheduled={scheduled} />
        </h2>
        <p className="muted">
          Post ID {id}
          {post.fileSize !== null ? ` · ${formatFileSize(post.fileSize)}` : " · no file"}
        </p>

        {/* A post still without its file is being set up: both parts open. Otherwise they fold,
            so the admin library stays a list to scan. */}
        <FoldingSection title="Files and versions" hint={filesHint} initiallyOpen={settingUp} testId="post-files-section">
          <image.Form method="post" action={uploadAction("upload-image", id, back)} encType="multipart/form-data" preventScrollReset className="admin-upload">
            <FileDrop id={field("image")} name="image" label="Image (png, jpg, jpeg)" accept=".png,.jpg,.jpeg,image/png,image/jpeg" />
            <button type="submit" className="button-secondary" disabled={image.state !== "idle"}>
              {image.state !== "idle" ? "Uploading..." : "Upload image"}
            </button>
          </image.Form>

          <FileUpload post={post} back={back} />
          <AdminVersionHistory postId={id} versions={versions} back={back} />
        </FoldingSection>

        <FoldingSection title="Details and tiers" hint={detailsHint} initiallyOpen={settingUp} testId="post-details-section">
          <save.Form method="post" action="/library" preventScrollReset className="admin-fields">
            <input type="hidden" name="intent" value="save" />
            <input type="hidden" name="postId" value={id} />
            <input type="hidden" name="back" value={back} />
            <input type="hidden" name="has_tiers" value="1" />
            <input type="hidden" name="has_flags" value="1" />
            <DrawnTextField id={field("title")} label="Title" name="title" drawn={post.title} required />
            <DrawnTextField id={field("version")} label="Version" name="version" drawn={post.version} />
            <DrawnTextField id={field("kofi")} label="Ko-fi ID" name="kofi_id" drawn={post.kofi_id ?? ""} />
            <DrawnTextField id={field("shop-price")} label="Shop price (optional, e.g. 4.50)" name="shop_price" drawn={priceInput(post.shop_price_cents)} />
            <DrawnTextField id={field("shop-currency")} label="Shop currency" name="shop_currency" drawn={post.shop_currency ?? ""} placeholder="USD" />
            <DrawnTextField id={field("drive")} label="Drive file ID" name="drive_file_id" drawn={post.drive_file_id ?? ""} placeholder="posts/123/file.zip" />
            <DrawnTextField id={field("first")} label="First published" name="first_published_at" type="date" drawn={dateInput(post.first_published_at)} />
            <DrawnTextField id={field("updated")} label="Last updated" name="last_updated" type="date" drawn={dateInput(post.last_updated)} />
            <BlenderExtensionField id={field("blender")} drawn={post.blender_extension ?? "none"} />
            <TierBoxes legend="First tiers" name="first_tiers" tiers={tiers} checked={post.first_tiers} />
            <TierBoxes legend="Current tiers" name="tiers" tiers={tiers} checked={post.tiers} />
            <DrawnCheckbox name="is_kofiOnly" label="Is Ko-fi Only" drawn={post.is_kofiOnly} />
            <DrawnCheckbox name="paid_content" label="Paid content" drawn={post.paid_content} />
            <button type="submit" className="button" disabled={save.state !== "idle"}>
              {save.state !== "idle" ? "Saving..." : "Save"}
            </button>
          </save.Form>
        </FoldingSection>

        <ReleaseSection post={post} tiers={tiers} back={back} now={now} scheduled={scheduled} />
        <RequirementsSection postId={id} requirements={requirements} back={back} />
        <TagsSection postId={id} checked={post.tags.map((tag) => tag.slug)} tags={tags} back={back} />

        <div className="admin-actions">
          <toggle.Form method="post" action="/library" preventScrollReset>
            <input type="hidden" name="intent" value="toggle" />
            <input type="hidden" name="postId" value={id} />
            <input type="hidden" name="back" value={back} />
            <input type="hidden" name="enabled" value={enabled ? "false" : "true"} />
            <button type="submit" className="button-secondary">
              {enabled ? "Disable" : "Enable"}
            </button>
          </toggle.Form>

          <order.Form method="post" action="/library" preventScrollReset className="set-index" noValidate>
            <input type="hidden" name="intent" value="set-index" />
            <input type="hidden" name="postId" value={id} />
            <input type="hidden" name="back" value={back} />
            <label htmlFor={field("index")}>Index</label>
            <input id={field("index")} type="number" name="index" min={0} step={1} inputMode="numeric" defaultValue={position} key={position} />
            <button type="submit" className="button-secondary" disabled={order.state !== "idle"}>
              Set Index
            </button>
          </order.Form>

          <remove.Form
            method="post"
            action="/library"
            preventScrollReset
            onSubmit={(event) => {
              if (!window.confirm(`Delete the post "${post.title}"?`)) event.preventDefault();
            }}
          >
            <input type="hidden" name="intent" value="delete" />
            <input type="hidden" name="postId" value={id} />
            <input type="hidden" name="back" value={back} />
            <button type="submit" className="button-danger">
              Delete
            </button>
          </remove.Form>
        </div>
      </div>
    </article>
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
