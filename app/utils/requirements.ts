// A post's requirements as a viewer reads them (docs/product.md#requirements): "Requires Base Pack
// V2 or later · unlocked by Tier 2". The required post's access line comes from the card's own
// explanation of that post (app/models/access.server.ts `describeLibraryCards`), so a requirement
// never says something the required post's card would not. A required post the viewer may not
// see is not named.
import type { AccessSummary } from "~/utils/access-words";

/** A requirement as stored (the listing's snapshot keeps them per post). */
export type StoredRequirement = { kind: "post"; requiredPostId: string; minVersion: string | null } | { kind: "item"; name: string; url: string };

/** A requirement as a card, the post page and GET /api/library/posts/{id} show it. */
export type RequirementView =
  | {
      kind: "post";
      post_id: string;
      title: string;
      min_version: string | null;
      /** The viewer may download the required post now. */
      met: boolean;
      /** "Requires Base Pack V2 or later". */
      words: string;
      /** "you have it", "free", "unlocked by Tier 2", "sold in the Ko-fi Shop". */
      access: string;
    }
  /** A required post the viewer may not see (disabled or scheduled): counted, never named. */
  | { kind: "unavailable"; met: false; words: string; access: string }
  | { kind: "item"; name: string; url: string; met: null; words: string };

export const REQUIREMENT_WORDS = {
  unavailable: "Requires another post that is not available yet",
  unavailableAccess: "not out yet",
  have: "you have it",
  free: "free",
  shop: "sold in the Ko-fi Shop",
  locked: "not available to you",
  notice: "Works best with what it requires; you can still download it.",
} as const;

function either(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/** The required post's access line, from its card's explanation: "you have it", "unlocked by Tier 2, or sold in the Ko-fi Shop". */
export function requirementAccessWords(
  access: Pick<AccessSummary, "allowed" | "unlockTierIds" | "shopItem">,
  free: boolean,
  tiers: readonly { tierId: string; title: string }[],
): string {
  if (access.allowed) return free ? REQUIREMENT_WORDS.free : REQUIREMENT_WORDS.have;
  // In the tiers' own order (by price), as the card's access line.
  const names = tiers.filter((tier) => access.unlockTierIds.includes(tier.tierId)).map((tier) => tier.title);
  if (names.length > 0 && access.shopItem) return `unlocked by ${either(names)}, or ${REQUIREMENT_WORDS.shop}`;
  if (names.length > 0) return `unlocked by ${either(names)}`;
  return access.shopItem ? REQUIREMENT_WORDS.shop : REQUIREMENT_WORDS.locked;
}

/** What the viewer's listing says about a required post: null when they may not see it. */
export type RequiredPostFacts = { title: string; free: boolean; access: Pick<AccessSummary, "allowed" | "unlockTierIds" | "shopItem"> };

/** Each requirement in the viewer's words. */
export function describeRequirements(
  stored: readonly StoredRequirement[],
  required: ReadonlyMap<string, RequiredPostFacts>,
  tiers: readonly { tierId: string; title: string }[],
): RequirementView[] {
  return stored.map((item): RequirementView => {
    if (item.kind === "item") return { kind: "item", name: item.name, url: item.url, met: null, words: `Requires ${item.name}` };
    const facts = required.get(item.requiredPostId);
    if (!facts) return { kind: "unavailable", met: false, words: REQUIREMENT_WORDS.unavailable, access: REQUIREMENT_WORDS.unavailableAccess };
    return {
      kind: "post",
      post_id: item.requiredPostId,
      title: facts.title,
      min_version: item.minVersion,
      met: facts.access.allowed,
      words: `Requires ${facts.title}${item.minVersion ? ` ${item.minVersion} or later` : ""}`,
      access: requirementAccessWords(facts.access, facts.free, tiers),
    };
  });
}

/** The requirements a download goes ahead without (posts the viewer cannot download, or cannot see). */
export function unmetRequirements(views: readonly RequirementView[]): RequirementView[] {
  return views.filter((view) => view.met === false);
}
