// The account page's support-platform panel: a Link button (full-page OAuth redirect) when not
// linked; otherwise the current tier's title, None, or Unknown Tier.
import { useId } from "react";

export type SupportPlatformUser = { hasPatreon: boolean; current_tier: string | null };
export type TierOption = { tierId?: string; id?: string; title: string };

/** The words shown for the user's tier (spec: the tier title, None, or Unknown Tier). */
export function tierLabel(currentTier: string | null, tiers: TierOption[]): string {
  if (!currentTier) return "None";
  return tiers.find((tier) => (tier.tierId ?? tier.id) === currentTier)?.title ?? "Unknown Tier";
}

export function SupportPlatformPanel({ user, tiers, linkHref = "/api/auth/login" }: { user: SupportPlatformUser; tiers: TierOption[]; linkHref?: string }) {
  const headingId = useId();
  return (
    <section className="card account-panel support-platform-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Patreon</h2>
      {user.hasPatreon ? (
        <p>
          Current tier: <strong data-testid="current-tier">{tierLabel(user.current_tier, tiers)}</strong>
        </p>
      ) : (
        <>
          <p className="muted">Link your Patreon account to unlock the posts of your tier.</p>
          <a className="button" href={linkHref}>
            Link
          </a>
        </>
      )}
    </section>
  );
}
