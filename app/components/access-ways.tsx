// The inside of a locked card's "What unlocks this?" (access-note.tsx loads this module when the
// disclosure is opened; the server draws it with every card): the ways in, in words, and the rules
// that came close ("Why not yet:").
import type { AccessSummary } from "~/utils/access-words";

type NoteTier = { tierId: string; title: string };

export type AccessWaysProps = { access: AccessSummary; tiers: readonly NoteTier[] };

export function AccessWays({ access, tiers }: AccessWaysProps) {
  const titles = new Map(tiers.map((tier) => [tier.tierId, tier.title]));
  const unlockTiers = [...new Set(access.unlockTierIds)];
  const hasWays = unlockTiers.length > 0 || access.shopItem !== null;
  return (
    <>
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
    </>
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
