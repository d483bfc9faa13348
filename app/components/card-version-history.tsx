// The users' "Version history" disclosure on a library card. The server draws the versions with
// every card (so they open without JavaScript); the browser loads their code
// (card-version-list.tsx) only when the disclosure is opened, and keeps the server's copy until
// then (on-demand.tsx). `verifySlot` is the place for a "Verify a file" control that checks a
// picked file against these versions.
import type { ReactNode } from "react";
import { CardVersionList, type CardVersionListProps } from "~/components/card-version-list";
import { onDemand, ServerDrawn, useDisclosure } from "~/components/on-demand";

const versionList = onDemand(import.meta.env.SSR ? CardVersionList : null, () =>
  import("~/components/card-version-list").then((module) => module.CardVersionList),
);

function preload() {
  versionList.load().catch(() => {
    // The server's copy stays.
  });
}

export function VersionHistory({
  verifySlot,
  open = false,
  ...list
}: CardVersionListProps & {
  verifySlot?: ReactNode;
  /** Unfolded at first (the post's own page). */
  open?: boolean;
}) {
  const disclosure = useDisclosure(open);
  if (list.versions.length === 0) return null;
  return (
    <details
      ref={disclosure.ref}
      className="version-history"
      data-testid="version-history"
      data-post-id={list.postId}
      open={open}
      onToggle={disclosure.onToggle}
    >
      <summary onPointerEnter={preload} onFocus={preload}>
        Version history ({list.versions.length})
      </summary>
      {verifySlot ? <div className="version-verify">{verifySlot}</div> : null}
      <ServerDrawn part={versionList} props={list} wanted={disclosure.open} />
    </details>
  );
}
