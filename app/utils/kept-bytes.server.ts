// A response whose body is bytes the server keeps (a listing assembled once per change): the
// bytes are handed on as they are. `new Response(buffer)` copies a buffer of any size first
// (the Fetch standard's "extract a body"), which for the library listing was a fresh 700 KiB
// allocation per request.

/** A `Response` whose body streams `bytes` as one chunk, without copying them. */
export function keptBytesResponse(bytes: Uint8Array, init: ResponseInit): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  const headers = new Headers(init.headers);
  headers.set("Content-Length", String(bytes.byteLength));
  return new Response(body, { ...init, headers });
}
