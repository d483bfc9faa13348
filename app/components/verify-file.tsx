// "Verify a file" on a card: a quiet disclosure, closed at first. Server-rendered (and shown until
// the page's scripts run) it holds only the note that it needs JavaScript: a plain element, not
// <noscript>, so it shows wherever scripts do not run. The control itself (verify-file-form.tsx:
// hashing, the comparison with the post's versions) is loaded when the disclosure is first
// opened, or pointed at, so it is not part of the library page's first load.
import { useEffect, useState } from "react";
import { onDemand, useDisclosure, useOnDemand } from "~/components/on-demand";
import { VERIFY_MESSAGES } from "~/utils/verify-file";

const verifyBody = onDemand(null, () => import("~/components/verify-file-form").then((module) => module.VerifyFileBody));

function preload() {
  verifyBody.load().catch(() => {
    // Said when the disclosure is opened.
  });
}

export function VerifyFile({ postId, postTitle }: { postId: string; postTitle: string }) {
  const [enhanced, setEnhanced] = useState(false);
  useEffect(() => setEnhanced(true), []);
  const disclosure = useDisclosure(false);
  const { Component: Body, failed } = useOnDemand(verifyBody, disclosure.open);
  return (
    <details ref={disclosure.ref} className="verify-file" data-testid="verify-file" onToggle={disclosure.onToggle}>
      <summary className="verify-file-summary" onPointerEnter={preload} onFocus={preload}>
        Verify a file
      </summary>
      {!enhanced ? (
        <p className="verify-file-note muted">{VERIFY_MESSAGES.needsJavaScript}</p>
      ) : Body ? (
        <Body postId={postId} postTitle={postTitle} />
      ) : disclosure.open ? (
        <p className="verify-file-note muted" role="status">
          {failed ? VERIFY_MESSAGES.loadFailed : VERIFY_MESSAGES.loading}
        </p>
      ) : null}
    </details>
  );
}
