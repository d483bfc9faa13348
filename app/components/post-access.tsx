// The one line that says how a locked post is unlocked: the tiers that include it and/or the
// shop. Everything else on the card (buttons) acts on this line.
import type { CardTier } from "~/components/post-card";
import type { LibraryPost } from "~/models/library-listing.server";

/** "A", "A or B", "A, B or C". */
function either(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

export function accessLine(post: Pick<LibraryPost, "tiers" | "kofi_id" | "is_kofiOnly">, tiers: CardTier[]): string {
  const inShop = Boolean(post.kofi_id);
  if (post.is_kofiOnly) return inShop ? "Sold in the Ko-fi Shop" : "Locked";
  // In the tiers' own order (by price), not the post's.
  const names = tiers.filter((tier) => post.tiers.includes(tier.tierId)).map((tier) => tier.title);
  if (names.length > 0 && inShop) return `Unlocks with ${either(names)}, or sold in the Ko-fi Shop`;
  if (names.length > 0) return `Unlocks with ${either(names)}`;
  return inShop ? "Sold in the Ko-fi Shop" : "Locked";
}

export function PostAccess({ post, tiers }: { post: LibraryPost; tiers: CardTier[] }) {
  return (
    <span className="post-access" data-testid="post-access">
      {accessLine(post, tiers)}
    </span>
  );
}
