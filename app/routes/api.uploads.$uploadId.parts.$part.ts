import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { handleApi, methodNotAllowed } from "~/api.server";
import { receivePart } from "~/models/upload-session.server";
import { requireApiUser } from "~/models/session.server";
import { uploadPartPolicy } from "~/request-policy.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

/** Part bodies are admitted by the edge only for the admin who started the upload. */
export function requestPolicy() {
  return uploadPartPolicy();
}

/**
 * PUT /api/uploads/{uploadId}/parts/{n} (local driver): the raw bytes of part n. A part sent
 * again replaces the one before; a part cut off is not kept. Answers the upload's status.
 */
export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.fileUploadFailed, async () => {
    const user = await requireApiUser(request);
    const partNumber = /^[0-9]{1,5}$/.test(params.part ?? "") ? Number(params.part) : 0;
    const body = request.body ? Readable.fromWeb(request.body as NodeReadableStream<Uint8Array>) : null;
    return json(await receivePart(user, params.uploadId ?? "", partNumber, body));
  });
}
