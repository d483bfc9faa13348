// A post's version history, newest first: label, date, size, the creator's notes
// (Markdown rendered on the server, raw HTML escaped) and, for ZIPs, the files added, removed and
// changed since the version before; on a post's page, the same for each added file of a version
// (variant, add-on, translation) against the same-label file of the version before. Users see it
// on the library card in a disclosure (card-version-history.tsx, which loads this module when
// opened); admins on the post's editor with their actions. `renderActions` adds per-version
// controls (download, hide, make current).
import type { ReactNode } from "react";
import { ContentHash } from "~/components/admin/content-hash";
import type { FileChangeView, VersionView } from "~/models/post-version-history.server";
import { formatDay } from "~/utils/dates";
import { formatFileSize } from "~/utils/file-size";
import { FILE_ROLE_NAMES } from "~/utils/version-file-words";
import type { Changelog } from "~/utils/zip-changelog";

/** What a changed file's line says: its sizes when they differ, else that its content changed. */
export function changeDetail(before: number, after: number): string {
  return before === after ? "content changed" : `${formatFileSize(before)} → ${formatFileSize(after)}`;
}

function ChangeList({ title, items }: { title: string; items: { path: string; detail: string }[] }) {
  if (items.length === 0) return null;
  return (
    <div className="version-changes-group">
      <p className="version-changes-title">
        {title} ({items.length})
      </p>
      <ul>
        {items.map((item) => (
          <li key={item.path}>
            <code>{item.path}</code> <span className="muted">{item.detail}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A changelog's lines: added, removed and changed entries, or that the files are the same. */
function ChangelogLines({ changelog }: { changelog: Changelog }) {
  const total = changelog.added.length + changelog.removed.length + changelog.changed.length;
  return (
    <>
      {total === 0 ? <p className="muted version-changes-none">Same files as the version before.</p> : null}
      <ChangeList title="Added" items={changelog.added.map((entry) => ({ path: entry.path, detail: formatFileSize(entry.size) }))} />
      <ChangeList title="Removed" items={changelog.removed.map((entry) => ({ path: entry.path, detail: formatFileSize(entry.size) }))} />
      <ChangeList title="Changed" items={changelog.changed.map((entry) => ({ path: entry.path, detail: changeDetail(entry.before.size, entry.after.size) }))} />
    </>
  );
}

/** What changed inside the archive since the version before (or that it could not be compared). */
export function VersionChangelog({ version, first }: { version: VersionView; first: boolean }) {
  if (!version.zip) return null;
  const changelog = version.changelog;
  if (!changelog) return first ? null : <p className="muted version-changes-none">No file list of the version before to compare with.</p>;
  return (
    <div className="version-changes" data-testid="version-changelog">
      <ChangelogLines changelog={changelog} />
    </div>
  );
}

/** What a file's line under its name says: new, or what changed inside it, or that it could not be compared. */
function FileChangeBody({ file }: { file: FileChangeView }) {
  if (file.newFile) return <p className="muted version-changes-none">New file: the version before had none.</p>;
  if (!file.zip) return null;
  if (!file.changelog) return <p className="muted version-changes-none">No file list of the version before to compare with.</p>;
  return <ChangelogLines changelog={file.changelog} />;
}

/**
 * Each added file of a version (variant, add-on, translation) with what changed in it since the
 * file of the same role and label in the version before, or that it is new. Nothing for the
 * oldest version, which has nothing to compare with.
 */
export function FileChangelogs({ version, first }: { version: VersionView; first: boolean }) {
  const files = (version.files ?? []).filter((file) => file.newFile || file.zip);
  if (first || files.length === 0) return null;
  return (
    <div className="version-file-changes" data-testid="version-file-changelogs">
      {files.map((file) => (
        <div key={file.fileId} className="version-changes" data-testid="version-file-changelog" data-file-id={file.fileId}>
          <p className="version-changes-file">
            <strong>{file.label || FILE_ROLE_NAMES[file.role]}</strong>{" "}
            <span className="muted">
              {file.label ? `${FILE_ROLE_NAMES[file.role]} · ` : ""}
              {file.fileName}
            </span>
          </p>
          <FileChangeBody file={file} />
        </div>
      ))}
    </div>
  );
}

export function VersionHistoryList({
  versions,
  showHash,
  renderActions,
}: {
  versions: VersionView[];
  showHash: boolean;
  renderActions?: (version: VersionView) => ReactNode;
}) {
  return (
    <ol className="version-list" data-testid="version-list">
      {versions.map((version, index) => (
        <li
          key={version.id}
          id={`version-${version.id}`}
          className={version.hidden ? "version-item version-hidden" : "version-item"}
          data-testid="version-item"
          data-version-id={version.id}
        >
          <p className="version-head">
            <strong className="version-label">{version.label}</strong>
            {version.current ? <span className="badge">Current</span> : null}
            {version.hidden ? <span className="badge">Hidden</span> : null}
            <span className="muted">
              {formatDay(version.createdAt)} · {formatFileSize(version.size)}
            </span>
          </p>
          {showHash ? (
            <p className="version-hash muted">
              {version.fileName} · SHA-256 {version.sha256 ? <ContentHash hash={version.sha256} label={version.label} /> : <code>not computed yet</code>}
            </p>
          ) : null}
          {version.notesHtml ? <div className="version-notes" dangerouslySetInnerHTML={{ __html: version.notesHtml }} /> : null}
          <VersionChangelog version={version} first={index === versions.length - 1} />
          <FileChangelogs version={version} first={index === versions.length - 1} />
          {renderActions ? <div className="version-actions">{renderActions(version)}</div> : null}
        </li>
      ))}
    </ol>
  );
}
