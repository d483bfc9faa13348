// Reading one file field of a multipart request with a size limit, without the rest of the
// body ever being buffered.
import { MaxPartSizeExceededError, unstable_parseMultipartFormData } from "@remix-run/node";
import { apiError } from "~/api.server";

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * The bytes of the file in `field` (images and other small uploads). Throws a JSON 400 when the
 * field is missing and 413 when it is larger than `maxBytes`.
 */
export async function readUploadedFile(
  request: Request,
  field: string,
  { maxBytes = MAX_IMAGE_BYTES, missingMessage = "Please select a file first." } = {},
): Promise<{ bytes: Buffer; fileName: string; contentType: string }> {
  if (!request.headers.get("Content-Type")?.startsWith("multipart/form-data")) throw apiError(400, missingMessage);
  const length = Number(request.headers.get("Content-Length") ?? 0);
  if (length > maxBytes + 64 * 1024) throw apiError(413, "The file is too large.");
  let found: { bytes: Buffer; fileName: string; contentType: string } | undefined;
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
    if (error instanceof MaxPartSizeExceededError) throw apiError(413, "The file is too large.");
    if (error instanceof Response) throw error;
    throw apiError(400, "The upload could not be read.");
  }
  if (!found || found.bytes.length === 0) throw apiError(400, missingMessage);
  return found;
}
