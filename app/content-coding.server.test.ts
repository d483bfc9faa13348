import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compressedData, contentCoding, varyOnAcceptEncoding } from "./content-coding.server";

const chrome = "gzip, deflate, br, zstd";
const listing = { posts: Array.from({ length: 60 }, (_, i) => ({ id: `post-${i}`, title: `Post number ${i}`, tier: "Tier 2" })) };

function dataRequest(acceptEncoding?: string) {
  return new Request("http://site.test/library.data", { headers: acceptEncoding ? { "Accept-Encoding": acceptEncoding } : {} });
}

describe("content codings", () => {
  it("takes the client's preferred coding of Brotli and gzip, Brotli on a tie, and the plain bytes otherwise", () => {
    expect(contentCoding(chrome)).toBe("br");
    expect(contentCoding("gzip, deflate")).toBe("gzip");
    expect(contentCoding("br;q=0, gzip")).toBe("gzip");
    expect(contentCoding("gzip;q=0.5, br;q=0.4")).toBe("gzip");
    expect(contentCoding("*")).toBe("br");
    expect(contentCoding("identity")).toBeNull();
    expect(contentCoding("deflate")).toBeNull();
    expect(contentCoding("")).toBeNull();
    expect(contentCoding(null)).toBeNull();
  });

  it("adds Accept-Encoding to Vary once", () => {
    const headers = new Headers({ Vary: "Cookie" });
    varyOnAcceptEncoding(headers);
    varyOnAcceptEncoding(headers);
    expect(headers.get("Vary")).toBe("Cookie, Accept-Encoding");
    const none = new Headers();
    varyOnAcceptEncoding(none);
    expect(none.get("Vary")).toBe("Accept-Encoding");
  });
});

describe("loader data compressed whole", () => {
  it("compresses JSON as the client asks and keeps status and headers", async () => {
    const text = JSON.stringify(listing);
    for (const [accept, coding, decode] of [
      [chrome, "br", brotliDecompressSync],
      ["gzip", "gzip", gunzipSync],
    ] as const) {
      const response = await compressedData(dataRequest(accept), Response.json(listing, { status: 200, headers: { "X-Remix-Response": "yes" } }));
      expect(response.headers.get("Content-Encoding")).toBe(coding);
      expect(response.headers.get("Vary")).toBe("Accept-Encoding");
      expect(response.headers.get("X-Remix-Response")).toBe("yes");
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.length).toBeLessThan(text.length / 4);
      expect(decode(body).toString("utf8")).toBe(text);
    }
  });

  it("compresses single fetch's turbo-stream data the same way", async () => {
    const text = JSON.stringify([{ _1: 2 }, "routes/library", { _3: 4 }, "data", listing]);
    const response = await compressedData(dataRequest(chrome), new Response(text, { headers: { "Content-Type": "text/x-script" } }));
    expect(response.headers.get("Content-Encoding")).toBe("br");
    expect(response.headers.get("Content-Type")).toBe("text/x-script");
    expect(brotliDecompressSync(Buffer.from(await response.arrayBuffer())).toString("utf8")).toBe(text);
  });

  it("leaves alone what it should not compress: no coding asked, small, not JSON, already encoded", async () => {
    const plain = await compressedData(dataRequest(), Response.json(listing));
    expect(plain.headers.get("Content-Encoding")).toBeNull();
    expect(await plain.json()).toEqual(listing);

    const small = await compressedData(dataRequest(chrome), Response.json({ ok: true }, { status: 400 }));
    expect(small.status).toBe(400);
    expect(small.headers.get("Content-Encoding")).toBeNull();
    expect(small.headers.get("Vary")).toBe("Accept-Encoding");
    expect(await small.json()).toEqual({ ok: true });

    const deferred = new Response("a".repeat(5_000), { headers: { "Content-Type": "text/remix-deferred" } });
    expect(await compressedData(dataRequest(chrome), deferred)).toBe(deferred);
    const encoded = new Response("x".repeat(5_000), { headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" } });
    expect(await compressedData(dataRequest(chrome), encoded)).toBe(encoded);
    const redirect = new Response(null, { status: 204, headers: { "X-Remix-Redirect": "/login" } });
    expect(await compressedData(dataRequest(chrome), redirect)).toBe(redirect);
  });
});
