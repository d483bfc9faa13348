// Smaller copies of stored images, made on first request and kept in storage. The variant key
// carries the original's version (its ETag), so a replaced image never serves an old variant.
import { createHash } from "node:crypto";
import { resizeToJpeg } from "~/integrations/images.server";
import type { Storage } from "~/integrations/storage.server";
import type { ImageWidth } from "~/utils/responsive-images";

async function readAll(store: Storage, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.read(key)) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * The storage key to serve for `key` at `width`: the original when no width is asked for or the
 * original is missing (the caller answers 404), otherwise a JPEG variant at most `width` wide.
 */
export async function imageVariantKey(store: Storage, key: string, width: ImageWidth | null): Promise<string> {
  if (width === null) return key;
  const original = await store.stat(key);
  if (!original) return key;
  const version = createHash("sha256").update(original.etag).digest("hex").slice(0, 12);
  const variantKey = `variants/w${width}/${key.replace(/\.[a-z]+$/i, "")}.${version}.jpg`;
  if (await store.stat(variantKey)) return variantKey;
  const resized = await resizeToJpeg(await readAll(store, key), width);
  await store.put(variantKey, resized, "image/jpeg");
  return variantKey;
}
