// A locked card's "What unlocks this?" (in a <details>, so it opens without JavaScript): the ways
// in, in words, and the rules that came close (access-ways.tsx, drawn by the server with every
// card; the browser loads its code when the disclosure is opened). The card's own buttons act on
// the ways; this only explains them, so it repeats none of them. An owned card says why it is
// the viewer's on its status line instead (post-card.tsx).
import { AccessWays, type AccessWaysProps } from "~/components/access-ways";
import { onDemand, ServerDrawn, useDisclosure } from "~/components/on-demand";
import type { AccessSummary } from "~/utils/access-words";

const accessWays = onDemand(import.meta.env.SSR ? AccessWays : null, () => import("~/components/access-ways").then((module) => module.AccessWays));

function preload() {
  accessWays.load().catch(() => {
    // The server's copy stays.
  });
}

export function AccessNote({ access, tiers, open = false }: { access: AccessSummary | undefined; tiers: AccessWaysProps["tiers"]; open?: boolean }) {
  const disclosure = useDisclosure(open);
  if (!access || access.allowed) return null;
  return (
    <details ref={disclosure.ref} className="post-disclosure post-access-locked" data-testid="access-unlock" open={open} onToggle={disclosure.onToggle}>
      <summary onPointerEnter={preload} onFocus={preload}>
        What unlocks this?
      </summary>
      <ServerDrawn part={accessWays} props={{ access, tiers }} wanted={disclosure.open} className="post-disclosure-body" />
    </details>
  );
}
