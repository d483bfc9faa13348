// The library's download-and-terms flow with JavaScript: the terms popup before a first download,
// then the file. Every step posts to the library's own action (`intent=download`), the same one
// the plain forms post to without JavaScript; only the answer differs (data with `respond=json`,
// a redirect without). The file itself is a GET of the address the action hands back.
import { useFetcher } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { showToast } from "~/components/toaster";
import type { LibraryPost } from "~/models/library-listing.server";
import { DOWNLOAD_MESSAGE_DELAY_MS, LIBRARY_PAGE_MESSAGES } from "~/utils/library-words";

/** What the library action answers a JavaScript download: the file's address, or why not. */
export type DownloadAnswer = { downloadUrl: string; paid: boolean } | { error: string };

const GUEST_TOS_KEY = "tosAcceptedForSession";

function guestAcceptedThisSession(): boolean {
  try {
    return sessionStorage.getItem(GUEST_TOS_KEY) === "true";
  } catch {
    return false;
  }
}

function rememberGuestAcceptance() {
  try {
    sessionStorage.setItem(GUEST_TOS_KEY, "true");
  } catch {
    // Remembered for this page only.
  }
}

/** One toast per download: it says the download is coming, then that it started (or why not). */
function downloadToast(postId: string, type: "info" | "success" | "error", message: string) {
  showToast({ id: `download-${postId}`, type, message });
}

/** Free posts open their signed address in a new tab; paid ones load in the hidden frame. */
async function fetchFile({ downloadUrl, paid }: { downloadUrl: string; paid: boolean }, frame: HTMLIFrameElement | null, postId: string): Promise<boolean> {
  if (!paid) {
    const tab = window.open(downloadUrl, "_blank");
    if (tab) tab.opener = null;
    else if (frame) frame.src = downloadUrl; // Pop-up blocked: download in place.
    return true;
  }
  if (!frame) return false;
  // A file missing from storage answers JSON, which a hidden frame would swallow: ask first.
  try {
    const check = await fetch(downloadUrl, { method: "HEAD", credentials: "include" });
    if (!check.ok) {
      const answer = await fetch(downloadUrl, { credentials: "include" });
      const body = (await answer.json().catch(() => ({}))) as { error?: string };
      downloadToast(postId, "error", body.error ?? LIBRARY_PAGE_MESSAGES.fetchFailed);
      return false;
    }
  } catch {
    downloadToast(postId, "error", LIBRARY_PAGE_MESSAGES.fetchFailed);
    return false;
  }
  frame.src = `${downloadUrl}?at=${Date.now()}`;
  return true;
}

export function useLibraryDownload({ loggedIn, tosAcceptedOnServer }: { loggedIn: boolean; tosAcceptedOnServer: boolean }) {
  const fetcher = useFetcher<DownloadAnswer>();
  const { submit } = fetcher;
  const frameRef = useRef<HTMLIFrameElement>(null);
  const [tosAccepted, setTosAccepted] = useState(tosAcceptedOnServer);
  const [termsFor, setTermsFor] = useState<LibraryPost | null>(null);
  /** Posts downloaded on this page, by id: their version, so each card updates in place. */
  const [downloaded, setDownloaded] = useState<Readonly<Record<string, string>>>({});
  /** The post the pending request is for (one at a time: the fetcher keeps the latest). */
  const pending = useRef<LibraryPost | null>(null);
  /** The file the terms popup was opened for (a variant, add-on or translation; null: the main file). */
  const termsFile = useRef<string | null>(null);
  useEffect(() => setTosAccepted(tosAcceptedOnServer), [tosAcceptedOnServer]);

  const submitDownload = useCallback(
    (post: LibraryPost, acceptTos: boolean, fileId: string | null) => {
      pending.current = post;
      downloadToast(post.postId, "info", LIBRARY_PAGE_MESSAGES.downloadStarting);
      const form: Record<string, string> = { intent: "download", postId: post.postId, respond: "json" };
      if (acceptTos) form.acceptTos = "true";
      if (fileId) form.fileId = fileId;
      submit(form, { method: "post", action: "/library" });
    },
    [submit],
  );

  // The action's answer: start the file, or say why not.
  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  useEffect(() => {
    const post = pending.current;
    if (!answer || !post) return;
    if ("error" in answer) {
      // The acceptance may have been refused too: back to what the server knows (revalidated by now).
      setTosAccepted(tosAcceptedOnServer);
      downloadToast(post.postId, "error", answer.error);
      return;
    }
    void fetchFile(answer, frameRef.current, post.postId).then((started) => {
      if (!started) return;
      // The download is recorded with the post's current version: the card drops its
      // "Never downloaded" / "Update available" badges now, not at the next reload.
      setDownloaded((current) => ({ ...current, [post.postId]: post.version }));
      window.setTimeout(() => downloadToast(post.postId, "success", LIBRARY_PAGE_MESSAGES.downloadStarted), DOWNLOAD_MESSAGE_DELAY_MS);
    });
    // Only a new answer starts a download; the server's terms state is read as of that answer.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [answer]);

  /** The Download button (of the main file, or `fileId`'s): the terms first unless accepted (this account, or this guest visit). */
  const requestDownload = useCallback(
    (post: LibraryPost, fileId: string | null = null) => {
      const guestAccepted = !loggedIn && guestAcceptedThisSession();
      termsFile.current = fileId;
      if (loggedIn ? !tosAccepted : !guestAccepted) setTermsFor(post);
      else submitDownload(post, guestAccepted, fileId);
    },
    [loggedIn, tosAccepted, submitDownload],
  );

  /** "I Accept" in the terms popup: accepted with the download request itself. */
  const acceptTermsAndDownload = useCallback(
    (post: LibraryPost) => {
      setTermsFor(null);
      if (loggedIn) {
        setTosAccepted(true); // Optimistic: the action records it with this request.
      } else {
        rememberGuestAcceptance();
        showToast({ type: "info", message: LIBRARY_PAGE_MESSAGES.guestTos });
      }
      submitDownload(post, true, termsFile.current);
    },
    [loggedIn, submitDownload],
  );

  return { frameRef, termsFor, downloaded, cancelTerms: () => setTermsFor(null), requestDownload, acceptTermsAndDownload };
}
