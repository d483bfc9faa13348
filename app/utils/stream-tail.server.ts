// The last bytes of a stream of any length, without keeping the rest: a leaked ZIP dropped on
// the admin's code search streams through here, and only its end (where the ZIP comment with
// the leak-trace number sits) stays in memory.

/**
 * The final `keep` bytes of `data` (fewer if it is shorter) and its total size. Between chunks it
 * holds the chunks that still reach into the last `keep` bytes: at most `keep` plus one chunk.
 */
export async function streamTail(data: AsyncIterable<Uint8Array>, keep: number): Promise<{ tail: Uint8Array; size: number }> {
  let held: Uint8Array[] = [];
  // Chunks before `first` fell out of the tail (dropped in bulk: shifting one by one is quadratic for tiny chunks).
  let first = 0;
  let heldBytes = 0;
  let size = 0;
  for await (const chunk of data) {
    size += chunk.byteLength;
    // A copy: the caller's buffer may be reused for the next chunk.
    const kept = chunk.slice(Math.max(0, chunk.byteLength - keep));
    held.push(kept);
    heldBytes += kept.byteLength;
    while (heldBytes - held[first]!.byteLength >= keep) heldBytes -= held[first++]!.byteLength;
    if (first > 1024 && first * 2 > held.length) {
      held = held.slice(first);
      first = 0;
    }
  }
  const whole = new Uint8Array(heldBytes);
  let at = 0;
  for (const part of held.slice(first)) {
    whole.set(part, at);
    at += part.byteLength;
  }
  return { tail: whole.subarray(Math.max(0, heldBytes - keep)), size };
}
