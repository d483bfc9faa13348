// The browser side of a resumable upload (docs/api.md#resumable-uploads): starts the upload, sends
// the missing parts one after another (S3: to their presigned URLs; local: to our part route),
// and after a failed part waits (1, 2, 4 … 30 s), asks what arrived and goes on from there.
// Cancelling stops the part in flight and drops the upload.

export type UploadProgress = { sent: number; total: number; retryInSeconds?: number };

type Status = {
  id: string;
  size: number;
  partSize: number;
  driver: "local" | "s3";
  receivedBytes: number;
  missing: number[];
  partUrls: { partNumber: number; url: string }[];
};

export class UploadRefused extends Error {}

const MAX_BACKOFF_MS = 30_000;

async function answerOf<T>(response: Response, fallback: string): Promise<T> {
  let body: { error?: string } & Record<string, unknown> = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not our JSON (a proxy's page).
  }
  if (!response.ok) {
    const error = body.error ?? fallback;
    // A refusal (4xx) will not change by trying again; a 5xx may.
    throw response.status < 500 ? new UploadRefused(error) : new Error(error);
  }
  return body as T;
}

/** PUTs one part by XMLHttpRequest (the browser API with upload progress); resolves when it arrived. */
function putPart(url: string, body: Blob, local: boolean, signal: AbortSignal, onLoaded: (bytes: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("PUT", url);
    // Our route takes the session cookie; a presigned S3 URL carries its own credential.
    request.withCredentials = local;
    if (local) request.setRequestHeader("Content-Type", "application/octet-stream");
    request.upload.onprogress = (event) => onLoaded(event.loaded);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) return resolve();
      let error = `Part upload failed (${request.status}).`;
      try {
        error = (JSON.parse(request.responseText) as { error?: string }).error ?? error;
      } catch {
        // S3 answers XML; the status says enough.
      }
      reject(
        request.status >= 400 && request.status < 500 && request.status !== 408 && request.status !== 429 && !(local && request.status === 400)
          ? new UploadRefused(error)
          : new Error(error),
      );
    };
    request.onerror = () => reject(new Error("Connection lost."));
    request.onabort = () => reject(new DOMException("Cancelled", "AbortError"));
    signal.addEventListener("abort", () => request.abort(), { once: true });
    request.send(body);
  });
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new DOMException("Cancelled", "AbortError"));
      },
      { once: true },
    );
  });
}

/**
 * Uploads `file` as a new version of post `postId`; answers the completing call's JSON
 * ({ message, post, version }). Throws UploadRefused with the server's words for a refusal, and
 * an AbortError when `signal` cancels (the upload is then dropped on the server).
 */
export async function uploadResumably(options: {
  postId: string;
  file: File;
  label: string;
  notes: string;
  signal: AbortSignal;
  onProgress: (progress: UploadProgress) => void;
  failureMessage: string;
}): Promise<{ message?: string }> {
  const { postId, file, label, notes, signal, onProgress, failureMessage } = options;
  const json = { "Content-Type": "application/json" };
  let status = await answerOf<Status>(
    await fetch("/api/uploads", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ postId, fileName: file.name, size: file.size, label, notes }),
      signal,
    }),
    failureMessage,
  );
  const id = status.id;
  try {
    let failures = 0;
    while (status.missing.length > 0) {
      try {
        let sent = status.receivedBytes;
        onProgress({ sent, total: file.size });
        for (const { partNumber, url } of status.partUrls) {
          const start = (partNumber - 1) * status.partSize;
          const part = file.slice(start, Math.min(file.size, start + status.partSize));
          await putPart(url, part, status.driver === "local", signal, (loaded) => onProgress({ sent: sent + loaded, total: file.size }));
          sent += part.size;
          failures = 0;
        }
      } catch (error) {
        if (error instanceof UploadRefused || signal.aborted) throw error;
        failures++;
        const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - 1));
        onProgress({ sent: status.receivedBytes, total: file.size, retryInSeconds: Math.round(delay / 1000) });
        await wait(delay, signal);
      }
      // Ask what arrived (and for fresh part URLs) before going on.
      for (;;) {
        try {
          status = await answerOf<Status>(await fetch(`/api/uploads/${id}`, { signal }), failureMessage);
          break;
        } catch (error) {
          if (error instanceof UploadRefused || signal.aborted) throw error;
          failures++;
          const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - 1));
          onProgress({ sent: status.receivedBytes, total: file.size, retryInSeconds: Math.round(delay / 1000) });
          await wait(delay, signal);
        }
      }
    }
    onProgress({ sent: file.size, total: file.size });
    return await answerOf<{ message?: string }>(await fetch(`/api/uploads/${id}/complete`, { method: "POST", signal }), failureMessage);
  } catch (error) {
    if (signal.aborted) await fetch(`/api/uploads/${id}`, { method: "DELETE" }).catch(() => undefined);
    throw error;
  }
}
