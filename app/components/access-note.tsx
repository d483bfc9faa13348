// A locked card's "What unlocks this?" (in a <details>, so it opens without JavaScript): the
// ways in, in words, and the rules that came close ("Why not yet:"). The card's own buttons act
// on the ways; this only explains them, so it repeats none of them. An owned card says why it is
// the viewer's on its status line instead (post-card.tsx).
import type { AccessSummary } from "~/utils/access-words";

type NoteTier = { tierId: string; title: string };

export function AccessNote({ access, tiers, open = false }: { access: AccessSummary | undefined; tiers: readonly NoteTier[]; open?: boolean }) {
  if (!access || access.allowed) return null;
  const titles = new Map(tiers.map((tier) => [tier.tierId, tier.title]));
  const unlockTiers = [...new Set(access.unlockTierIds)];
  const hasWays = unlockTiers.length > 0 || access.shopItem !== null;
  return (
    <details className="post-disclosure post-access-locked" data-testid="access-unlock" open={open}>
      <summary>What unlocks this?</summary>
      <div className="post-disclosure-body">
        {hasWays ? (
          <ul className="post-access-ways">
            {unlockTiers.map((tierId) => (
              <li key={tierId}>A {titles.get(tierId) ?? "Unknown Tier"} membership</li>
            ))}
            {access.shopItem ? <li>Buying it in the shop</li> : null}
          </ul>
        ) : (
          <p className="muted">Nothing can unlock this post at the moment.</p>
        )}
        <NearMisses misses={access.misses} heading="Why not yet:" />
      </div>
    </details>
  );
}

/** The rules that were tried and did not unlock the post, in words. */
export function NearMisses({ misses, heading }: { misses: readonly string[]; heading: string }) {
  if (misses.length === 0) return null;
  return (
    <>
      <p className="post-access-heading">{heading}</p>
      <ul className="post-access-misses">
        {misses.map((miss, index) => (
          <li key={index}>{miss}</li>
        ))}
      </ul>
    </>
  );
}
