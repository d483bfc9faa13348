// "Download all updates": fetches the files one after another (never two at once, with a short
// pause between them, so one click cannot swamp the server) and saves each, showing progress.
// Needs JavaScript; without it every update keeps its own Download button. It also shows the
// page's empty state, so the list, the run and "You are up to date." never show at once.
import { Link, useRevalidator } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

/** An update to fetch: the post's current main file, or the variant chosen last time (`fileId`). */
type Item = { postId: string; title: string; fileId?: string | null };
type Progress = { index: number; percent: number | null; title: string };

const PAUSE_MS = 500;

function fileNameFrom(response: Response, fallback: string): string {
  const header = response.headers.get("Content-Disposition") ?? "";
  const utf8 = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (utf8) return decodeURIComponent(utf8[1]!);
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain?.[1] ?? fallback;
}

async function errorText(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: string };
    if (body.error) return body.error;
  } catch {
    // Not JSON.
  }
  return `Download failed (${response.status}).`;
}

async function fetchFile(item: Item, signal: AbortSignal, onPercent: (percent: number | null) => void): Promise<void> {
  const query = item.fileId ? `?file=${encodeURIComponent(item.fileId)}` : "";
  const response = await fetch(`/api/download/${encodeURIComponent(item.postId)}${query}`, { credentials: "same-origin", signal });
  if (!response.ok || !response.body) throw new Error(await errorText(response));
  const total = Number(response.headers.get("Content-Length")) || 0;
  const reader = response.body.getReader();
  const chunks: BlobPart[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onPercent(total ? Math.round((received / total) * 100) : null);
  }
  const url = URL.createObjectURL(new Blob(chunks, { type: "application/octet-stream" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileNameFrom(response, `${item.postId}.bin`);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** What the last "Download all" run came to; `complete` when every file was saved. */
type Outcome = { message: string; complete: boolean };

/**
 * The updates list's one state at a time: the list with "Download all updates (n)", the run's
 * progress, or "You are up to date." (after a run that saved everything, with how many). A run
 * that stopped or failed keeps its message above what is still behind.
 */
export function DownloadAllUpdates({ items, children }: { items: Item[]; children: React.ReactNode }) {
  const [hydrated, setHydrated] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const abort = useRef<AbortController | null>(null);
  const revalidator = useRevalidator();
  useEffect(() => setHydrated(true), []);
  useEffect(() => () => abort.current?.abort(), []);

  async function run() {
    const controller = new AbortController();
    abort.current = controller;
    setOutcome(null);
    const queue = [...items];
    let done = 0;
    try {
      for (const [index, item] of queue.entries()) {
        setProgress({ index, percent: 0, title: item.title });
        await fetchFile(item, controller.signal, (percent) => setProgress({ index, percent, title: item.title }));
        done += 1;
        if (index < queue.length - 1) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      setOutcome({ message: done === 1 ? "1 update downloaded." : `All ${done} updates downloaded.`, complete: true });
    } catch (error) {
      const stopped = controller.signal.aborted;
      setOutcome({
        message: stopped
          ? `Stopped after ${done} of ${queue.length}.`
          : `${error instanceof Error ? error.message : "Download failed."} (${done} of ${queue.length} done)`,
        complete: false,
      });
    } finally {
      abort.current = null;
      setProgress(null);
      // The finished downloads are recorded: the list shrinks to what is still behind.
      revalidator.revalidate();
    }
  }

  const running = progress !== null;
  // Until the reloaded list arrives, the old one (and its count) is out of date: not shown.
  const settling = !running && outcome !== null && revalidator.state !== "idle";
  if (!running && (items.length === 0 || (settling && outcome.complete))) {
    return (
      <div className="account-empty" data-testid="no-updates" role="status">
        <h2 className="account-empty-title">{outcome?.complete ? `${outcome.message} You are up to date.` : "You are up to date."}</h2>
        <p className="muted">When a post you own gets a new version, it shows up here.</p>
        <Link className="button-secondary" to="/library">
          Go to the library
        </Link>
      </div>
    );
  }
  return (
    <>
      {!hydrated ? (
        <p className="muted">Download each update with its own button (downloading all at once needs JavaScript).</p>
      ) : (
        <div className="download-all" data-testid="download-all">
          <div className="button-row">
            <button type="button" className="button" onClick={() => void run()} disabled={running || settling} aria-busy={running || undefined}>
              {running ? "Downloading updates…" : `Download all updates (${items.length})`}
            </button>
            {running ? (
              <button type="button" className="button-secondary" onClick={() => abort.current?.abort()}>
                Stop
              </button>
            ) : null}
          </div>
          {running ? (
            <div className="download-all-progress">
              <progress value={progress.index} max={items.length} aria-label="Updates downloaded" />
              <p role="status">
                Downloading {progress.index + 1} of {items.length}: {progress.title}
                {progress.percent !== null ? ` (${progress.percent}%)` : ""}
              </p>
            </div>
          ) : null}
          {outcome && !outcome.complete ? <p role="status">{outcome.message}</p> : null}
        </div>
      )}
      {children}
    </>
  );
}
