// "Verify a file", the part that works: the user picks a file they downloaded; the browser hashes
// it in 4 MiB slices (File.slice, so a 4 GiB file never sits in memory) with hash-wasm's
// incremental SHA-256, through the content-hash feed that leaves a ZIP's comment out (a stamped
// paid download verifies like its stored file), and compares it with the post's versions fetched
// from /library/{postId}/versions. Nothing is uploaded. This module loads when a card's "Verify a
// file" is first opened (verify-file.tsx), and hash-wasm when a file is first picked.
import { useEffect, useId, useRef, useState } from "react";
import { contentHashFeed } from "~/utils/content-hash";
import { formatFileSize } from "~/utils/file-size";
import { VERIFY_MESSAGES, verdictFor, verdictText, type KnownVersion, type Verdict } from "~/utils/verify-file";

const SLICE_BYTES = 4 * 1024 * 1024;

type State =
  | { step: "idle" }
  | { step: "hashing"; fileName: string; done: number; total: number }
  | { step: "done"; fileName: string; verdict: Verdict }
  | { step: "failed"; message: string };

async function loadVersions(postId: string): Promise<KnownVersion[]> {
  const response = await fetch(`/library/${encodeURIComponent(postId)}/versions`, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) throw new Error(VERIFY_MESSAGES.versionsFailed);
  const body = (await response.json()) as { versions?: KnownVersion[] };
  return body.versions ?? [];
}

/** The file's content hash (hex), read slice by slice; `onProgress` after each slice; stops when `cancelled()`. */
async function contentHashOf(file: File, onProgress: (done: number) => void, cancelled: () => boolean): Promise<string | null> {
  const { createSHA256 } = await import("hash-wasm");
  const hasher = await createSHA256();
  hasher.init();
  const feed = contentHashFeed((bytes) => hasher.update(bytes));
  for (let at = 0; at < file.size; at += SLICE_BYTES) {
    if (cancelled()) return null;
    feed.push(new Uint8Array(await file.slice(at, at + SLICE_BYTES).arrayBuffer()));
    onProgress(Math.min(file.size, at + SLICE_BYTES));
  }
  feed.finish();
  return hasher.digest("hex");
}

/** The control, drawn in the open "Verify a file" disclosure once JavaScript runs. */
export function VerifyFileBody({ postId, postTitle }: { postId: string; postTitle: string }) {
  const id = useId();
  const [state, setState] = useState<State>({ step: "idle" });
  const versions = useRef<Promise<KnownVersion[]> | null>(null);
  const run = useRef(0);
  // A file picked while another is hashed stops the first; leaving the page stops both.
  useEffect(
    () => () => {
      run.current += 1;
    },
    [],
  );

  async function verify(file: File | undefined) {
    const mine = ++run.current;
    if (!file) return setState({ step: "idle" });
    setState({ step: "hashing", fileName: file.name, done: 0, total: file.size });
    // Asked once per card, while the file is being read.
    versions.current ??= loadVersions(postId);
    const known = versions.current.catch((error: unknown) => {
      versions.current = null;
      throw error;
    });
    try {
      const [hash, list] = await Promise.all([
        contentHashOf(
          file,
          (done) => {
            if (run.current === mine) setState({ step: "hashing", fileName: file.name, done, total: file.size });
          },
          () => run.current !== mine,
        ),
        known,
      ]);
      if (hash === null || run.current !== mine) return;
      if (list.length === 0) return setState({ step: "failed", message: VERIFY_MESSAGES.noVersions });
      setState({ step: "done", fileName: file.name, verdict: verdictFor(hash, list) });
    } catch (error) {
      if (run.current !== mine) return;
      const message = error instanceof Error && error.message === VERIFY_MESSAGES.versionsFailed ? error.message : VERIFY_MESSAGES.readFailed;
      setState({ step: "failed", message });
    }
  }

  return <VerifyFileForm id={id} postTitle={postTitle} state={state} onFile={(file) => void verify(file)} />;
}

function VerifyFileForm({ id, postTitle, state, onFile }: { id: string; postTitle: string; state: State; onFile: (file: File | undefined) => void }) {
  return (
    <div className="verify-file-body">
      <label htmlFor={`${id}-file`} className="verify-file-label">
        Choose the file to check
      </label>
      <input
        id={`${id}-file`}
        type="file"
        className="verify-file-input"
        aria-describedby={`${id}-hint ${id}-answer`}
        onChange={(event) => onFile(event.currentTarget.files?.[0])}
      />
      <p id={`${id}-hint`} className="verify-file-hint muted">
        Checks a downloaded file of {postTitle} in your browser. Nothing is uploaded.
      </p>
      {state.step === "hashing" ? (
        <div className="verify-file-progress">
          <label htmlFor={`${id}-progress`}>Reading {state.fileName}</label>
          <progress id={`${id}-progress`} max={Math.max(1, state.total)} value={state.done}>
            {formatFileSize(state.done)} of {formatFileSize(state.total)}
          </progress>
        </div>
      ) : null}
      <p
        id={`${id}-answer`}
        role="status"
        aria-live="polite"
        data-testid="verify-answer"
        className={`verify-file-answer${state.step === "done" ? ` is-${state.verdict.kind}` : state.step === "failed" ? " is-failed" : ""}`}
      >
        {state.step === "done" ? verdictText(state.verdict) : state.step === "failed" ? state.message : null}
      </p>
    </div>
  );
}
