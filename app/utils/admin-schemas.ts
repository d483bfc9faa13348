// Validation for the admin area, shared by the /admin forms, the /admin action and /api/admin.
// Messages are docs/messages.md's, word for word.
import { z } from "zod";
import { boundedEmail, hasEmailShape } from "~/utils/email-shape";
import { checkbox, text } from "~/utils/form-fields";

export const ADMIN_MESSAGES = {
  fetchUsersFailed: "Failed to fetch users. Please try again later.",
  fetchOutboxFailed: "Failed to fetch the mail outbox. Please try again later.",
  userNotFound: "User not found.",
  fetchUserFailed: "Error fetching user data.",
  networkError: "Network error. Please try again.",
  fetchUnlockedFailed: "Failed to fetch unlocked content. Please try again.",
  fetchPostsFailed: "Failed to fetch available posts. Please try again.",
  updateUserFailed: "Error updating user.",
  unlockFailed: "Error unlocking objects",
  noUserSelected: "No user selected",
  searchFailed: "Error performing search",
  forceIntervalFailed: "Error forcing interval.",
  intervalCompleted: "Interval job completed.",
  importFailed: "Error importing purchases.",
  shopEmailEmpty: "Ko-fi email cannot be empty.",
  shopEmailInvalid: "Invalid email format.",
  codeSearchRequired: "Please enter both code and keyword",
  selectFile: "Please select a file first.",
  csvOnly: "Please select a .csv file.",
  emailTaken: "That email is already used by another account.",
  shopEmailTaken: "That Ko-fi email is already verified on another account.",
  userUpdated: "User updated successfully.",
  selfLockout: "You cannot restrict yourself or remove your own admin rights here.",
  selectLeakedZip: "Please choose the leaked ZIP file.",
  noTraceComment: "This file carries no leak-trace number: it is not a ZIP from a paid download, or its comment was removed or changed.",
  stampVerified: "Signed stamp, verified: this site wrote this number's tag.",
  stampUntagged: "Not verified: no signature tag (stamps from before tags carry none, and anyone can write a number).",
  forgedTrace:
    "This leak-trace stamp does not verify: its tag was not written by this site for that number (the stamp was forged or changed, or signed with a secret no longer in SESSION_SECRET). It is not attributed to any account.",
  digestsOff: "Update mails are switched off on this site (UPDATE_DIGEST_HOURS is 0).",
  digestsBusy: "Update digests are being sent right now. Try again in a minute.",
  digestsFailed: "Error sending update digests.",
} as const;

/** The toast after "Send update digests now": how many went out, and how many failed. */
export function digestsSentMessage({ mailed, failed }: { mailed: number; failed: number }): string {
  return `Update digests sent: ${mailed}.${failed > 0 ? ` Not sent yet: ${failed} (queued and retried; see Mail outbox).` : ""}`;
}

/** Checked by the page before uploading and by the import itself. */
export function isPurchaseCsvName(fileName: string): boolean {
  return fileName.toLowerCase().endsWith(".csv");
}

export const USER_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** An admin adding a shop (Ko-fi) email to a user: basic shape, something@something.tld. */
export const shopEmailSchema = boundedEmail(ADMIN_MESSAGES.shopEmailEmpty, ADMIN_MESSAGES.shopEmailInvalid);

/** User search and pagination (query parameters of /admin and GET /api/admin/users). */
export const userSearchSchema = z.object({
  // PostgreSQL text cannot hold NUL: drop it rather than fail the query.
  search: z
    .string()
    .trim()
    .max(200)
    .transform((value) => value.replace(/\0/g, ""))
    .catch(""),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).catch(USER_PAGE_SIZE),
});

export type UserSearch = z.infer<typeof userSearchSchema>;

export function parseUserSearch(params: URLSearchParams): UserSearch {
  return userSearchSchema.parse({
    search: params.get("search") ?? params.get("q") ?? "",
    page: params.get("page") ?? 1,
    pageSize: params.get("pageSize") ?? USER_PAGE_SIZE,
  });
}

const postIdSchema = z.string().trim().min(1).max(64);

/**
 * PUT /api/admin/users/{id}: the edited user, sent without null fields. Only the editable fields
 * are read; everything else the editor sends back (_id, hasPatreon, downloads, ...) is ignored.
 * A field that is missing (or null) is left unchanged.
 */
export const adminUserUpdateSchema = z.object({
  fullName: z.string().trim().max(200).optional(),
  email: z
    .string()
    .trim()
    .max(254, ADMIN_MESSAGES.shopEmailInvalid)
    .pipe(z.string().refine((value) => value === "" || hasEmailShape(value), ADMIN_MESSAGES.shopEmailInvalid))
    .optional(),
  restricted: z.boolean().optional(),
  canBeAdmin: z.boolean().optional(),
  isAdmin: z.boolean().optional(),
  /** A tier id; "" clears it. */
  current_tier: z.string().trim().max(64).optional(),
  unlocked_content: z.array(postIdSchema).max(10_000).optional(),
  kofiEmails: z
    .array(z.object({ email: shopEmailSchema, emailVerified: z.boolean().optional().default(false) }))
    .max(100)
    .optional(),
  /** Shop emails taken off the user (any case), verified or not; applied before `kofiEmails`. */
  removeKofiEmails: z.array(shopEmailSchema).max(100).optional(),
});

export type AdminUserUpdate = z.infer<typeof adminUserUpdateSchema>;

/** Removes null (and undefined) fields, as the editor does before it sends the user. */
export function withoutNullFields<T extends Record<string, unknown>>(value: T): Partial<T> {
  const result: Partial<T> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && item !== undefined) (result as Record<string, unknown>)[key] = item;
  }
  return result;
}

export const postIdsSchema = z.object({
  postIds: z.array(postIdSchema, { invalid_type_error: "postIds must be a list of post ids." }).max(10_000),
});

/** Code search: the leak-trace number of a user and a keyword of a post title. */
export const codeSearchSchema = z.object({
  code: z
    .union([z.string(), z.number()], {
      required_error: ADMIN_MESSAGES.codeSearchRequired,
      invalid_type_error: ADMIN_MESSAGES.codeSearchRequired,
    })
    .transform((value) => String(value).trim())
    .refine((value) => value.length > 0, ADMIN_MESSAGES.codeSearchRequired),
  keyword: z
    .string({ required_error: ADMIN_MESSAGES.codeSearchRequired, invalid_type_error: ADMIN_MESSAGES.codeSearchRequired })
    .trim()
    .min(1, ADMIN_MESSAGES.codeSearchRequired)
    .max(200),
});

export type CodeSearch = z.infer<typeof codeSearchSchema>;

/** The user editor's flags, posted as checkboxes. */
const editorFlags = { restricted: checkbox, canBeAdmin: checkbox, isAdmin: checkbox };

/**
 * The editor's form as PUT /api/admin/users/{id} takes it, then that route's schema. The shop
 * emails of the editor's draft travel as `kofiEmail` (each address) and `kofiEmailVerified`
 * (those marked verified), those taken off as `kofiEmailRemoved`.
 */
export const adminUserFormSchema = z
  .object({
    fullName: z.string().optional(),
    email: z.string().optional(),
    current_tier: z.string().optional(),
    ...editorFlags,
    unlocked_content: z.array(z.string()),
    kofiEmail: z.array(z.string()),
    kofiEmailVerified: z.array(z.string()),
    kofiEmailRemoved: z.array(z.string()),
  })
  .transform(({ kofiEmail, kofiEmailVerified, kofiEmailRemoved, unlocked_content, ...fields }) => {
    const verified = new Set(kofiEmailVerified.map((email) => email.toLowerCase()));
    const kofiEmails = [...new Set(kofiEmail)].map((email) => ({ email, emailVerified: verified.has(email.toLowerCase()) }));
    const removed = [...new Set(kofiEmailRemoved)];
    return {
      ...fields,
      unlocked_content: [...new Set(unlocked_content)],
      kofiEmails: kofiEmails.length > 0 ? kofiEmails : undefined,
      removeKofiEmails: removed.length > 0 ? removed : undefined,
    };
  })
  .pipe(adminUserUpdateSchema);

/** The editor's account fields and unlocked content as its form posted them (not validated: shown again, never saved). */
export type PostedEditorFields = {
  fullName: string;
  email: string;
  current_tier: string;
  restricted: boolean;
  canBeAdmin: boolean;
  isAdmin: boolean;
  unlocked_content: string[];
};

const typed = text.transform((value) => value.slice(0, 300));

/**
 * What the admin had typed in the editor when, without JavaScript, a shop email's Add, Mark
 * verified or Remove posted the whole form: the page draws the editor again with it, unsaved.
 * Null when the editor's fields were not posted (the shop email's own form, with JavaScript).
 */
export const postedEditorSchema = z
  .object({
    fullName: z.string().optional(),
    email: typed,
    current_tier: typed,
    ...editorFlags,
    unlocked_content: z.array(z.string()),
  })
  .transform(({ fullName, unlocked_content, ...fields }): PostedEditorFields | null =>
    fullName === undefined ? null : { fullName: fullName.slice(0, 300), ...fields, unlocked_content: [...new Set(unlocked_content)].slice(0, 10_000) },
  );

/**
 * Which /admin form was posted: its `intent`, or without JavaScript the editor's "Mark verified"
 * and "Remove", submit buttons named for their email.
 */
export const adminIntentSchema = z
  .object({ intent: text, verifyShopEmail: text, removeShopEmail: text })
  .transform(({ intent, verifyShopEmail, removeShopEmail }) => (verifyShopEmail ? "verify-shop-email" : removeShopEmail ? "remove-shop-email" : intent));

/** The code search's fields as typed (shown again with its answer), for codeSearchSchema. */
export const codeSearchFormSchema = z.object({ code: text, keyword: text });

/** Each shop email button's field: the address it adds, marks verified or removes. */
export const shopEmailFormSchemas = {
  "add-shop-email": z.object({ newShopEmail: shopEmailSchema }).transform((form) => form.newShopEmail),
  "verify-shop-email": z.object({ verifyShopEmail: shopEmailSchema }).transform((form) => form.verifyShopEmail),
  "remove-shop-email": z.object({ removeShopEmail: shopEmailSchema }).transform((form) => form.removeShopEmail),
} as const;
