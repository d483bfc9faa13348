// What the HTTP edge (server/) must know about a route before Remix runs it. A route module that
// differs from the default exports `function requestPolicy()` answering one of these (a function,
// so the browser build drops it with the server code it names); the edge finds the route that
// will run with Remix's own matching over the build's routes and applies its policy. By default a route takes bodies up
// to DEFAULT_BODY_LIMIT (1 MiB) that declare their length, may not be framed, and refuses
// state changes sent from other sites.
import { adminRefusal, getCurrentUser } from "~/models/session.server";
import { partRefusal } from "~/models/upload-session.server";
import type { UploadKind } from "~/utils/body-limits";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { DomainError, isDatabaseUnavailable } from "~/utils/errors";

export type RequestPolicy = {
  /**
   * The route streams uploaded files: a multipart body (kind "post-file-part": a raw body) up to
   * the largest file of `kind` (plus framing), or without a declared length, from whoever
   * `refusal` does not refuse. It sees the request's address and headers only, and is asked
   * before a byte of such a body is read; whoever it refuses hears the route's own refusal, not
   * "too large". Smaller bodies go to the route as any other.
   */
  upload?: { kind: UploadKind; refusal: (request: Request) => Promise<UploadRefusal | null> };
  /** Answers that may be shown inside a frame of our own pages (the library's hidden download frame). */
  framedBySelf?: boolean;
  /**
   * State changes that other sites send on purpose, carrying their own credential: signed
   * webhooks, and the one-click unsubscribe of a mail (its token is in the address).
   */
  crossSiteAllowed?: boolean;
  /**
   * The route checks or hashes a password: under load it waits less for a turn, and its
   * password work has a budget counted from the request's arrival (server/admission.ts).
   */
  checksPassword?: boolean;
};

/**
 * What the edge answers a large upload before reading it: the route's refusal of whoever asks
 * (status and message), or a 503 with Retry-After when the database cannot say who asks.
 */
export type UploadRefusal = { status: number; error: string; headers: Record<string, string> };

function refusing(refusalOf: (request: Request) => Promise<DomainError | null>): (request: Request) => Promise<UploadRefusal | null> {
  return async (request) => {
    try {
      const refusal = await refusalOf(request);
      return refusal && { status: refusal.status, error: refusal.message, headers: {} };
    } catch (error) {
      if (isDatabaseUnavailable(error)) return { status: 503, error: error.data.error, headers: error.headers };
      throw error;
    }
  };
}

/** Only an admin (not restricted) signed in by cookie or API token may upload. */
const nonAdminRefusal = refusing(async (request) => {
  const user = await getCurrentUser(request);
  return isEffectiveAdmin(user) ? null : adminRefusal(user);
});

/** A route whose admins upload files of `kind`. */
export function adminUploads(kind: UploadKind): RequestPolicy {
  return { upload: { kind, refusal: nonAdminRefusal } };
}

/** The part route of a resumable upload: raw part bodies, only from the admin who started `/api/uploads/{id}`. */
export function uploadPartPolicy(): RequestPolicy {
  return {
    upload: {
      kind: "post-file-part",
      refusal: refusing(async (request) => {
        const uploadId = /^\/api\/uploads\/([^/]+)\/parts\//.exec(new URL(request.url).pathname)?.[1] ?? "";
        return partRefusal(await getCurrentUser(request), uploadId);
      }),
    },
  };
}

export const FRAMED_BY_SELF: RequestPolicy = { framedBySelf: true };
export const CROSS_SITE_ALLOWED: RequestPolicy = { crossSiteAllowed: true };
export const CHECKS_PASSWORD: RequestPolicy = { checksPassword: true };
