// "Download all updates": fetches the files one after another (never two at once, with a short
// pause between them, so one click cannot swamp the server) and saves each, showing progress.
// Needs JavaScript; without it every update keeps its own Download button.
import { useRevalidator } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

type Item = { postId: string; title: string };
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
  const response = await fetch(`/api/download/${encodeURIComponent(item.postId)}`, { credentials: "same-origin", signal });
  if (!response.ok || !response.body) throw new Error(await errorText(response));
  const total = Number(response.headers.get("Content-Length")) || 0;
  const reader = response.body.getReader();
  const chunks: BlobPart[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value as Uint8Array<ArrayBuffer>);
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

export function DownloadAllUpdates({ items }: { items: Item[] }) {
  const [hydrated, setHydrated] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const revalidator = useRevalidator();
  useEffect(() => setHydrated(true), []);
  useEffect(() => () => abort.current?.abort(), []);

  async function run() {
    const controller = new AbortController();
    abort.current = controller;
    setMessage(null);
    const queue = [...items];
    let done = 0;
    try {
      for (const [index, item] of queue.entries()) {
        setProgress({ index, percent: 0, title: item.title });
        await fetchFile(item, controller.signal, (percent) => setProgress({ index, percent, title: item.title }));
        done += 1;
        if (index < queue.length - 1) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      setMessage(`All ${done} updates downloaded.`);
    } catch (error) {
      const stopped = controller.signal.aborted;
      setMessage(
        stopped
          ? `Stopped after ${done} of ${queue.length}.`
          : `${error instanceof Error ? error.message : "Download failed."} (${done} of ${queue.length} done)`,
      );
    } finally {
      abort.current = null;
      setProgress(null);
      // The finished downloads are recorded: the list shrinks to what is still behind.
      revalidator.revalidate();
    }
  }

  const running = progress !== null;
  // Kept mounted by the page when the list empties, so the final message stays readable.
  if (items.length === 0 && !running && !message) return null;
  if (!hydrated) return <p className="muted">Download each update with its own button (downloading all at once needs JavaScript).</p>;
  return (
    <div className="download-all" data-testid="download-all">
      <div className="button-row">
        <button type="button" className="button" onClick={run} disabled={running || items.length === 0} aria-busy={running || undefined}>
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
      {message ? <p role="status">{message}</p> : null}
    </div>
  );
}
