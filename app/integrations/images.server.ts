// Uploaded images are checked by their content (not their name), then re-encoded, so nothing
// but a clean JPEG of bounded size is ever stored or served.
import type { Sharp, SharpOptions } from "sharp";

// sharp (libvips) adds about 18 MB to a process: loaded with the first image, not at start.
let sharpModule: Promise<typeof import("sharp")> | undefined;
async function sharp(input: Buffer, options?: SharpOptions): Promise<Sharp> {
  const { default: create } = await (sharpModule ??= import("sharp"));
  return create(input, options);
}

export const ACCEPTED_IMAGE_FORMATS = ["png", "jpeg"] as const;

export class InvalidImageError extends Error {}

/**
 * Decodes an uploaded png/jpg/jpeg, strips metadata, fits it within `maxWidth` x `maxHeight`
 * and answers a JPEG. Throws InvalidImageError for anything that is not such an image.
 */
export async function reencodeImage(input: Buffer, { maxWidth = 1600, maxHeight = 1600 } = {}): Promise<Buffer> {
  let format: string | undefined;
  try {
    format = (await (await sharp(input)).metadata()).format;
  } catch {
    throw new InvalidImageError("The file is not a valid image.");
  }
  if (!format || !(ACCEPTED_IMAGE_FORMATS as readonly string[]).includes(format)) {
    throw new InvalidImageError("Only png, jpg and jpeg images are accepted.");
  }
  try {
    return await (
      await sharp(input)
    )
      .rotate()
      .resize({ width: maxWidth, height: maxHeight, fit: "inside", withoutEnlargement: true })
      .flatten({ background: "#ffffff" })
      .jpeg({ quality: 82, mozjpeg: true })
      .toBuffer();
  } catch {
    throw new InvalidImageError("The file is not a valid image.");
  }
}

/** A JPEG copy of a stored image at most `width` pixels wide (responsive image variants). */
export async function resizeToJpeg(input: Buffer, width: number): Promise<Buffer> {
  return (await sharp(input)).resize({ width, withoutEnlargement: true }).jpeg({ quality: 78, mozjpeg: true }).toBuffer();
}
