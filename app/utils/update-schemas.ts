// Input rules and words of the update feed and digest mails (docs/product.md#updates-by-feed-and-mail).
// Plain module: the pages show these words too.
import { z } from "zod";

/** A feed or unsubscribe token as we issue them: 32 random bytes, base64url (43 characters). */
export const updateTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

/** A checkbox: present ("on") when ticked, absent when not (plain HTML forms send nothing). */
const checkbox = z
  .union([z.literal("on"), z.literal("true"), z.literal("false"), z.literal("")])
  .optional()
  .transform((value) => value === "on" || value === "true");

/** The account page's two email opt-ins. */
export const updatePreferencesSchema = z.object({ newVersions: checkbox, newPosts: checkbox, releases: checkbox });

/** The words of the feed, mail-choice and unsubscribe forms (docs/messages.md). */
export const UPDATE_MESSAGES = {
  feedCreated: "Your new feed link is ready. Copy it now: it is shown only once.",
  preferencesSaved: "Your mail choices are saved.",
  unsubscribed: "You will get no more update mails. You can switch them on again in your account.",
  alreadyUnsubscribed: "This address gets no update mails.",
  unknownLink: "This unsubscribe link is not valid (anymore).",
  saveFailed: "Could not save your mail choices.",
  feedFailed: "Could not make a new feed link.",
  unsubscribeFailed: "Could not unsubscribe you. Please try again.",
} as const;
