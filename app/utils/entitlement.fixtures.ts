// Test fixtures of the entitlement rule, shared by its two test files.
import type { EntitlementViewer } from "./entitlement";

/** A signed-in member who holds nothing yet (no tier, grant, purchase or pledge), with overrides. */
export function memberWithNothing(overrides: Partial<EntitlementViewer> = {}): EntitlementViewer {
  return {
    isAdmin: false,
    restricted: false,
    currentTierId: null,
    unlockedPostIds: new Set(),
    purchasedKofiCodes: new Set(),
    pledges: [],
    voterPostIds: new Set(),
    ...overrides,
  };
}
