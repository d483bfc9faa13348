// The post's editor (/admin/posts/{postId}, docs/product.md#the-post-editor): one details form
// with one Save (title, tiers, paid/free, tags, requirements, Blender marking, shop item and
// price, dates), the post's image and its file as a new version. Every form posts to the editor's
// action, with JavaScript (a fetcher; the file as a resumable upload) and plainly without, and
// comes back to the same post.
import { useFetcher, useRevalidator } from "@remix-run/react";
import { useRef, useState } from "react";
import { FileDrop } from "~/components/file-drop";
import type { CardTier } from "~/components/post-card";
import { showToast } from "~/components/toaster";
import type { LibraryPost } from "~/models/library-listing.server";
import type { AdminRequirement } from "~/models/post-requirements.server";
import { drawnRequirements } from "~/utils/catalog-schemas";
import { formatFileSize } from "~/utils/file-size";
import { parseForm } from "~/utils/form-fields";
import { drawnFieldName, drawnTierList, LIBRARY_MESSAGES } from "~/utils/library-words";
import { uploadResumably, UploadRefused, type UploadProgress } from "~/utils/resumable-upload";
import { nextVersionLabel, versionUploadFormSchema } from "~/utils/version-schemas";

/** Blank requirement rows offered under the saved ones. */
const BLANK_REQUIREMENT_ROWS = 2;

function dateInput(value: string | null): string {
  return value ? value.slice(0, 10) : "";
}

/** Cents as the price field shows them: "4.50", or "" when none. */
function priceInput(cents: number | null): string {
  return cents === null ? "" : (cents / 100).toFixed(2);
}

/*
 * Each field is drawn with a hidden copy of its value as drawn (`drawn_<name>`), so Save writes
 * only what the admin changed (postFormSchema). Each is keyed by its drawn value: when the post
 * changes under the page (a version uploaded, a save answered), the field is drawn again.
 */
function DrawnTextField({
  id,
  label,
  name,
  drawn,
  type = "text",
  required,
  placeholder,
  hint,
}: {
  id: string;
  label: string;
  name: string;
  drawn: string;
  type?: "text" | "date";
  required?: boolean;
  placeholder?: string;
  hint?: string;
}) {
  return (
    <div className="field" key={drawn}>
      <label htmlFor={id}>{label}</label>
      <input
        type={type}
        id={id}
        name={name}
        defaultValue={drawn}
        required={required}
        placeholder={placeholder}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
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

function BlenderExtensionField({ drawn }: { drawn: string }) {
  return (
    <div className="field" key={drawn}>
      <label htmlFor="post-blender">Blender extension</label>
      <select id="post-blender" name="blender_extension" defaultValue={drawn} aria-describedby="post-blender-hint">
        <option value="none">Not a Blender extension</option>
        <option value="add-on">Blender add-on</option>
        <option value="theme">Blender theme</option>
      </select>
      <input type="hidden" name={drawnFieldName("blender_extension")} value={drawn} />
      <p id="post-blender-hint" className="field-hint">
        Listed in supporters&apos; Blender repository. The file must be an extension ZIP with a blender_manifest.toml.
      </p>
    </div>
  );
}

function CheckboxList({
  legend,
  name,
  choices,
  checked,
}: {
  legend: string;
  name: string;
  choices: readonly { value: string; label: string }[];
  checked: readonly string[];
}) {
  const drawn = drawnTierList(checked);
  return (
    <fieldset className="tier-boxes" key={drawn}>
      <legend>{legend}</legend>
      <input type="hidden" name={drawnFieldName(name)} value={drawn} />
      {choices.map((choice) => (
        <label key={choice.value} className="checkbox">
          <input type="checkbox" name={name} value={choice.value} defaultChecked={checked.includes(choice.value)} /> {choice.label}
        </label>
      ))}
    </fieldset>
  );
}

function RequirementRows({ requirements }: { requirements: readonly AdminRequirement[] }) {
  const rows: (AdminRequirement | null)[] = [...requirements, ...Array.from({ length: BLANK_REQUIREMENT_ROWS }, () => null)];
  const drawn = drawnRequirements(requirements);
  return (
    <fieldset className="post-editor-requirements" key={drawn}>
      <legend>Requirements</legend>
      <input type="hidden" name="has_requirements" value="1" />
      <input type="hidden" name={drawnFieldName("requirements")} value={drawn} />
      <p className="muted">
        Another post (its ID, and the oldest version that works, such as V2) or an outside item (a name and an https link). Leave a row blank to remove it.
      </p>
      {rows.map((row, index) => (
        <fieldset key={index} className="requirement-row">
          <legend>Requirement {index + 1}</legend>
          <div className="field">
            <label htmlFor={`req-post-${index}`}>Required post ID</label>
            <input id={`req-post-${index}`} name={`req_post_${index}`} list="post-choices" defaultValue={row?.post_id ?? ""} />
            {row?.title ? <span className="muted">{row.title}</span> : null}
          </div>
          <div className="field">
            <label htmlFor={`req-min-${index}`}>Minimum version</label>
            <input id={`req-min-${index}`} name={`req_min_${index}`} defaultValue={row?.min_version ?? ""} placeholder="V2" />
          </div>
          <div className="field">
            <label htmlFor={`req-name-${index}`}>Outside item name</label>
            <input id={`req-name-${index}`} name={`req_name_${index}`} defaultValue={row?.name ?? ""} />
          </div>
          <div className="field">
            <label htmlFor={`req-url-${index}`}>Outside item link</label>
            <input id={`req-url-${index}`} name={`req_url_${index}`} type="url" defaultValue={row?.url ?? ""} placeholder="https://" />
          </div>
        </fieldset>
      ))}
    </fieldset>
  );
}

/**
 * The post's details with one Save. The version label is not among them: it belongs to each
 * version (set when uploading, shown in the history), so a Save never puts an older one back.
 */
export function PostDetailsForm({
  post,
  tiers,
  tags,
  requirements,
  action,
}: {
  post: LibraryPost;
  tiers: CardTier[];
  tags: readonly { slug: string; name: string }[];
  requirements: readonly AdminRequirement[];
  action: string;
}) {
  const save = useFetcher();
  const tierChoices = tiers.map((tier) => ({ value: tier.tierId, label: tier.title }));
  return (
    <save.Form method="post" action={action} preventScrollReset className="post-editor-details" data-testid="post-details-form">
      <input type="hidden" name="intent" value="save" />
      <input type="hidden" name="postId" value={post.postId} />
      <input type="hidden" name="back" value={action} />
      <input type="hidden" name="has_tiers" value="1" />
      <input type="hidden" name="has_flags" value="1" />
      <input type="hidden" name="has_tags" value="1" />
      <div className="post-editor-columns">
        <div>
          <DrawnTextField id="post-title" label="Title" name="title" drawn={post.title} required />
          <DrawnTextField id="post-kofi" label="Ko-fi ID" name="kofi_id" drawn={post.kofi_id ?? ""} />
          <DrawnTextField id="post-shop-price" label="Shop price (optional, e.g. 4.50)" name="shop_price" drawn={priceInput(post.shop_price_cents)} />
          <DrawnTextField id="post-shop-currency" label="Shop currency" name="shop_currency" drawn={post.shop_currency ?? ""} placeholder="USD" />
          <DrawnTextField id="post-drive" label="Drive file ID" name="drive_file_id" drawn={post.drive_file_id ?? ""} placeholder="posts/123/file.zip" />
          <DrawnTextField id="post-first" label="First published" name="first_published_at" type="date" drawn={dateInput(post.first_published_at)} />
          <DrawnTextField id="post-updated" label="Last updated" name="last_updated" type="date" drawn={dateInput(post.last_updated)} />
          <BlenderExtensionField drawn={post.blender_extension ?? "none"} />
        </div>
        <div>
          <fieldset className="post-editor-access">
            <legend>Who gets it</legend>
            <DrawnCheckbox name="paid_content" label="Paid content" drawn={post.paid_content} />
            <DrawnCheckbox name="is_kofiOnly" label="Is Ko-fi Only" drawn={post.is_kofiOnly} />
          </fieldset>
          <CheckboxList legend="First tiers" name="first_tiers" choices={tierChoices} checked={post.first_tiers} />
          <CheckboxList legend="Current tiers" name="tiers" choices={tierChoices} checked={post.tiers} />
          {tags.length === 0 ? (
            <p className="muted">
              No tags yet: define them on <a href="/admin/catalog">Tags and prices</a>.
            </p>
          ) : (
            <CheckboxList
              legend="Tags"
              name="tags"
              choices={tags.map((tag) => ({ value: tag.slug, label: tag.name }))}
              checked={post.tags.map((tag) => tag.slug)}
            />
          )}
        </div>
      </div>
      <RequirementRows requirements={requirements} />
      <button type="submit" className="button" disabled={save.state !== "idle"}>
        {save.state !== "idle" ? "Saving..." : "Save"}
      </button>
    </save.Form>
  );
}

/** The editor's address for an upload: multipart bodies are streamed, so the intent travels in it. */
function uploadAddress(action: string, intent: "upload-image" | "upload-file", postId: string): string {
  return `${action}?intent=${intent}&postId=${encodeURIComponent(postId)}&back=${encodeURIComponent(action)}`;
}

export function PostImageUpload({ postId, action }: { postId: string; action: string }) {
  const image = useFetcher();
  return (
    <image.Form method="post" action={uploadAddress(action, "upload-image", postId)} encType="multipart/form-data" preventScrollReset className="admin-upload">
      <FileDrop id="post-image" name="image" label="Image (png, jpg, jpeg)" accept=".png,.jpg,.jpeg,image/png,image/jpeg" />
      <button type="submit" className="button-secondary" disabled={image.state !== "idle"}>
        {image.state !== "idle" ? "Uploading..." : "Upload image"}
      </button>
    </image.Form>
  );
}

/**
 * The post's file as a new version. Without JavaScript the form posts it to the editor's action
 * in one request (label and notes first, the file streamed into storage) and is redirected back.
 * With JavaScript it is sent as a resumable upload (app/utils/resumable-upload.ts): in parts, with
 * the bytes sent and the percentage shown, resuming after a dropped connection, cancellable.
 */
export function PostFileUpload({ post, action }: { post: LibraryPost; action: string }) {
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const cancelRef = useRef<AbortController | null>(null);
  const revalidator = useRevalidator();
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = "post-file";
  const percent = progress && progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  const progressText = progress
    ? progress.retryInSeconds !== undefined
      ? `Connection lost. Trying again in ${progress.retryInSeconds} s… (${formatFileSize(progress.sent)} of ${formatFileSize(progress.total)} arrived)`
      : `Uploading ${formatFileSize(progress.sent)} of ${formatFileSize(progress.total)} (${percent}%)`
    : "";
  return (
    <form
      method="post"
      action={uploadAddress(action, "upload-file", post.postId)}
      encType="multipart/form-data"
      className="admin-upload"
      onSubmit={(event) => {
        event.preventDefault();
        const file = inputRef.current?.files?.[0];
        if (!file) {
          showToast({ type: "error", message: "Please select a file first." });
          return;
        }
        const { label, notes } = parseForm(new FormData(event.currentTarget), versionUploadFormSchema);
        const controller = new AbortController();
        cancelRef.current = controller;
        setProgress({ sent: 0, total: file.size });
        uploadResumably({
          postId: post.postId,
          file,
          label,
          notes,
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
      <div className="field" key={post.version}>
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
