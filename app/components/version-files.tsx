// The current version's files on the post page (docs/product.md#files-of-a-version): by role, main
// first, variants as "pick one", each with its download button, or, when the viewer may not have
// it, what unlocks it. A file with a gate of its own says so. Each button is a plain form to the
// library's download action (works without JavaScript); with JavaScript it downloads in place.
// Admins get a Remove per added file: a link to a confirmation (a page without JavaScript, a dialog
// with it), as the editor asks before deleting a post.
import { Link } from "@remix-run/react";
import { ConfirmDialog } from "~/components/confirm-dialog";
import { accessLine } from "~/components/post-access";
import type { CardTier } from "~/components/post-card";
import type { LibraryPost } from "~/models/library-listing.server";
import type { FileView } from "~/models/version-files.server";
import { formatFileSize } from "~/utils/file-size";
import { FILE_ROLE_HEADINGS, FILE_ROLE_NAMES, FILE_ROLES, ADDED_FILE_ROLES } from "~/utils/version-file-words";

/** A file's own gate in the card's words ("Unlocks with Tier 3"). */
export function fileGateLine(gate: NonNullable<FileView["gate"]>, tiers: CardTier[]): string {
  return accessLine({ tiers: gate.tierIds, kofi_id: gate.shopItem, is_kofiOnly: gate.tierIds.length === 0 }, tiers);
}

function FileRow({
  post,
  file,
  tiers,
  back,
  onDownload,
  removeHref,
}: {
  post: LibraryPost;
  file: FileView;
  tiers: CardTier[];
  back: string;
  onDownload: (post: LibraryPost, fileId: string | null) => void;
  removeHref?: (fileId: string) => string;
}) {
  const name = file.label || file.fileName;
  return (
    <li className="version-file" data-testid={`version-file-${file.role}`}>
      <span className="version-file-name">
        {name}
        {file.label ? <span className="muted"> · {file.fileName}</span> : null}
        <span className="muted"> · {formatFileSize(file.size)}</span>
      </span>
      {file.gate ? (
        <span className="post-access" data-testid="file-access">
          {fileGateLine(file.gate, tiers)}
        </span>
      ) : null}
      {file.unlocked ? (
        <form
          method="post"
          action="/library"
          className="post-download"
          onSubmit={(event) => {
            event.preventDefault();
            onDownload(post, file.fileId);
          }}
        >
          <input type="hidden" name="intent" value="download" />
          <input type="hidden" name="postId" value={post.postId} />
          {file.fileId ? <input type="hidden" name="fileId" value={file.fileId} /> : null}
          <input type="hidden" name="back" value={back} />
          <button type="submit" className="button-secondary" aria-label={`Download ${name}`}>
            Download
          </button>
        </form>
      ) : (
        <span className="muted" data-testid="file-locked">
          Locked
        </span>
      )}
      {removeHref && file.fileId ? <RemoveFileLink href={removeHref(file.fileId)} name={name} /> : null}
    </li>
  );
}

export function VersionFiles({
  post,
  files,
  tiers,
  back,
  onDownload,
  removeHref,
}: {
  post: LibraryPost;
  files: readonly FileView[];
  tiers: CardTier[];
  back: string;
  onDownload: (post: LibraryPost, fileId: string | null) => void;
  /** Admins: the address that asks to remove an added file. */
  removeHref?: (fileId: string) => string;
}) {
  // One main file alone needs no list: the card's Download button is it.
  if (files.length <= 1) return null;
  return (
    <section className="version-files" aria-labelledby="version-files-heading" data-testid="version-files">
      <h2 id="version-files-heading">Files of {post.version}</h2>
      {FILE_ROLES.map((role) => {
        const ofRole = files.filter((file) => file.role === role);
        if (ofRole.length === 0) return null;
        return (
          <div key={role} className="version-files-role">
            <h3>{FILE_ROLE_HEADINGS[role]}</h3>
            <ul>
              {ofRole.map((file) => (
                <FileRow key={file.fileId ?? "main"} post={post} file={file} tiers={tiers} back={back} onDownload={onDownload} removeHref={removeHref} />
              ))}
            </ul>
          </div>
        );
      })}
    </section>
  );
}

/**
 * Admins: add a file to the current version (multipart to the library's upload action, without
 * JavaScript too). The gate is one choice: the post's, a tier and those priced above it, or a shop item.
 */
export function AddVersionFileForm({ postId, versionId, tiers, back }: { postId: string; versionId: string; tiers: CardTier[]; back: string }) {
  const action = `/library?${new URLSearchParams({ intent: "upload-version-file", postId, versionId, back }).toString()}`;
  return (
    <details className="version-files-admin">
      <summary>Add a file to this version</summary>
      <form method="post" action={action} encType="multipart/form-data" className="stack">
        <label>
          Role
          <select name="role" defaultValue="variant">
            {ADDED_FILE_ROLES.map((role) => (
              <option key={role} value={role}>
                {FILE_ROLE_NAMES[role]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Label (such as “Maxis Match” or “Deutsch”)
          <input name="label" maxLength={60} />
        </label>
        <label>
          Gate
          <select name="gateTierIds" defaultValue="">
            <option value="">The post&apos;s</option>
            {tiers.map((tier, index) => (
              <option
                key={tier.tierId}
                value={tiers
                  .slice(index)
                  .map((above) => above.tierId)
                  .join(",")}
              >
                {tier.title} and above
              </option>
            ))}
          </select>
        </label>
        <label>
          Or a shop item code
          <input name="gateShopItem" maxLength={64} />
        </label>
        <label>
          File to add
          <input type="file" name="file" required />
        </label>
        <button type="submit" className="button">
          Add file
        </button>
      </form>
    </details>
  );
}

/** An added file as the admins' Remove names it. */
type RemovableFile = { fileId: string | null; role: FileView["role"]; label: string; fileName: string };

function RemoveFileLink({ href, name }: { href: string; name: string }) {
  return (
    <Link to={href} className="button-secondary" preventScrollReset aria-label={`Remove ${name}`} data-testid="remove-file">
      Remove
    </Link>
  );
}

/** Admins, in the editor: the current version's added files, each with its Remove. */
export function AddedFilesList({ files, removeHref }: { files: readonly RemovableFile[]; removeHref: (fileId: string) => string }) {
  if (files.length === 0) return null;
  return (
    <ul className="version-files-added" data-testid="added-files">
      {files.map((file) =>
        file.fileId ? (
          <li key={file.fileId} className="version-file">
            <span className="version-file-name">
              {FILE_ROLE_NAMES[file.role]}: {file.label || file.fileName}
              {file.label ? <span className="muted"> · {file.fileName}</span> : null}
            </span>
            <RemoveFileLink href={removeHref(file.fileId)} name={file.label || file.fileName} />
          </li>
        ) : null,
      )}
    </ul>
  );
}

/**
 * "Remove this file?" for an added file (`?remove-file=<id>`): posts `remove-file` with the file's
 * id (and `hidden` fields) to `action`; Cancel goes back to `cancelTo`.
 */
export function RemoveFileDialog({
  file,
  version,
  action,
  cancelTo,
  hidden = {},
}: {
  file: RemovableFile & { fileId: string };
  version: string;
  action: string;
  cancelTo: string;
  hidden?: Record<string, string>;
}) {
  return (
    <ConfirmDialog
      title="Remove file"
      testId="remove-file-dialog"
      action={action}
      cancelTo={cancelTo}
      intent="remove-file"
      confirmLabel="Remove"
      pendingLabel="Removing..."
      hidden={{ ...hidden, fileId: file.fileId }}
    >
      <p>Remove this file from {version}? Nobody can download it any more; download histories keep it.</p>
      <p className="muted">
        {FILE_ROLE_NAMES[file.role]}: {file.label || file.fileName} · {file.fileName}
      </p>
    </ConfirmDialog>
  );
}
