// A version's SHA-256 on the admin post card: shortened to its first and last characters so it
// fits on one line (the whole hash in its title and for screen readers), with a Copy button
// that puts the whole hash on the clipboard. The button needs JavaScript, so it appears once the
// page is hydrated; without it the whole hash is still in the title.
import { useEffect, useState } from "react";
import { showToast } from "~/components/toaster";

/** "1a2b3c4d…9f8e7d6c": the first and last eight hex digits. */
export function shortHash(hash: string): string {
  return hash.length > 20 ? `${hash.slice(0, 8)}…${hash.slice(-8)}` : hash;
}

export function ContentHash({ hash, label }: { hash: string; label: string }) {
  const [canCopy, setCanCopy] = useState(false);
  useEffect(() => setCanCopy(typeof navigator !== "undefined" && Boolean(navigator.clipboard)), []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(hash);
      showToast({ type: "success", message: "SHA-256 copied." });
    } catch {
      showToast({ type: "error", message: "Could not copy the SHA-256." });
    }
  }

  return (
    <span className="content-hash" data-testid="content-hash">
      <code title={hash} aria-label={`SHA-256 ${hash}`} data-hash={hash}>
        {shortHash(hash)}
      </code>
      {canCopy ? (
        <button type="button" className="button-quiet content-hash-copy" onClick={() => void copy()} aria-label={`Copy the SHA-256 of ${label}`}>
          Copy
        </button>
      ) : null}
    </span>
  );
}
