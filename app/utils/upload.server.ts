// Reading one file field of a multipart request with a size limit, without the rest of the
// body ever being buffered.
import { MaxPartSizeExceededError, unstable_parseMultipartFormData } from "@remix-run/node";
import { apiFailure } from "~/api.server";
import { DomainError } from "~/models/errors";

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export type UploadedFile = { bytes: Buffer; fileName: string; contentType: string };
type UploadLimits = { maxBytes?: number; missingMessage?: string };

/** As `receiveUploadedFile`, for callers that expect a thrown JSON Response (400/413). */
export async function readUploadedFile(request: Request, field: string, limits: UploadLimits = {}): Promise<UploadedFile> {
  try {
    return await receiveUploadedFile(request, field, limits);
  } catch (error) {
    throw error instanceof DomainError ? apiFailure(error) : error;
  }
}

/**
 * The bytes of the file in `field` (images and other small uploads). Refuses (DomainError) with
 * 400 when the field is missing and 413 when it is larger than `maxBytes`.
 */
export async function receiveUploadedFile(
  request: Request,
  field: string,
  { maxBytes = MAX_IMAGE_BYTES, missingMessage = "Please select a file first." }: UploadLimits = {},
): Promise<UploadedFile> {
  if (!request.headers.get("Content-Type")?.startsWith("multipart/form-data")) throw new DomainError(400, missingMessage);
  const length = Number(request.headers.get("Content-Length") ?? 0);
  if (length > maxBytes + 64 * 1024) throw new DomainError(413, "The file is too large.");
  let found: UploadedFile | undefined;
  try {
    await unstable_parseMultipartFormData(request, async ({ name, data, filename, contentType }) => {
      if (name !== field || !filename) {
        for await (const _chunk of data) {
          // Skip other parts without keeping them.
        }
        return undefined;
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of data) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new MaxPartSizeExceededError(field, maxBytes);
        chunks.push(chunk);
      }
      found = { bytes: Buffer.concat(chunks), fileName: filename, contentType };
      return undefined;
    });
  } catch (error) {
    if (error instanceof MaxPartSizeExceededError) throw new DomainError(413, "The file is too large.");
    if (error instanceof Response) throw error;
    throw new DomainError(400, "The upload could not be read.");
  }
  if (!found || found.bytes.length === 0) throw new DomainError(400, missingMessage);
  return found;
}
