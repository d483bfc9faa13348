// Game patches as every surface words them (docs/product.md#game-patches, docs/messages.md word for
// word): plain values without zod, for the browser's pages; the schemas are in game-patch-schemas.ts.

// The messages (their own module: the library's cards and banner need only the lines below).
export { PATCH_MESSAGES } from "~/utils/game-patch-messages";

export const PATCH_MARKS = ["works", "broken", "untested"] as const;
export type PatchMarkName = (typeof PATCH_MARKS)[number];
export const PLAYER_VERDICTS = ["works", "broken"] as const;
export type PlayerVerdictName = (typeof PLAYER_VERDICTS)[number];

/** A post's standing on the current patch, as cards and the post page show it. */
export type PostCompatibility = { patch: string; mark: PatchMarkName };

/** The line a card shows: "Works on 1.113", "Broken on 1.113" or "Not yet confirmed for 1.113". */
export function compatibilityLine(compatibility: PostCompatibility): string {
  if (compatibility.mark === "works") return `Works on ${compatibility.patch}`;
  if (compatibility.mark === "broken") return `Broken on ${compatibility.patch}`;
  return `Not yet confirmed for ${compatibility.patch}`;
}

/** The library's patch-day banner: "12 of 30 posts confirmed for 1.113". */
export function patchBanner(confirmed: number, total: number, patch: string): string {
  return `${confirmed} of ${total} ${total === 1 ? "post" : "posts"} confirmed for ${patch}`;
}

/** How the feed and the digests announce a "works" mark: "Confirmed for 1.113" or "Fixed for 1.113 in V2.2". */
export function patchNewsHeadline({ patch, label, fixed }: { patch: string; label: string; fixed: boolean }): string {
  return fixed ? `Fixed for ${patch} in ${label}` : `Confirmed for ${patch}`;
}
