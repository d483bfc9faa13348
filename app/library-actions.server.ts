// The /library action, for every form of the page with or without JavaScript: the 18+ answer,
// downloads (the terms first), and for admins a post's changes and uploads (postEditAction and
// uploadAction, which the post editor's action at /admin/posts/{postId} calls too). Each calls
// the same model function as its /api route and maps a refusal with formRefusal.
import { data, redirect } from "@remix-run/node";
import { firstIssue } from "~/api.server";
import type { DownloadAnswer } from "~/components/use-library-download";
import { env } from "~/env.server";
import { acceptTerms, authorizeDownload, isDownloadFreeAt, signedDownloadUrl } from "~/models/download.server";
import { acceptConfirmations, setVersionMark, voteOnPatch } from "~/models/game-patch.server";
import { createPost, deletePost, movePostToIndex, setPostEnabled, setPostImage, updatePost } from "~/models/post-admin.server";
import { addPostVersion, makeVersionCurrent, setVersionHidden, storePostVersionFile } from "~/models/post-version.server";
import { publishPost, setReleaseSteps } from "~/models/release.server";
import { getCurrentUser, NOT_AUTHENTICATED_MESSAGE } from "~/models/session.server";
import { releaseRequirementWarnings, setPostRequirements } from "~/models/post-requirements.server";
import { setPostTags } from "~/models/catalog.server";
import { CATALOG_MESSAGES, postTagsSchema, requirementsFormSchema } from "~/utils/catalog-schemas";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { formRefusal } from "~/utils/form-failure.server";
import { PATCH_MESSAGES, patchAcceptFormSchema, patchMarkFormSchema, patchVoteFormSchema } from "~/utils/game-patch-schemas";
import {
  LIBRARY_MESSAGES,
  postCreateFormSchema,
  postFormSchema,
  postTagsChangeFormSchema,
  requirementsChangeFormSchema,
  setIndexFormSchema,
  toggleFormSchema,
} from "~/utils/library-schemas";
import { readPageForm } from "~/utils/page-form.server";
import { draftFormSchema, editDraftRows, encodeReleaseDraft } from "~/utils/release-draft";
import { publishSchema, RELEASE_MESSAGES, releaseFormSchema, scheduleFormSchema } from "~/utils/release-schemas";
import { readUploadedFile, receiveUploadedFile, SELECT_IMAGE_MESSAGE } from "~/utils/upload.server";
import { withParam } from "~/utils/url";
import { VERSION_MESSAGES, VERSION_UPLOAD_FIELDS, versionActionSchema } from "~/utils/version-schemas";
import { addVersionFile, removeVersionFile, versionFileInputOf } from "~/models/version-files.server";
import { VERSION_FILE_FIELDS, versionFileFieldsToInput } from "~/utils/version-file-schemas";
import { VERSION_FILE_MESSAGES } from "~/utils/version-file-words";
import { nsfwAcceptedCookie } from "~/utils/visitor-cookies.server";
import { checkbox, flag, parseForm, readForm, text } from "~/utils/form-fields";
import { z } from "zod";
import type { User } from "~/generated/prisma/client";

/**
 * Where to go back to after an action: only the library, a post's page, the admin post table or
 * a post's editor (docs/product.md#the-post-editor).
 */
export function safeBack(value: unknown, fallback = "/library"): string {
  if (typeof value !== "string") return fallback;
  if (/^\/library(\/[^/?#\s]+)?(\?[^#\s]*)?$/.test(value) || /^\/admin\/posts(\/[^/?#\s]+)?(\?[^#\s]*)?$/.test(value)) return value;
  return fallback;
}

/**
 * What the page's forms share: the intent, the post it is about, where to go back to, and with
 * JavaScript `respond=json` for a JSON answer instead of a redirect.
 */
const pageFormSchema = z.object({ intent: text, postId: text, back: text.transform((back) => safeBack(back)), respond: flag("json") });

/** A download's form: the version and file (none: the current version's main file), the terms accepted with it, and how to answer. */
const downloadFormSchema = z.object({
  postId: text,
  versionId: text.transform((id) => id || null),
  fileId: text.transform((id) => id || null),
  acceptTos: checkbox,
  respond: flag("json"),
});

/** A file added to a version, to remove. */
const removeFileFormSchema = z.object({ fileId: text });

/** A refused change as the toast on the way back to the library. */
function refused(back: string, error: unknown, failureMessage: string) {
  return redirectWithError(back, formRefusal(error, failureMessage).message);
}

/** Runs one upload of the page: its success message, or the refusal's status and message. */
async function runUpload(request: Request, user: NonNullable<Awaited<ReturnType<typeof getCurrentUser>>>, intent: string | null, postId: string) {
  try {
    if (intent === "upload-version-file") {
      // A variant, add-on or translation of a version: the same model functions as POST /api/admin/posts/{id}/versions/{versionId}/files.
      const versionId = new URL(request.url).searchParams.get("versionId") ?? "";
      const { stored, input } = await receiveUploadedFile(
        request,
        "file",
        { maxBytes: env().POST_FILE_MAX_BYTES, textFields: VERSION_FILE_FIELDS },
        async (file) => {
          const input = versionFileInputOf(versionFileFieldsToInput(file.fields));
          return { input, stored: await storePostVersionFile(postId, { ...file, fields: {} }) };
        },
      );
      await addVersionFile(user, postId, versionId, stored, input);
      return { status: 200, message: VERSION_FILE_MESSAGES.fileAdded };
    }
    if (intent === "upload-image") {
      const file = await readUploadedFile(request, "image", { missingMessage: SELECT_IMAGE_MESSAGE });
      await setPostImage(user, postId, file.bytes);
      return { status: 200, message: "Image uploaded." };
    }
    if (intent === "upload-file") {
      const stored = await receiveUploadedFile(request, "file", { maxBytes: env().POST_FILE_MAX_BYTES, textFields: VERSION_UPLOAD_FIELDS }, (file) =>
        storePostVersionFile(postId, file),
      );
      await addPostVersion(user, stored);
      return { status: 200, message: "File uploaded." };
    }
    return { status: 400, message: LIBRARY_MESSAGES.updateFailed };
  } catch (error) {
    const failure =
      intent === "upload-image"
        ? LIBRARY_MESSAGES.imageFailed
        : intent === "upload-version-file"
          ? VERSION_FILE_MESSAGES.fileFailed
          : LIBRARY_MESSAGES.fileUploadFailed;
    return formRefusal(error, failure);
  }
}

/**
 * File uploads are multipart and streamed: their intent travels in the address. The answer is a
 * redirect with a toast, or with `respond=json` the outcome as data (`{ message }` or `{ error }`, with its status).
 */
export async function uploadAction(request: Request, user: Awaited<ReturnType<typeof getCurrentUser>>) {
  const url = new URL(request.url);
  const back = safeBack(url.searchParams.get("back"));
  const respondJson = url.searchParams.get("respond") === "json";
  const outcome =
    user && isEffectiveAdmin(user)
      ? await runUpload(request, user, url.searchParams.get("intent"), url.searchParams.get("postId") ?? "")
      : { status: 403, message: LIBRARY_MESSAGES.adminOnly };
  const ok = outcome.status < 300;
  if (respondJson) return data(ok ? { message: outcome.message } : { error: outcome.message }, { status: outcome.status });
  return ok ? redirectWithSuccess(back, outcome.message) : redirectWithError(back, outcome.message);
}

/**
 * A download: the terms first (unless accepted, or accepted with this request), then the file's
 * address. Without JavaScript the answer is a redirect (to the terms popup, or to the file);
 * with JavaScript (`respond=json`, the fetcher) it is the address, or the refusal, as data.
 */
async function downloadAction(form: FormData, user: Awaited<ReturnType<typeof getCurrentUser>>, back: string) {
  const { postId, versionId, fileId, acceptTos: accepted, respond: respondJson } = parseForm(form, downloadFormSchema);
  if (!accepted && !(user?.tosAccepted || isEffectiveAdmin(user))) {
    if (respondJson) return data<DownloadAnswer>({ error: LIBRARY_MESSAGES.tosRequired }, { status: 403 });
    // The file asked for rides along, so accepting the terms downloads that file.
    return redirect(withParam(withParam(back, "terms", postId), "file", fileId));
  }
  try {
    if (accepted && user && !user.tosAccepted) await acceptTerms(user, user.id);
    // The same check as GET /api/download/{postId}, which repeats it for every request of the file
    // (a direct link must not get past it). It is needed here too: a free post's signed address
    // is itself the permission (its route checks the signature, not the viewer), the address
    // depends on whether the post is paid, and a refusal must reach the user as this page's
    // message (a toast after the redirect without JavaScript, data for the fetcher), not as the
    // download route's bare JSON error.
    const post = await authorizeDownload(user ? { ...user, tosAccepted: true } : null, postId, versionId, fileId);
    const query = new URLSearchParams();
    if (versionId) query.set("version", versionId);
    if (fileId) query.set("file", fileId);
    const versionQuery = query.size > 0 ? `?${query.toString()}` : "";
    // Free now (never paid, or opened to everyone by a release step): a signed address.
    const paid = !isDownloadFreeAt(post, new Date());
    const downloadUrl = paid
      ? `/api/download/${encodeURIComponent(post.id)}${versionQuery}`
      : signedDownloadUrl(post.id, user?.id ?? null, Date.now(), versionId, fileId);
    return respondJson ? ({ downloadUrl, paid } satisfies DownloadAnswer) : redirect(downloadUrl);
  } catch (error) {
    const refusal = formRefusal(error, LIBRARY_MESSAGES.freeDownloadFailed);
    if (respondJson) return data<DownloadAnswer>({ error: refusal.message }, { status: refusal.status });
    return redirectWithError(withParam(withParam(back, "terms", null), "file", null), refusal.message);
  }
}

/** The /library action: uploads, downloads and the 18+ answer for everyone, post edits for admins. */
export async function libraryAction(request: Request) {
  const user = await getCurrentUser(request);
  if (request.headers.get("Content-Type")?.startsWith("multipart/form-data")) return uploadAction(request, user);

  const form = await readPageForm(request);
  const { intent, back, postId, respond } = parseForm(form, pageFormSchema);

  if (intent === "accept-nsfw") {
    const headers = { "Set-Cookie": await nsfwAcceptedCookie() };
    return respond ? data({ ok: true }, { headers }) : redirect(back, { headers });
  }
  if (intent === "download") return downloadAction(form, user, back);
  if (intent === "patch-vote") {
    // A player's answer on the current game patch: any account that downloaded the post.
    if (!user) return redirectWithError(back, NOT_AUTHENTICATED_MESSAGE);
    const parsed = readForm(form, patchVoteFormSchema);
    if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
    try {
      await voteOnPatch(user, postId, parsed.data);
      return redirectWithSuccess(back, PATCH_MESSAGES.voteSaved);
    } catch (error) {
      return refused(back, error, PATCH_MESSAGES.failed);
    }
  }

  if (!user || !isEffectiveAdmin(user)) return redirectWithError(back, LIBRARY_MESSAGES.adminOnly);
  return postEditAction(user, form, back);
}

/**
 * An admin's change to a post, from the library or the post's editor (both pages' actions call
 * it after checking the admin): each intent calls the model function its /api route calls, and
 * answers with a redirect to `back` and a toast.
 */
export async function postEditAction(user: User, form: FormData, back: string) {
  const { intent, postId } = parseForm(form, pageFormSchema);
  switch (intent) {
    case "save": {
      // The details, and with the editor's one Save also the tags and requirements: each part
      // only when the admin changed it (its drawn copy differs), so nothing else is written.
      const parsed = readForm(form, postFormSchema);
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      const tags = readForm(form, postTagsChangeFormSchema);
      if (!tags.success) return redirectWithError(back, firstIssue(tags.error));
      const requirements = readForm(form, requirementsChangeFormSchema);
      if (!requirements.success) return redirectWithError(back, firstIssue(requirements.error));
      try {
        if (Object.keys(parsed.data).length > 0 || (tags.data === null && requirements.data === null)) await updatePost(user, postId, parsed.data);
        if (tags.data) await setPostTags(user.id, postId, tags.data);
        if (requirements.data) await setPostRequirements(user.id, postId, requirements.data);
        return redirectWithSuccess(back, "Post updated.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.updateFailed);
      }
    }
    case "requirements": {
      const parsed = readForm(form, requirementsFormSchema);
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await setPostRequirements(user.id, postId, parsed.data);
        return redirectWithSuccess(back, CATALOG_MESSAGES.requirementsSaved);
      } catch (error) {
        return refused(back, error, CATALOG_MESSAGES.requirementsFailed);
      }
    }
    case "tags": {
      const parsed = readForm(form, postTagsSchema);
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await setPostTags(user.id, postId, parsed.data);
        return redirectWithSuccess(back, CATALOG_MESSAGES.tagsSaved);
      } catch (error) {
        return refused(back, error, CATALOG_MESSAGES.tagsFailed);
      }
    }
    case "toggle": {
      try {
        const post = await setPostEnabled(user, postId, parseForm(form, toggleFormSchema).enabled);
        return redirectWithSuccess(back, post.enabled ? "Post enabled." : "Post disabled.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.toggleFailed);
      }
    }
    case "set-index": {
      const parsed = readForm(form, setIndexFormSchema);
      if (!parsed.success) return redirectWithError(back, LIBRARY_MESSAGES.invalidIndex);
      try {
        await movePostToIndex(user, postId, parsed.data.index);
        return redirectWithSuccess(back, "Post order updated.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.orderFailed);
      }
    }
    case "create": {
      const parsed = readForm(form, postCreateFormSchema);
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await createPost(user, parsed.data);
        return redirectWithSuccess(back, "Post created.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.updateFailed);
      }
    }
    case "schedule":
    case "publish-now": {
      // "Publish now" posts no time; a schedule's time is the creator's wall clock.
      const parsed = intent === "publish-now" ? publishSchema.safeParse({ publish_now: true }) : readForm(form, scheduleFormSchema(env().CREATOR_TIME_ZONE));
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await publishPost(user, postId, parsed.data);
        return redirectWithSuccess(back, intent === "publish-now" ? RELEASE_MESSAGES.published : RELEASE_MESSAGES.scheduled);
      } catch (error) {
        return refused(back, error, RELEASE_MESSAGES.failed);
      }
    }
    case "release-steps": {
      // "Add step" or "Remove" without JavaScript: nothing is saved; the rows as typed come back
      // in the address, one more or one fewer, at the editor.
      const draft = parseForm(form, draftFormSchema);
      if (draft.edit) {
        const rows = editDraftRows(draft.rows, draft.edit);
        return redirect(`${withParam(back, "release_draft", encodeReleaseDraft(postId, rows))}#release-${encodeURIComponent(postId)}`);
      }
      // A refusal keeps the rows as typed (in the address), a save shows the saved steps.
      const keepRows = `${withParam(back, "release_draft", encodeReleaseDraft(postId, draft.rows))}#release-${encodeURIComponent(postId)}`;
      const parsed = readForm(form, releaseFormSchema(env().CREATOR_TIME_ZONE));
      if (!parsed.success) return redirectWithError(keepRows, firstIssue(parsed.error));
      try {
        await setReleaseSteps(user, postId, parsed.data);
        // Saved either way; the requirement warnings ride on the toast (docs/product.md#requirements).
        const warnings = await releaseRequirementWarnings(postId);
        return redirectWithSuccess(
          withParam(back, "release_draft", null),
          [RELEASE_MESSAGES.stepsSaved, ...warnings.map((warning) => `Warning: ${warning}`)].join(" "),
        );
      } catch (error) {
        return refused(keepRows, error, RELEASE_MESSAGES.failed);
      }
    }
    case "version-hide":
    case "version-show":
    case "version-current": {
      const parsed = readForm(form, versionActionSchema);
      if (!parsed.success) return redirectWithError(back, VERSION_MESSAGES.versionNotFound);
      try {
        if (intent === "version-current") {
          await makeVersionCurrent(user, parsed.data.postId, parsed.data.versionId);
          return redirectWithSuccess(back, VERSION_MESSAGES.versionMadeCurrent);
        }
        const hidden = intent === "version-hide";
        await setVersionHidden(user, parsed.data.postId, parsed.data.versionId, hidden);
        return redirectWithSuccess(back, hidden ? VERSION_MESSAGES.versionHidden : VERSION_MESSAGES.versionShown);
      } catch (error) {
        return refused(back, error, VERSION_MESSAGES.versionFailed);
      }
    }
    case "patch-mark": {
      const parsed = readForm(form, patchMarkFormSchema);
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await setVersionMark(user, postId, parsed.data);
        return redirectWithSuccess(back, PATCH_MESSAGES.markSaved);
      } catch (error) {
        return refused(back, error, PATCH_MESSAGES.failed);
      }
    }
    case "patch-accept": {
      const parsed = readForm(form, patchAcceptFormSchema);
      if (!parsed.success) return redirectWithError(back, firstIssue(parsed.error));
      try {
        await acceptConfirmations(user, postId, parsed.data);
        return redirectWithSuccess(back, PATCH_MESSAGES.accepted);
      } catch (error) {
        return refused(back, error, PATCH_MESSAGES.failed);
      }
    }
    case "remove-file": {
      // A file added to a version (confirmed on a page at `?remove-file=<id>`, or a dialog).
      try {
        await removeVersionFile(user, postId, parseForm(form, removeFileFormSchema).fileId);
        return redirectWithSuccess(withParam(back, "remove-file", null), VERSION_FILE_MESSAGES.fileRemoved);
      } catch (error) {
        return refused(withParam(back, "remove-file", null), error, VERSION_FILE_MESSAGES.removeFailed);
      }
    }
    case "delete": {
      try {
        await deletePost(user, postId);
        // From the post's editor, back to the table: the post is gone.
        return redirectWithSuccess(back.startsWith("/admin/posts/") ? "/admin/posts" : back, "Post deleted.");
      } catch (error) {
        return refused(back, error, LIBRARY_MESSAGES.updateFailed);
      }
    }
    default:
      return redirectWithError(back, LIBRARY_MESSAGES.updateFailed);
  }
}
