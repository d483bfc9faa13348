// The post page's "Game compatibility" (docs/product.md#game-patches): each version's mark on the
// current game patch, how many players confirmed it or reported it broken, the viewer's own answer
// for versions they downloaded, and for admins the mark itself and "Accept the players' answer".
// Every form is a plain post to the library's action (works without JavaScript); with JavaScript
// it is sent by a fetcher and its button says so while it is on its way.
import { useFetcher } from "@remix-run/react";
import type { PostPatchView } from "~/models/game-patch.server";
import { compatibilityLine, PATCH_MARKS, type PatchMarkName } from "~/utils/game-patch-words";

type Version = { id: string; label: string };

const MARK_LABELS: Record<PatchMarkName, string> = { works: "Works", broken: "Broken", untested: "Untested" };

function Hidden({ postId, versionId, patchId, back, intent }: { postId: string; versionId: string; patchId: string; back: string; intent: string }) {
  return (
    <>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="postId" value={postId} />
      <input type="hidden" name="versionId" value={versionId} />
      <input type="hidden" name="patchId" value={patchId} />
      <input type="hidden" name="back" value={back} />
    </>
  );
}

function PlayerAnswer({
  postId,
  version,
  patch,
  myVote,
  back,
}: {
  postId: string;
  version: Version;
  patch: { id: string; name: string };
  myVote: string | null;
  back: string;
}) {
  const fetcher = useFetcher();
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post" action="/library" data-testid="patch-vote">
      <Hidden postId={postId} versionId={version.id} patchId={patch.id} back={back} intent="patch-vote" />
      <span>Your {version.label}:</span>
      <button type="submit" name="verdict" value="works" className="button-secondary button-small" aria-pressed={myVote === "works"} disabled={busy}>
        Works on {patch.name}
      </button>
      <button type="submit" name="verdict" value="broken" className="button-secondary button-small" aria-pressed={myVote === "broken"} disabled={busy}>
        Broken on {patch.name}
      </button>
    </fetcher.Form>
  );
}

function AdminMark({
  postId,
  version,
  patch,
  mark,
  votes,
  back,
}: {
  postId: string;
  version: Version;
  patch: { id: string; name: string };
  mark: PatchMarkName;
  votes: number;
  back: string;
}) {
  const markFetcher = useFetcher();
  const acceptFetcher = useFetcher();
  const selectId = `patch-mark-${version.id}`;
  return (
    <>
      <markFetcher.Form method="post" action="/library" data-testid="patch-mark">
        <Hidden postId={postId} versionId={version.id} patchId={patch.id} back={back} intent="patch-mark" />
        <label htmlFor={selectId}>
          Mark of {version.label} on {patch.name}
        </label>
        <select id={selectId} name="mark" defaultValue={mark}>
          {PATCH_MARKS.map((choice) => (
            <option key={choice} value={choice}>
              {MARK_LABELS[choice]}
            </option>
          ))}
        </select>
        <button type="submit" className="button-secondary button-small" disabled={markFetcher.state !== "idle"}>
          Save mark
        </button>
      </markFetcher.Form>
      {votes > 0 ? (
        <acceptFetcher.Form method="post" action="/library" data-testid="patch-accept">
          <Hidden postId={postId} versionId={version.id} patchId={patch.id} back={back} intent="patch-accept" />
          <button type="submit" className="button-secondary button-small" disabled={acceptFetcher.state !== "idle"}>
            Accept the players&apos; answer
          </button>
        </acceptFetcher.Form>
      ) : null}
    </>
  );
}

export function PatchCompatibility({
  postId,
  versions,
  compatibility,
  admin,
  back,
}: {
  postId: string;
  versions: readonly Version[];
  compatibility: PostPatchView;
  admin: boolean;
  back: string;
}) {
  const { patch } = compatibility;
  if (!patch || versions.length === 0) return null;
  return (
    <section className="card patch-compat" aria-labelledby="patch-compat-title" data-testid="patch-compat">
      <h2 id="patch-compat-title">Game compatibility</h2>
      <ul className="patch-compat-list">
        {versions.map((version) => {
          const view = compatibility.versions[version.id];
          if (!view) return null;
          const history = compatibility.history[version.id] ?? [];
          const { works, broken } = view.votes;
          return (
            <li key={version.id} className="patch-compat-version" data-testid="patch-compat-version" data-version={version.label}>
              <strong>{version.label}</strong>
              <span className={`post-patch post-patch-${view.mark}`}>{compatibilityLine({ patch: patch.name, mark: view.mark })}</span>
              <span className="muted" data-testid="patch-votes">
                {`${works} ${works === 1 ? "player" : "players"} confirmed · ${broken} reported broken`}
              </span>
              {history.length > 0 ? (
                <span className="muted">Earlier: {history.map((item) => `${MARK_LABELS[item.mark]} on ${item.patch}`).join(", ")}</span>
              ) : null}
              {compatibility.downloadedVersionIds.includes(version.id) ? (
                <PlayerAnswer postId={postId} version={version} patch={patch} myVote={view.myVote} back={back} />
              ) : null}
              {admin ? <AdminMark postId={postId} version={version} patch={patch} mark={view.mark} votes={works + broken} back={back} /> : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
