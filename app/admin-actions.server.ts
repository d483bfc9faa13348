// The /admin action, one function per form intent. Each calls the same model function as its
// /api/admin route and maps a refusal with formRefusal, so the page (with or without JavaScript)
// and the API give the same words; only the page's own wording for a non-.csv file differs
// (docs/messages.md).
import { data } from "@remix-run/node";
import type { AdminActionData } from "~/components/admin/action-data";
import { adminHref } from "~/components/admin/admin-href";
import { env } from "~/env.server";
import { searchDownloadsByCode, searchDownloadsByLeakedFile } from "~/models/admin-search.server";
import { addShopEmailAsAdmin, removeShopEmailAsAdmin, updateUserAsAdmin, verifyShopEmailAsAdmin } from "~/models/admin-user-edits.server";
import { isDomainError } from "~/models/errors";
import { forceIntervalSync } from "~/models/interval-sync.server";
import { importPurchasesCsv } from "~/models/purchase.server";
import { recomputeUnlocksForUser } from "~/models/unlocks.server";
import { sendUpdateDigestsNow } from "~/models/update-digest.server";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import {
  ADMIN_MESSAGES,
  adminUserFormSchema,
  codeSearchFormSchema,
  codeSearchSchema,
  digestsSentMessage,
  postedEditorSchema,
  shopEmailFormSchemas,
  type UserSearch,
} from "~/utils/admin-schemas";
import { MAX_CSV_BYTES } from "~/utils/body-limits";
import { formRefusal } from "~/utils/form-failure.server";
import { streamTail } from "~/utils/stream-tail.server";
import { readUploadedFile, receiveUploadedFile } from "~/utils/upload.server";
import { MAX_TAIL_BYTES } from "~/utils/zip-eocd";
import { errorFields, log } from "~/logger.server";
import { parseForm, readForm } from "~/utils/form-fields";
import { unlockObjectsUserSchema } from "~/utils/shop-schemas";
import { parseInput } from "~/utils/input-words";

function answer(value: AdminActionData, status = 200, headers: Record<string, string> = {}) {
  return data<AdminActionData>(value, { status, headers });
}

/** A refusal (or an unexpected failure, logged) as the intent's form answer. */
function refused(intent: string, error: unknown, failureMessage: string, extra: Record<string, unknown> = {}) {
  const refusal = formRefusal(error, failureMessage);
  return answer({ intent, error: refusal.message, ...refusal.extra, ...extra }, refusal.status, refusal.headers);
}

export async function importPurchases(actorId: string, request: Request) {
  const intent = "import-purchases";
  try {
    const file = await readUploadedFile(request, "file", { maxBytes: MAX_CSV_BYTES, missingMessage: ADMIN_MESSAGES.selectFile });
    return answer({ intent, report: await importPurchasesCsv(actorId, file.bytes, file.fileName) });
  } catch (error) {
    // The page words the one refusal the admin fixes by choosing another file its own way.
    if (isDomainError(error) && error.code === "not-csv") return answer({ intent, error: ADMIN_MESSAGES.csvOnly }, error.status);
    return refused(intent, error, ADMIN_MESSAGES.importFailed);
  }
}

export async function searchByCode(form: FormData) {
  const intent = "search-by-code";
  const values = parseForm(form, codeSearchFormSchema);
  const parsed = parseInput(codeSearchSchema, values);
  if (!parsed.success) return answer({ intent, error: parsed.error.issues[0]?.message ?? ADMIN_MESSAGES.codeSearchRequired, values }, 400);
  try {
    const result = await searchDownloadsByCode(parsed.data);
    if (!result) return answer({ intent, error: ADMIN_MESSAGES.userNotFound, values }, 404);
    return answer({ intent, result, values });
  } catch (error) {
    return refused(intent, error, ADMIN_MESSAGES.searchFailed, { values });
  }
}

/**
 * A leaked ZIP dropped on the code search (multipart, `/admin?intent=trace-zip`): the file streams
 * through and only its last MAX_TAIL_BYTES are kept; nothing is stored. Answers the number in its
 * comment, what its tag shows, and unless the stamp is forged that number's code search (the user
 * and all their downloads).
 */
export async function traceLeakedZip(request: Request) {
  const intent = "trace-zip";
  try {
    const file = await receiveUploadedFile(
      request,
      "file",
      { maxBytes: env().POST_FILE_MAX_BYTES, missingMessage: ADMIN_MESSAGES.selectLeakedZip },
      async ({ fileName, data }) => ({
        fileName,
        ...(await streamTail(data, MAX_TAIL_BYTES)),
      }),
    );
    const { number, stamp, result } = await searchDownloadsByLeakedFile(file.tail, file.size);
    const traced = { fileName: file.fileName, number, stamp };
    if (stamp === "forged") return answer({ intent, error: ADMIN_MESSAGES.forgedTrace, traced }, 422);
    if (!result) return answer({ intent, error: ADMIN_MESSAGES.userNotFound, traced }, 404);
    return answer({ intent, result, traced });
  } catch (error) {
    return refused(intent, error, ADMIN_MESSAGES.searchFailed);
  }
}

export async function forceInterval(actorId: string) {
  const intent = "force-interval";
  try {
    const summary = await forceIntervalSync(actorId);
    return answer({ intent, message: ADMIN_MESSAGES.intervalCompleted, summary });
  } catch (error) {
    return refused(intent, error, ADMIN_MESSAGES.forceIntervalFailed);
  }
}

/** "Send update digests now": the digest run at once; its count, or the refusal, comes back as a toast. */
export async function sendDigests(actorId: string, back: UserSearch) {
  try {
    const run = await sendUpdateDigestsNow(actorId);
    const message = digestsSentMessage(run);
    return run.failed > 0 ? redirectWithError(adminHref(back), message) : redirectWithSuccess(adminHref(back), message);
  } catch (error) {
    return redirectWithError(adminHref(back), formRefusal(error, ADMIN_MESSAGES.digestsFailed).message);
  }
}

export async function unlockObjects(actorId: string, form: FormData, back: UserSearch) {
  const chosen = readForm(form, unlockObjectsUserSchema);
  if (!chosen.success) return answer({ intent: "unlock-objects", error: ADMIN_MESSAGES.noUserSelected }, 400);
  const { userId } = chosen.data;
  try {
    const result = await recomputeUnlocksForUser(actorId, userId);
    if (!result) return redirectWithError(adminHref(back), ADMIN_MESSAGES.userNotFound);
    return redirectWithSuccess(adminHref({ ...back, user: userId }), `Unlocked objects updated. Added ${result.added}, removed ${result.removed}.`);
  } catch (error) {
    log().error({ userId, ...errorFields(error) }, ADMIN_MESSAGES.unlockFailed);
    return redirectWithError(adminHref({ ...back, user: userId }), ADMIN_MESSAGES.unlockFailed);
  }
}

const SHOP_EMAIL_DONE = {
  "add-shop-email": "Ko-fi email added as unverified.",
  "verify-shop-email": "Ko-fi email marked as verified.",
  "remove-shop-email": "Ko-fi email removed.",
} as const;

export type ShopEmailIntent = keyof typeof SHOP_EMAIL_DONE;

/**
 * Save (closes the editor), and the no-JavaScript Add / Mark verified / Remove of a shop email.
 * Those post the whole editor form but change only the shop email: the answer draws the editor
 * again with what the admin had typed elsewhere, still unsaved, so nothing typed is lost.
 */
export async function editUser(actorId: string, intent: "save-user" | ShopEmailIntent, form: FormData, back: UserSearch) {
  // The user edited: the same rule as the user chosen for "Unlock objects".
  const chosen = readForm(form, unlockObjectsUserSchema);
  if (!chosen.success) return answer({ intent, error: ADMIN_MESSAGES.noUserSelected }, 400);
  const { userId } = chosen.data;
  try {
    if (intent === "save-user") {
      const parsed = readForm(form, adminUserFormSchema);
      if (!parsed.success) return answer({ intent, error: parsed.error.issues[0]?.message ?? ADMIN_MESSAGES.updateUserFailed }, 400);
      await updateUserAsAdmin(actorId, userId, parsed.data);
      return redirectWithSuccess(adminHref(back), { message: ADMIN_MESSAGES.userUpdated });
    }
    const parsed = readForm(form, shopEmailFormSchemas[intent]);
    if (!parsed.success) return answer({ intent, error: parsed.error.issues[0]?.message ?? ADMIN_MESSAGES.shopEmailInvalid }, 400);
    if (intent === "add-shop-email") await addShopEmailAsAdmin(actorId, userId, parsed.data);
    else if (intent === "verify-shop-email") await verifyShopEmailAsAdmin(actorId, userId, parsed.data);
    else await removeShopEmailAsAdmin(actorId, userId, parsed.data);
    const posted = parseForm(form, postedEditorSchema);
    if (!posted) return redirectWithSuccess(adminHref({ ...back, user: userId }), { message: SHOP_EMAIL_DONE[intent] });
    return answer({ intent, message: SHOP_EMAIL_DONE[intent], posted });
  } catch (error) {
    return refused(intent, error, ADMIN_MESSAGES.updateUserFailed);
  }
}
