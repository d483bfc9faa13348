// The card's access explanation: why an unlocked post is unlocked, or (in a <details>, so it
// opens without JavaScript) what would unlock a locked one, each way with its own button.
import type { AccessSummary } from "~/utils/access-words";

type NoteTier = { tierId: string; title: string };
type NoteLinks = { kofiShopUrl: string; patreonCreatorUrl: string };

export function AccessNote({ access, tiers, links }: { access: AccessSummary | undefined; tiers: readonly NoteTier[]; links: NoteLinks }) {
  if (!access) return null;
  if (access.allowed) {
    return (
      <p className="post-access" data-testid="access-reason">
        <span className="visually-hidden">Why you can download this: </span>
        {access.summary}
      </p>
    );
  }
  const titles = new Map(tiers.map((tier) => [tier.tierId, tier.title]));
  const unlockTiers = [...new Set(access.unlockTierIds)];
  const hasWays = unlockTiers.length > 0 || access.shopItem !== null;
  return (
    <details className="post-access post-access-locked" data-testid="access-unlock">
      <summary>What unlocks this?</summary>
      {hasWays ? (
        <ul className="post-access-ways">
          {unlockTiers.map((tierId) => {
            const title = titles.get(tierId) ?? "Unknown Tier";
            return (
              <li key={tierId}>
                <span>A {title} membership</span>
                <a className="button-secondary" href={`${links.patreonCreatorUrl}/join`} target="_blank" rel="noreferrer">
                  Join {title}
                </a>
              </li>
            );
          })}
          {access.shopItem ? (
            <li>
              <span>Buying it in the shop</span>
              <a className="button-secondary" href={`${links.kofiShopUrl}/s/${encodeURIComponent(access.shopItem)}`} target="_blank" rel="noreferrer">
                Buy in the shop
              </a>
            </li>
          ) : null}
        </ul>
      ) : (
        <p className="muted">Nothing can unlock this post at the moment.</p>
      )}
      <NearMisses misses={access.misses} heading="Why not yet:" />
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
