// The private feed's address, right after it is made: a labelled read-only input (selected on
// focus, so it can be copied without JavaScript), a Copy button with a "Copied" toast once
// JavaScript runs, and how to add it to a feed reader.
import { useEffect, useState } from "react";
import { showToast } from "~/components/toaster";

export const COPIED_MESSAGE = "Copied";

export function FeedAddress({ url }: { url: string }) {
  const [canCopy, setCanCopy] = useState(false);
  useEffect(() => setCanCopy(typeof navigator !== "undefined" && Boolean(navigator.clipboard)), []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(url);
      showToast({ message: COPIED_MESSAGE, type: "success" });
    } catch {
      showToast({ message: "Could not copy: select the address and copy it yourself.", type: "error" });
    }
  }

  return (
    <div className="feed-address">
      <label htmlFor="feed-url">Feed address</label>
      <div className="feed-address-row">
        <input id="feed-url" type="text" readOnly value={url} spellCheck={false} onFocus={(event) => event.currentTarget.select()} />
        {canCopy ? (
          <button type="button" className="button-secondary" onClick={() => void copy()}>
            Copy
          </button>
        ) : null}
      </div>
      <p className="muted" data-testid="feed-reader-help">
        To follow it, paste this address into your feed reader (Feedly, Inoreader, NetNewsWire, Thunderbird…) where it asks for a feed or site to add.
      </p>
    </div>
  );
}
