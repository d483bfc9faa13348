// Reading one file field of a multipart request, capped at a size, without the rest of the body
// ever being buffered: small files (images, CSV) are collected in memory, post files are handed
// on as a stream (into storage). The one place that parses multipart bodies for routes.
import { MaxPartSizeExceededError, unstable_createMemoryUploadHandler, unstable_parseMultipartFormData } from "@remix-run/node";
import { isStorageOutage, STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE } from "~/integrations/storage.server";
import { DomainError } from "~/utils/errors";
import { MAX_IMAGE_BYTES, MULTIPART_OVERHEAD } from "~/utils/body-limits";
import { readPageForm, unreadableForm } from "~/utils/page-form.server";
import { errorFields, log } from "~/logger.server";

export const FILE_TOO_LARGE_MESSAGE = "The file is too large.";
export const SELECT_FILE_MESSAGE = "Please select a file first.";
export const SELECT_IMAGE_MESSAGE = "Please choose an image (png, jpg or jpeg).";

export type UploadLimits = {
  maxBytes?: number;
  missingMessage?: string;
  /** Text fields to keep (each up to MAX_TEXT_FIELD_BYTES); only those sent before the file reach `receive`. */
  textFields?: readonly string[];
};

/** The most bytes of one kept text field (a version's notes); longer values are cut there. */
export const MAX_TEXT_FIELD_BYTES = 64 * 1024;

/** The uploaded file as it arrives: its name, type and bytes, capped at the limit, and the kept text fields sent before it. */
export type IncomingFile = { fileName: string; contentType: string; data: AsyncIterable<Uint8Array>; fields: Record<string, string> };

/**
 * Hands the first file in `field` to `receive` while it streams, and answers what `receive`
 * answered. Refuses (DomainError) with 400 when there is no such file or it is empty, 413 when
 * it is larger than `maxBytes` (told by Content-Length up front, or counted as it arrives), and
 * 400 when the body is not readable multipart. Storage that fails while the body arrives whole
 * (a full disk, S3 down) is no fault of the file: 503 with `Retry-After`, logged as a server
 * error. Other parts are read past without being kept.
 */
export async function receiveUploadedFile<T>(
  request: Request,
  field: string,
  { maxBytes = MAX_IMAGE_BYTES, missingMessage = SELECT_FILE_MESSAGE, textFields = [] }: UploadLimits,
  receive: (file: IncomingFile) => Promise<T>,
): Promise<T> {
  if (!request.headers.get("Content-Type")?.startsWith("multipart/form-data")) throw new DomainError(400, missingMessage);
  const declared = Number(request.headers.get("Content-Length") ?? 0);
  if (declared > maxBytes + MULTIPART_OVERHEAD) throw new DomainError(413, FILE_TOO_LARGE_MESSAGE);
  let received: { value: T; size: number } | undefined;
  // Set when reading the body itself failed (cut off, malformed): then the sender is at fault.
  let bodyFailed = false;
  const fields: Record<string, string> = {};
  try {
    await unstable_parseMultipartFormData(request, async ({ name, data, filename, contentType }) => {
      if (!filename && !received && textFields.includes(name) && !(name in fields)) {
        const parts: Uint8Array[] = [];
        let kept = 0;
        for await (const chunk of data) {
          if (kept < MAX_TEXT_FIELD_BYTES) parts.push(chunk.subarray(0, MAX_TEXT_FIELD_BYTES - kept));
          kept += chunk.byteLength;
        }
        fields[name] = Buffer.concat(parts).toString("utf8");
        return undefined;
      }
      if (name !== field || !filename || received) {
        for await (const _chunk of data) {
          // Skipped without being kept.
        }
        return undefined;
      }
      let size = 0;
      async function* capped() {
        const chunks = data[Symbol.asyncIterator]();
        for (;;) {
          let next: IteratorResult<Uint8Array>;
          try {
            next = await chunks.next();
          } catch (error) {
            bodyFailed = true;
            throw error;
          }
          if (next.done) return;
          size += next.value.byteLength;
          if (size > maxBytes) throw new MaxPartSizeExceededError(field, maxBytes);
          yield next.value;
        }
      }
      const value = await receive({ fileName: filename, contentType, data: capped(), fields: { ...fields } });
      received = { value, size };
      return undefined;
    });
  } catch (error) {
    if (error instanceof MaxPartSizeExceededError) throw new DomainError(413, FILE_TOO_LARGE_MESSAGE);
    if (error instanceof DomainError || error instanceof Response) throw error;
    if (!bodyFailed && isStorageOutage(error)) {
      log().error(errorFields(error), "File storage failed while an upload was stored");
      throw new DomainError(503, STORAGE_UNAVAILABLE_MESSAGE, { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
    }
    // Not an Error: a part that is down answered for itself (the database: app/db.server.ts).
    if (!(error instanceof Error)) throw error;
    throw new DomainError(400, "The upload could not be read.");
  }
  if (!received || received.size === 0) throw new DomainError(400, missingMessage);
  return received.value;
}

/** The bytes of the file in `field` (images, CSV and other small uploads), as `receiveUploadedFile` refuses. */
export async function readUploadedFile(
  request: Request,
  field: string,
  limits: UploadLimits = {},
): Promise<{ bytes: Buffer; fileName: string; contentType: string }> {
  return receiveUploadedFile(request, field, limits, async ({ fileName, contentType, data }) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of data) chunks.push(chunk);
    return { bytes: Buffer.concat(chunks), fileName, contentType };
  });
}

/**
 * A whole form, multipart or not, with each file held in memory up to `maxBytes` (forms that
 * carry small text fields and an optional image). A larger file is refused with 413 and
 * `tooLargeMessage`; a body that is no readable form as `readPageForm` refuses it.
 */
export async function readFormWithFiles(request: Request, { maxBytes = MAX_IMAGE_BYTES, tooLargeMessage = FILE_TOO_LARGE_MESSAGE } = {}): Promise<FormData> {
  if (!request.headers.get("Content-Type")?.startsWith("multipart/form-data")) return readPageForm(request);
  try {
    return await unstable_parseMultipartFormData(request, unstable_createMemoryUploadHandler({ maxPartSize: maxBytes }));
  } catch (error) {
    if (error instanceof MaxPartSizeExceededError) throw new DomainError(413, tooLargeMessage);
    throw unreadableForm(400);
  }
}
