// A secret shown once (a new personal token): a labelled read-only input, selected on focus so it
// can be copied without JavaScript, and a Copy button with a "Copied" toast once JavaScript runs.
import { useEffect, useState } from "react";
import { showToast } from "~/components/toaster";
import { COPIED_MESSAGE } from "~/components/account/feed-address";

export function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  const [canCopy, setCanCopy] = useState(false);
  useEffect(() => setCanCopy(typeof navigator !== "undefined" && Boolean(navigator.clipboard)), []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      showToast({ message: COPIED_MESSAGE, type: "success" });
    } catch {
      showToast({ message: "Could not copy: select the text and copy it yourself.", type: "error" });
    }
  }

  return (
    <div className="feed-address">
      <label htmlFor={id}>{label}</label>
      <div className="feed-address-row">
        <input id={id} type="text" readOnly value={value} spellCheck={false} onFocus={(event) => event.currentTarget.select()} />
        {canCopy ? (
          <button type="button" className="button-secondary" onClick={() => void copy()}>
            Copy
          </button>
        ) : null}
      </div>
    </div>
  );
}
