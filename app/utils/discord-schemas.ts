// Input rules and words of Discord roles that follow access (docs/product.md#discord-roles): one
// schema for the admin page's form and for POST /api/admin/discord-roles. Plain module: the pages
// show these words too.
import { z } from "zod";

export const DISCORD_RULES = ["TIER_AT_LEAST", "OWNS_POST", "OWNS_SHOP_ITEM", "VOTED_FOR_IDEA", "HOLDS_GRANT", "ANY_PAID_ACCESS"] as const;
export type DiscordRule = (typeof DISCORD_RULES)[number];

/** How the admin page names each rule. */
export const DISCORD_RULE_WORDS: Record<DiscordRule, string> = {
  TIER_AT_LEAST: "Tier or higher",
  OWNS_POST: "Owns a post (may download it)",
  OWNS_SHOP_ITEM: "Bought a shop item",
  VOTED_FOR_IDEA: "Voted for an idea",
  HOLDS_GRANT: "Holds a grant",
  ANY_PAID_ACCESS: "Any paid access",
};

/** The words of the Discord pages and API (docs/messages.md). */
export const DISCORD_MESSAGES = {
  off: "Discord roles are off: set DISCORD_BOT_TOKEN and DISCORD_GUILD_ID to turn them on. Mappings are kept meanwhile.",
  roleIdInvalid: "A Discord role id is a number of up to 20 digits (Server Settings → Roles → Copy Role ID).",
  roleNameRequired: "Give the role the name it has on Discord.",
  roleNameTooLong: "A role name has at most 100 characters.",
  ruleInvalid: "Pick a rule.",
  tierRequired: "Pick a tier.",
  postRequired: "Pick a post.",
  shopItemRequired: "Give the shop item's code.",
  ideaRequired: "Pick an idea.",
  unknownTier: "Unknown tier.",
  unknownPost: "Post not found.",
  unknownIdea: "Idea not found.",
  roleTaken: "This Discord role is already mapped. Remove its mapping first.",
  notFound: "Mapping not found.",
  created: "The role mapping is saved. Members get or lose the role within a minute.",
  removed: "The role mapping is removed. Members who had the role through it lose it within a minute.",
  createFailed: "Could not save the role mapping.",
  removeFailed: "Could not remove the role mapping.",
  fetchFailed: "Could not load the Discord roles.",
} as const;

const optionalText = z.preprocess((value) => (typeof value === "string" && value.trim() === "" ? undefined : value), z.string().trim().max(200).optional());

/** A role mapping: the role, its name and its rule with the rule's one target. */
export const roleMappingSchema = z
  .object({
    role_id: z
      .string({ required_error: DISCORD_MESSAGES.roleIdInvalid, invalid_type_error: DISCORD_MESSAGES.roleIdInvalid })
      .trim()
      .regex(/^\d{1,20}$/, DISCORD_MESSAGES.roleIdInvalid),
    role_name: z
      .string({ required_error: DISCORD_MESSAGES.roleNameRequired, invalid_type_error: DISCORD_MESSAGES.roleNameRequired })
      .trim()
      // "@Gold" and "Gold" name the same role.
      .transform((name) => name.replace(/^@+/, "").trim())
      .pipe(z.string().min(1, DISCORD_MESSAGES.roleNameRequired).max(100, DISCORD_MESSAGES.roleNameTooLong)),
    rule: z.enum(DISCORD_RULES, { errorMap: () => ({ message: DISCORD_MESSAGES.ruleInvalid }) }),
    tier_id: optionalText,
    post_id: optionalText,
    shop_item: optionalText,
    idea_id: optionalText,
  })
  .strict()
  .superRefine((input, context) => {
    const need = (field: "tier_id" | "post_id" | "shop_item" | "idea_id", message: string) => {
      if (!input[field]) context.addIssue({ code: z.ZodIssueCode.custom, path: [field], message });
    };
    if (input.rule === "TIER_AT_LEAST") need("tier_id", DISCORD_MESSAGES.tierRequired);
    if (input.rule === "OWNS_POST") need("post_id", DISCORD_MESSAGES.postRequired);
    if (input.rule === "OWNS_SHOP_ITEM") need("shop_item", DISCORD_MESSAGES.shopItemRequired);
    if (input.rule === "VOTED_FOR_IDEA") need("idea_id", DISCORD_MESSAGES.ideaRequired);
  })
  // Only the rule's own target is kept (a form sends every field).
  .transform((input) => ({
    roleId: input.role_id,
    roleName: input.role_name,
    rule: input.rule,
    tierId: input.rule === "TIER_AT_LEAST" ? (input.tier_id ?? null) : null,
    postId: input.rule === "OWNS_POST" || input.rule === "HOLDS_GRANT" ? (input.post_id ?? null) : null,
    shopItem: input.rule === "OWNS_SHOP_ITEM" ? (input.shop_item ?? null) : null,
    panelId: input.rule === "VOTED_FOR_IDEA" ? (input.idea_id ?? null) : null,
  }));
