import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readyRepresentation, representation } from "./content-coding.server";
import { keptPageAnswer, newKeptDocument, rememberKeptPage } from "./document-cache.server";
import { inlineScriptHashes } from "./security.server";

function page(html: string) {
  return newKeptDocument(Buffer.from(html));
}

/** The text of a kept answer's body. */
function bodyText(answer: { body: Buffer | null } | null): string | undefined {
  return answer?.body?.toString("utf8");
}

describe("pages answered before Remix", () => {
  const vary = "Cookie, Authorization, Accept-Encoding";

  it("answers from the page kept for a key at the stamp it was kept at, and at no other", () => {
    rememberKeptPage("/library?page=2\n\n", "7.1", page("<p>two</p>"), new Headers({ "Cache-Control": "public" }), vary, Infinity);
    expect(bodyText(keptPageAnswer("/library?page=2\n\n", "7.1", {}))).toBe("<p>two</p>");
    expect(keptPageAnswer("/library?page=2\n\n", "7.2", {})).toBeNull();
    expect(keptPageAnswer("/library\n\n", "7.1", {})).toBeNull();
  });

  it("stops answering from a page at its `until`", () => {
    const now = Date.now();
    rememberKeptPage("/infos\n\n", "1", page("<p>infos</p>"), new Headers(), vary, now + 1_000);
    expect(bodyText(keptPageAnswer("/infos\n\n", "1", {}, now + 999))).toBe("<p>infos</p>");
    expect(keptPageAnswer("/infos\n\n", "1", {}, now + 1_000)).toBeNull();
  });

  it("answers each coding once it is made, with that coding's validator, and leaves a coding not made yet to Remix", async () => {
    const kept = page(`<p>${"shared ".repeat(500)}</p>`);
    rememberKeptPage("/\n\n", "1", kept, new Headers({ "Cache-Control": "public" }), vary, Infinity);
    const chrome = { acceptEncoding: "gzip, deflate, br, zstd" };
    expect(keptPageAnswer("/\n\n", "1", chrome)).toBeNull();
    await representation(kept, "br");
    const answer = keptPageAnswer("/\n\n", "1", chrome)!;
    const headers = new Headers(answer.headers);
    expect(headers.get("Content-Encoding")).toBe("br");
    expect(headers.get("Vary")).toBe(vary);
    expect(headers.get("Cache-Control")).toBe("public");
    expect(brotliDecompressSync(answer.body!).toString("utf8")).toBe(kept.bytes.toString("utf8"));
    // A revalidation with the Brotli copy's tag is a 304; the plain copy's tag is another representation's.
    expect(keptPageAnswer("/\n\n", "1", { ...chrome, ifNoneMatch: headers.get("ETag")! })!.status).toBe(304);
    expect(keptPageAnswer("/\n\n", "1", { ...chrome, ifNoneMatch: kept.etag })!.status).toBe(200);
    // A client that takes only gzip waits for Remix; one that asks for nothing gets the plain bytes.
    expect(keptPageAnswer("/\n\n", "1", { acceptEncoding: "gzip" })).toBeNull();
    const plain = keptPageAnswer("/\n\n", "1", {})!;
    expect(new Headers(plain.headers).get("Content-Encoding")).toBeNull();
    expect(new Headers(plain.headers).get("ETag")).toBe(kept.etag);
  });
});

describe("a kept document's compressed bytes", () => {
  it("makes each coding once, decoding to the very bytes, each with its own strong validator", async () => {
    const kept = page(`<!DOCTYPE html><p>${"library ".repeat(2_000)}</p>`);
    expect(readyRepresentation(kept, "gzip")).toBeNull();
    const [first, concurrent] = await Promise.all([representation(kept, "gzip"), representation(kept, "gzip")]);
    expect(concurrent.body).toBe(first.body);
    expect((await representation(kept, "gzip")).body).toBe(first.body);
    expect(gunzipSync(first.body).equals(kept.bytes)).toBe(true);
    const br = await representation(kept, "br");
    expect(brotliDecompressSync(br.body).equals(kept.bytes)).toBe(true);
    expect(br.body.length).toBeLessThan(kept.bytes.length / 10);
    const plain = await representation(kept, null);
    expect(plain.body).toBe(kept.bytes);
    expect(new Set([plain.etag, first.etag, br.etag]).size).toBe(3);
    for (const etag of [plain.etag, first.etag, br.etag]) expect(etag).toMatch(/^"[^"]+"$/);
  });
});

describe("the CSP hashes of a kept document's inline scripts", () => {
  it("hashes each inline script's text once, and no script with a src or an empty body", () => {
    const boot = "document.documentElement.dataset.theme = 'dark';";
    const context = `window.__remixContext = ${JSON.stringify({ title: "Café – 5 € «ok»", notes: "<b>x</b>" }).replace(/</g, "\\u003c")};`;
    const html = Buffer.from(
      `<!DOCTYPE html><html><head><script>${boot}</script><script src="/build/entry.js"></script><script type="module" async="" src="/build/x.js"></script>` +
        `<scripts-not-a-tag></scripts-not-a-tag></head><body><p>text</p><script>${context}</script><script></script><script>${boot}</script>` +
        `<script type="module">import "/build/root.js";</script></body></html>`,
    );
    const sha = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
    expect(inlineScriptHashes(html).sort()).toEqual([sha(boot), sha(context), sha('import "/build/root.js";')].sort());
  });
});
