// Input rules and words of personal API tokens (docs/product.md#personal-api-tokens): one schema
// for the account page's form and for POST /api/account/tokens. Plain module: the page shows these words too.
import { z } from "zod";

/** Longest label a token may carry (characters, after trimming). */
export const API_TOKEN_LABEL_MAX = 60;

/** Tokens an account may hold at once (expired ones do not count). */
export const MAX_API_TOKENS_PER_ACCOUNT = 20;

/** The words of the token page and API (docs/messages.md). */
export const API_TOKEN_MESSAGES = {
  labelRequired: "Give the token a label, so you know later where it is used.",
  labelTooLong: `A label has at most ${API_TOKEN_LABEL_MAX} characters.`,
  tooMany: `You have ${MAX_API_TOKENS_PER_ACCOUNT} tokens, the most an account may hold. Revoke one you no longer use first.`,
  created: "Your new token is ready. Copy it now: it is shown only once.",
  revoked: "The token is revoked: anything that used it is refused from now on.",
  notFound: "Token not found.",
  sessionOnly: "Tokens can only be made, listed and revoked from a signed-in browser session, not with a token.",
  createFailed: "Could not make a token.",
  revokeFailed: "Could not revoke the token.",
  listFailed: "Could not list your tokens.",
} as const;

/** A token's label: required, trimmed, at most API_TOKEN_LABEL_MAX characters. */
export const apiTokenLabelSchema = z.object({
  label: z
    .string({ required_error: API_TOKEN_MESSAGES.labelRequired, invalid_type_error: API_TOKEN_MESSAGES.labelRequired })
    .trim()
    .min(1, API_TOKEN_MESSAGES.labelRequired)
    .max(API_TOKEN_LABEL_MAX, API_TOKEN_MESSAGES.labelTooLong),
});
