// The admin post card's version history: every version, hidden ones included, with
// its file name and SHA-256, and the admin's actions: hide or show a version, make an older one
// current again. Each action is a form posting to the page's action (audited there, admin
// only on the server), in place with JavaScript and as a plain post without.
import { useFetcher } from "@remix-run/react";
import { VersionHistoryList } from "~/components/version-history";
import type { VersionView } from "~/models/post-version-history.server";

function VersionAction({
  postId,
  version,
  back,
  intent,
  label,
  action,
}: {
  action: string;
  postId: string;
  version: VersionView;
  back: string;
  intent: "version-hide" | "version-show" | "version-current";
  label: string;
}) {
  const fetcher = useFetcher();
  return (
    <fetcher.Form method="post" action={action} preventScrollReset>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="postId" value={postId} />
      <input type="hidden" name="versionId" value={version.id} />
      <input type="hidden" name="back" value={back} />
      <button type="submit" className="button-secondary" disabled={fetcher.state !== "idle"} aria-label={`${label} ${version.label}`}>
        {label}
      </button>
    </fetcher.Form>
  );
}

export function AdminVersionHistory({
  postId,
  versions,
  back,
  action = "/library",
}: {
  postId: string;
  versions: VersionView[];
  back: string;
  /** The page whose action takes the forms (the post's editor). */
  action?: string;
}) {
  if (versions.length === 0) return <p className="muted">No versions yet: upload a file to create the first one.</p>;
  return (
    <details className="version-history admin-version-history" data-testid="admin-version-history">
      <summary>Version history ({versions.length})</summary>
      <VersionHistoryList
        versions={versions}
        showHash
        renderActions={(version) =>
          version.current ? null : (
            <>
              {version.hidden ? null : (
                <VersionAction action={action} postId={postId} version={version} back={back} intent="version-current" label="Make current" />
              )}
              <VersionAction
                action={action}
                postId={postId}
                version={version}
                back={back}
                intent={version.hidden ? "version-show" : "version-hide"}
                label={version.hidden ? "Show" : "Hide"}
              />
            </>
          )
        }
      />
    </details>
  );
}
