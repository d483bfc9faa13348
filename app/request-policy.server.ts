// What the HTTP edge (server/) must know about a route before Remix runs it. A route module that
// differs from the default exports `function requestPolicy()` answering one of these (a function,
// so the browser build drops it with the server code it names); the edge finds the route that
// will run with Remix's own matching over the build's routes and applies its policy. By default a route takes bodies up
// to DEFAULT_BODY_LIMIT (1 MiB) that declare their length, may not be framed, and refuses
// state changes sent from other sites.
import { getCurrentUser } from "~/models/session.server";
import { ownsUpload } from "~/models/upload-session.server";
import type { UploadKind } from "~/utils/body-limits";
import { isEffectiveAdmin } from "~/utils/entitlement";

export type RequestPolicy = {
  /**
   * The route streams uploaded files: a multipart body (kind "post-file-part": a raw body) up to the largest file of `kind` (plus
   * framing), or without a declared length, from whoever `allowed` admits. `allowed` sees the
   * request's address and headers only, and is asked before a byte of the body is read; everyone
   * else gets the default limit and body time.
   */
  upload?: { kind: UploadKind; allowed: (request: Request) => Promise<boolean> };
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

/** An admin (not restricted) signed in by cookie or API token. */
async function adminAsks(request: Request): Promise<boolean> {
  return isEffectiveAdmin(await getCurrentUser(request));
}

/** A route whose admins upload files of `kind`. */
export function adminUploads(kind: UploadKind): RequestPolicy {
  return { upload: { kind, allowed: adminAsks } };
}

/** The part route of a resumable upload: raw part bodies, only from the admin who started `/api/uploads/{id}`. */
export function uploadPartPolicy(): RequestPolicy {
  return {
    upload: {
      kind: "post-file-part",
      allowed: async (request) => {
        const uploadId = /^\/api\/uploads\/([^/]+)\/parts\//.exec(new URL(request.url).pathname)?.[1] ?? "";
        return ownsUpload(await getCurrentUser(request), uploadId);
      },
    },
  };
}

export const FRAMED_BY_SELF: RequestPolicy = { framedBySelf: true };
export const CROSS_SITE_ALLOWED: RequestPolicy = { crossSiteAllowed: true };
export const CHECKS_PASSWORD: RequestPolicy = { checksPassword: true };
