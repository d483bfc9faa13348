// A request that declares a body in its head and sends none of it: what the server answers from the
// head alone (the edge refuses a body it will not read before a byte of it arrives).
import http from "node:http";

export type DeclaredBodyAnswer = { status: number; body: string; retryAfter: string | null };

/** Sends only the head of a POST (or `method`) to `url`, declaring `length` body bytes, and reads the answer. */
export function declaredBody(url: string, length: number, headers: Record<string, string>, method = "POST"): Promise<DeclaredBodyAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers: { ...headers, "Content-Length": String(length) } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body, retryAfter: [response.headers["retry-after"] ?? null].flat()[0] ?? null });
      });
    });
    request.on("error", reject);
    request.setTimeout(10_000, () => request.destroy(new Error("no answer")));
    request.flushHeaders();
  });
}
