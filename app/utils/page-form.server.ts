// How page actions read their form. A page's forms post application/x-www-form-urlencoded or
// multipart/form-data; any other body (JSON, text/plain, none) or a form that cannot be parsed is
// the client's mistake, answered 415 or 400 instead of the 500 of a failed `request.formData()`.
// The streamed uploads of /library and /admin read their multipart bodies themselves
// (app/utils/upload.server.ts).
import { json } from "@remix-run/node";

export const PAGE_FORM_MESSAGES = {
  notAForm: "This request must be sent as a form (application/x-www-form-urlencoded or multipart/form-data).",
  unreadable: "The form could not be read.",
} as const;

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

/** The media type of a Content-Type header, without parameters, in lower case. */
function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Is the request's body declared as a form? */
export function isFormBody(request: Request): boolean {
  return FORM_TYPES.includes(mediaType(request.headers.get("Content-Type")));
}

/**
 * The refusal of a body that is not a readable form, thrown as a Response: the page's error
 * boundary shows its status text, a fetcher gets `{ error }`.
 */
export function unreadableForm(status: 400 | 415): Response {
  const message = status === 415 ? PAGE_FORM_MESSAGES.notAForm : PAGE_FORM_MESSAGES.unreadable;
  return json({ error: message }, { status, statusText: message });
}

/** The posted form; throws 415 when the body is not declared as a form, 400 when it cannot be parsed. */
export async function readPageForm(request: Request): Promise<FormData> {
  if (!isFormBody(request)) throw unreadableForm(415);
  try {
    return await request.formData();
  } catch {
    throw unreadableForm(400);
  }
}
