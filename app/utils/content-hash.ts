// The content hash (docs/glossary.md) computed incrementally, on the server while an upload
// streams and in the browser while a picked file is read: every byte goes to `update` as it
// comes, except the last MAX_TAIL_BYTES, held back until the end because only then is it known
// whether they end with a ZIP comment (left out of the content hash).
import { canonicalTail, MAX_TAIL_BYTES } from "~/utils/zip-eocd";

export type ContentHashFeed = {
  push(chunk: Uint8Array): void;
  /** Feeds the canonical tail; call once, after the last chunk. */
  finish(): void;
};

export function contentHashFeed(update: (bytes: Uint8Array) => void): ContentHashFeed {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let total = 0;
  return {
    push(chunk) {
      total += chunk.length;
      held.push(chunk);
      heldBytes += chunk.length;
      // Release whole chunks (or the front of one) that can no longer be part of the tail.
      while (heldBytes - held[0]!.length >= MAX_TAIL_BYTES) {
        const first = held.shift()!;
        heldBytes -= first.length;
        update(first);
      }
      if (heldBytes > MAX_TAIL_BYTES) {
        const excess = heldBytes - MAX_TAIL_BYTES;
        update(held[0]!.subarray(0, excess));
        held[0] = held[0]!.subarray(excess);
        heldBytes -= excess;
      }
    },
    finish() {
      const tail = new Uint8Array(heldBytes);
      let at = 0;
      for (const part of held) {
        tail.set(part, at);
        at += part.length;
      }
      held = [];
      update(canonicalTail(tail, total));
    },
  };
}
