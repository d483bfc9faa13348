// Hashes an upload while it streams (one pass, no second read of the stored file): the plain
// SHA-256 of the bytes, the content hash (app/utils/content-hash.ts) and the size.
import { createHash } from "node:crypto";
import { Transform } from "node:stream";
import { contentHashFeed } from "~/utils/content-hash";

export type UploadDigest = { sha256: string; contentHash: string; size: number };

export type HashingStream = {
  stream: Transform;
  /** Available once the stream has ended. */
  digest(): UploadDigest;
};

export function hashingStream(): HashingStream {
  const plain = createHash("sha256");
  const content = createHash("sha256");
  const feed = contentHashFeed((bytes) => content.update(bytes));
  let size = 0;
  let result: UploadDigest | undefined;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      plain.update(chunk);
      feed.push(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      feed.finish();
      result = { sha256: plain.digest("hex"), contentHash: content.digest("hex"), size };
      callback();
    },
  });
  return {
    stream,
    digest() {
      if (!result) throw new Error("The upload has not ended yet");
      return result;
    },
  };
}
