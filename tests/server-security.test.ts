// The real production server (server/index.ts) with the built app on a random port: security
// headers on every kind of response, the cross-site refusal for cookie-carrying state changes,
// webhook and Bearer exemptions, body size caps, and how the built scripts are sent. Needs a
// build (npm test builds first; REMIX_BUILD_DIR picks another one).
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { hashToken } from "~/models/session.server";
import { nsfwCookie } from "~/utils/visitor-cookies.server";
import { responseSecurityHeaders } from "~/security.server";
import { kofiPayload } from "./fakes/kofi";
import { declaredBody as declaredBodyTo } from "./declared-body";
import { createTestUser, productionServerEnv, runUntilExit, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";
import { appServerArgs, freePort } from "../scripts/app-server";

const root = path.resolve(import.meta.dirname, "..");
const serverArgs = appServerArgs();
const KOFI_TOKEN = "server-test-kofi-token";

let server: ChildProcess;
let base: string;
let serverOutput = "";

beforeAll(async () => {
  for (const file of serverArgs.filter((arg) => !arg.startsWith("--")))
    if (!existsSync(file)) throw new Error(`No build at ${file}: run \`npm run build\` first.`);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, serverArgs, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: base,
      DISABLE_JOBS: "1",
      REQUEST_LOG: "false",
      KOFI_VERIFICATION_TOKEN: KOFI_TOKEN,
      POST_FILE_MAX_BYTES: String(8 * 1024 * 1024),
      // Short enough for the slow-client tests below.
      HEADERS_TIMEOUT_MS: "2000",
      REQUEST_BODY_TIMEOUT_MS: "2000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (serverOutput += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (serverOutput += chunk.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited:\n${serverOutput}`);
    const ready = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`server did not start:\n${serverOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

afterAll(async () => {
  if (process.env.DEBUG_SERVER_OUTPUT) console.log(serverOutput);
  if (!server || server.exitCode !== null) return;
  const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
  server.kill("SIGTERM");
  const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
});

/** The ETag the server gives these exact bytes (app/document-cache.server.ts). */
function documentEtagOf(html: string): string {
  return `"${createHash("sha256").update(html).digest("base64url").slice(0, 27)}"`;
}

/** GET `page` on a connection of its own, its body as sent (not decoded). */
function rawGet(page: string, headers: Record<string, string>, method = "GET"): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .request(`${base}${page}`, { agent: false, headers, method }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject)
      .end();
  });
}

/** The header names of a GET's answer as sent, lower-cased, once per line (a doubled header shows twice). */
function rawHeadersOf(page: string, headers: Record<string, string>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${page}`, { agent: false, headers }, (response) => {
        response.resume();
        resolve(response.rawHeaders.filter((_, index) => index % 2 === 0).map((name) => name.toLowerCase()));
      })
      .on("error", reject);
  });
}

/** GET / as a guest on a connection of its own (fetch would reuse one, always the same worker). */
function guestPageOnNewConnection(): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}/`, { agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      })
      .on("error", reject);
  });
}

/** Twelve guest requests of / in a row, each on a new connection (so the kernel spreads them over the workers), all satisfy `ok`. */
async function everyAnswer(ok: (html: string) => boolean) {
  for (let i = 0; i < 12; i++) expect(ok(await guestPageOnNewConnection())).toBe(true);
}

/** Every inline script of the body is allowed by exactly its own hash, and no nonce is in play. */
function expectScriptsAllowedByHash(html: string, csp: string, label: string) {
  expect(csp, label).not.toContain("'nonce-");
  expect(html, label).not.toMatch(/\snonce=/);
  expect(html.match(/<!DOCTYPE/gi), label).toHaveLength(1);
  const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!).filter(Boolean);
  expect(inline.length, label).toBeGreaterThan(0);
  const allowed = new Set(/script-src ([^;]+)/.exec(csp)![1]!.split(" "));
  for (const text of inline) expect(allowed.has(`'sha256-${createHash("sha256").update(text).digest("base64")}'`), label).toBe(true);
}

function expectCommonHeaders(response: Response) {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  expect(response.headers.get("x-powered-by")).toBeNull();
  // One CSP, never two merged into one line (that would enforce the intersection).
  expect(response.headers.get("content-security-policy")).not.toMatch(/,/);
}

describe("security headers", () => {
  it("a signed-in document has an enforced CSP that allows exactly its own inline scripts, and stays private", async () => {
    const cookie = await sessionCookie((await createTestUser()).id);
    const response = await fetch(`${base}/infos`, { headers: { Cookie: cookie } });
    expect(response.status).toBe(200);
    expectCommonHeaders(response);
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    const html = await response.text();
    expectScriptsAllowedByHash(html, csp, "/infos signed in");
    // Kept rendered for the same data: the same bytes and validator, a bodiless 304 on revalidation.
    const etag = response.headers.get("etag")!;
    const again = await fetch(`${base}/infos`, { headers: { Cookie: cookie } });
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe(html);
    const revalidated = await fetch(`${base}/infos`, { headers: { Cookie: cookie, "If-None-Match": etag } });
    expect(revalidated.status).toBe(304);
    // Another reader's page is another document.
    const otherCookie = await sessionCookie((await createTestUser({ fullName: "Someone Else" })).id);
    const other = await fetch(`${base}/infos`, { headers: { Cookie: otherCookie } });
    expect(other.headers.get("etag")).not.toBe(etag);
  });

  it("a guest page a CDN may keep allows its inline scripts by hash, not by a nonce, and revalidates by ETag", async () => {
    for (const page of ["/", "/infos"]) {
      const response = await fetch(`${base}${page}`);
      expect(response.status, page).toBe(200);
      expectCommonHeaders(response);
      expect(response.headers.get("set-cookie"), page).toBeNull();
      expect(response.headers.get("cache-control"), page).toBe("public, max-age=0, s-maxage=60, stale-while-revalidate=300");
      expect(response.headers.get("vary"), page).toMatch(/Cookie/i);
      const csp = response.headers.get("content-security-policy")!;
      expect(csp, page).not.toContain("'nonce-");
      const html = await response.text();
      expectScriptsAllowedByHash(html, csp, page);
      // The same bytes again: the same validator, and a conditional request is a bodiless 304.
      const etag = response.headers.get("etag")!;
      expect(etag, page).toMatch(/^"[^"]+"$/);
      const again = await fetch(`${base}${page}`);
      expect(again.headers.get("etag"), page).toBe(etag);
      expect(await again.text(), page).toBe(html);
      const revalidated = await fetch(`${base}${page}`, { headers: { "If-None-Match": etag } });
      expect(revalidated.status, page).toBe(304);
      expect(await revalidated.text(), page).toBe("");
      expect(revalidated.headers.get("content-security-policy"), page).toBe(csp);
    }
  });

  it("the inspiration vote is shared with guests too: no order cookie, hash CSP, public", async () => {
    const response = await fetch(`${base}/inspiration-vote`);
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("cache-control")).toBe("public, max-age=0, s-maxage=60, stale-while-revalidate=300");
    expect(response.headers.get("content-security-policy")).toContain("'sha256-");
  });

  it("a guest page is answered from the copy made moments ago, and a change through the app shows on the next view, whichever worker answers", async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const adminCookie = await sessionCookie(admin.id);
    // Several requests on new connections, so both workers of this server keep a copy of the page.
    const before = await guestPageOnNewConnection();
    await everyAnswer((html) => html === before);
    const created = await fetch(`${base}/api/panels`, {
      method: "POST",
      headers: { Cookie: adminCookie, "Content-Type": "application/json" },
      body: JSON.stringify({ title: "Panel made through the app", link: "https://example.com/through-app", index: 998 }),
    });
    expect(created.status).toBe(201);
    const { panel } = (await created.json()) as { panel: { _id: string } };
    await everyAnswer((html) => html.includes("Panel made through the app"));
    const deleted = await fetch(`${base}/api/panels/${panel._id}`, { method: "DELETE", headers: { Cookie: adminCookie } });
    expect(deleted.status).toBe(200);
    await everyAnswer((html) => html === before);
  });

  it("a change made outside this server (another server, the database) shows to guests on the next view", async () => {
    const before = await guestPageOnNewConnection();
    await everyAnswer((html) => html === before);
    const panel = await db.panel.create({ data: { title: "Freshly added panel", link: "https://example.com/fresh", index: 999 } });
    try {
      const after = await fetch(`${base}/`);
      const html = await after.text();
      expect(before).not.toContain("Freshly added panel");
      expect(html).toContain("Freshly added panel");
      expect(after.headers.get("etag")).not.toBe(documentEtagOf(before));
      await everyAnswer((page) => page.includes("Freshly added panel"));
    } finally {
      await db.panel.delete({ where: { id: panel.id } });
    }
    await everyAnswer((html) => html === before);
  });

  it("a guest's library may be shared, one copy per 18+ answer, and a signed-in reader's never is", async () => {
    const accepted = (await nsfwCookie.serialize(true)).split(";")[0]!;
    const blurred = await fetch(`${base}/library`);
    expect(blurred.headers.get("cache-control")).toContain("public");
    expect(blurred.headers.get("vary")).toContain("Cookie");
    expect(await blurred.text()).toContain("library-content library-blurred");
    // The answer kept for the first guest is not the answer for one who accepted the warning...
    const open = await fetch(`${base}/library`, { headers: { Cookie: accepted } });
    expect(open.headers.get("cache-control")).toContain("public");
    const openHtml = await open.text();
    expect(openHtml).not.toContain("library-blurred");
    expect(openHtml).not.toContain('data-testid="nsfw-modal"');
    // ...nor the other way round.
    expect(await (await fetch(`${base}/library`)).text()).toContain("library-content library-blurred");
    const reader = await createTestUser({ fullName: "Library Reader" });
    const signedIn = await fetch(`${base}/library`, { headers: { Cookie: `${await sessionCookie(reader.id)}; ${accepted}` } });
    expect(signedIn.headers.get("cache-control")).toBe("private, no-cache");
  });

  it("pages go out in the coding the browser asks for, each coding with its own validator, and decode to the same page", async () => {
    const reader = await createTestUser({ fullName: "Compressed Reader" });
    const readerCookie = await sessionCookie(reader.id);
    for (const [page, cookie] of [
      ["/infos", undefined],
      ["/library", readerCookie],
    ] as const) {
      const plain = await rawGet(page, { ...(cookie ? { Cookie: cookie } : {}) });
      expect(plain.headers["content-encoding"], page).toBeUndefined();
      const decoders = { br: brotliDecompressSync, gzip: gunzipSync };
      const etags = new Set([plain.headers.etag]);
      for (const [acceptEncoding, coding] of [
        ["gzip, deflate, br, zstd", "br"],
        ["gzip, deflate", "gzip"],
      ] as const) {
        const asked = { "Accept-Encoding": acceptEncoding, ...(cookie ? { Cookie: cookie } : {}) };
        const compressed = await rawGet(page, asked);
        expect(compressed.status, page).toBe(200);
        expect(compressed.headers["content-encoding"], page).toBe(coding);
        expect(compressed.headers.vary, page).toContain("Accept-Encoding");
        expect(compressed.headers["cache-control"], page).toBe(cookie ? "private, no-cache" : "public, max-age=0, s-maxage=60, stale-while-revalidate=300");
        expect(decoders[coding](compressed.body).toString("utf8"), page).toBe(plain.body.toString("utf8"));
        etags.add(compressed.headers.etag);
        // Revalidating with this coding's tag, as a browser that kept it does: a bodiless 304.
        const revalidated = await rawGet(page, { ...asked, "If-None-Match": String(compressed.headers.etag) });
        expect(revalidated.status, page).toBe(304);
        expect(revalidated.body.length, page).toBe(0);
        expect(revalidated.headers["content-encoding"], page).toBe(coding);
      }
      expect(etags.size, page).toBe(3);
    }
    // The library's data for client navigations (single fetch's `.data` answer): compressed whole too, the same data.
    const data = "/library.data";
    const plainData = await rawGet(data, { Cookie: readerCookie });
    expect(plainData.status).toBe(200);
    expect(plainData.headers["content-type"]).toContain("text/x-script");
    expect(plainData.body.toString("utf8")).toContain("routes/library");
    const brData = await rawGet(data, { Cookie: readerCookie, "Accept-Encoding": "gzip, deflate, br, zstd" });
    expect(brData.headers["content-encoding"]).toBe("br");
    expect(brData.headers.vary).toContain("Accept-Encoding");
    expect(brotliDecompressSync(brData.body).toString("utf8")).toBe(plainData.body.toString("utf8"));
  });

  it("pages that are not for sharing, or requests that carry a session or an API token, are never marked public or answered from a guest copy", async () => {
    const guestLogin = await fetch(`${base}/login`);
    expect(guestLogin.status).toBe(200);
    expect(guestLogin.headers.get("cache-control")).toBe("private, no-cache");
    // A stale or foreign session cookie still keeps the page out of shared caches.
    await fetch(`${base}/`);
    const withCookie = await fetch(`${base}/`, { headers: { Cookie: "__session=stale" } });
    expect(withCookie.status).toBe(200);
    expect(withCookie.headers.get("cache-control") ?? "").not.toContain("public");
    // A Bearer request is a user's: the guest copy of / must not answer it, and its page is theirs.
    const reader = await createTestUser({ fullName: "Token Reader" });
    await db.apiToken.create({ data: { userId: reader.id, tokenHash: hashToken("server-security-reader-token") } });
    const withToken = await fetch(`${base}/`, { headers: { Authorization: "Bearer server-security-reader-token" } });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get("cache-control")).toBe("private, no-cache");
    expect(await withToken.text()).toContain("Token Reader");
  });

  it("a session cookie spelled with spaces around its name still makes the page personal", async () => {
    const reader = await createTestUser({ fullName: "Spaced Cookie Reader", tosAccepted: true });
    const sid = (await sessionCookie(reader.id)).slice("__session=".length);
    await fetch(`${base}/library`, { headers: { Cookie: "nsfwAccepted=true" } });
    for (const cookie of [`__session =${sid}`, ` __session=${sid}`, `other=1;  __session = ${sid}`]) {
      const page = await fetch(`${base}/library`, { headers: { Cookie: cookie } });
      expect(page.status, cookie).toBe(200);
      expect(page.headers.get("cache-control"), cookie).toBe("private, no-cache");
      expect(await page.text(), cookie).toContain("Spaced Cookie Reader");
    }
  });

  it("an /api JSON answer gets the strict resource CSP and the same headers", async () => {
    const response = await fetch(`${base}/api/library/tiers`);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expectCommonHeaders(response);
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });

  it("static images and built assets get the headers and their cache lifetimes", async () => {
    const image = await fetch(`${base}/logo.svg`);
    expect(image.status).toBe(200);
    expectCommonHeaders(image);
    expect(image.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(image.headers.get("cache-control")).toBe("public, max-age=3600");

    const html = await (await fetch(`${base}/infos`)).text();
    const asset = /\/assets\/[^"]+\.js/.exec(html)?.[0];
    expect(asset).toBeTruthy();
    const script = await fetch(`${base}${asset}`);
    expect(script.status).toBe(200);
    expectCommonHeaders(script);
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });

  it("the app's scripts and styles go compressed when the browser accepts it, and decode to the file", async () => {
    const html = (await rawGet("/infos", {})).body.toString("utf8");
    const assets = [/\/assets\/components-[^"]+\.js/.exec(html)?.[0], /\/assets\/design-system-[^"]+\.css/.exec(html)?.[0]];
    for (const asset of assets) {
      expect(asset).toBeTruthy();
      const plain = await rawGet(asset!, {});
      expect(plain.status, asset).toBe(200);
      expect(plain.headers["content-encoding"], asset).toBeUndefined();
      const compressed = await rawGet(asset!, { "Accept-Encoding": "gzip, deflate, br, zstd" });
      expect(compressed.headers["content-encoding"], asset).toBe("br");
      expect(compressed.headers["accept-ranges"], asset).toBeUndefined();
      expect(brotliDecompressSync(compressed.body).equals(plain.body), asset).toBe(true);
    }
  });

  it("the library's first load preloads none of the parts loaded on demand, which its scripts name for later; the server still draws them", async () => {
    const html = (await rawGet("/library", {})).body.toString("utf8");
    const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((match) => match[1]!);
    const card = preloaded.find((href) => href.includes("/post-card-"));
    expect(card).toBeTruthy();
    for (const part of ["verify-file-form", "card-version-list", "access-ways", "adult-warning", "modal", "terms-popup", "post-admin-card", "post-row"])
      expect(
        preloaded.filter((href) => href.includes(`/${part}-`)),
        part,
      ).toEqual([]);
    const scripts = (await Promise.all(preloaded.map(async (href) => (await rawGet(href, {})).body.toString("utf8")))).join("\n");
    for (const part of ["verify-file-form", "card-version-list", "access-ways", "adult-warning", "terms-popup", "post-admin-card", "post-row"])
      expect(scripts, part).toMatch(new RegExp(`assets/${part}-[\\w-]+\\.js`));
    // A guest's first visit: the 18+ warning is in the page as the server drew it.
    expect(html).toContain('data-testid="nsfw-modal"');
  });

  it("sends a browser that accepts Brotli the scripts and styles compressed when built (quality 11), and one that does not the middleware's gzip", async () => {
    const html = (await rawGet("/library", {})).body.toString("utf8");
    const assets = [/\/assets\/components-[^"]+\.js/.exec(html)?.[0], /\/assets\/library-[^"]+\.css/.exec(html)?.[0]];
    const assetsDir = path.resolve(root, process.env.REMIX_BUILD_DIR ?? "build", "client");
    for (const asset of assets) {
      expect(asset).toBeTruthy();
      const built = readFileSync(path.join(assetsDir, `${asset!}.br`));
      const plain = await rawGet(asset!, {});
      expect(plain.headers["vary"], asset).toMatch(/Accept-Encoding/);
      for (const method of ["GET", "HEAD"]) {
        const compressed = await rawGet(asset!, { "Accept-Encoding": "gzip, deflate, br, zstd" }, method);
        expect(compressed.status, asset).toBe(200);
        expect(compressed.headers["content-encoding"], asset).toBe("br");
        // The file's own type (a charset's name is case-insensitive).
        expect(compressed.headers["content-type"]?.toLowerCase(), asset).toBe(plain.headers["content-type"]?.toLowerCase());
        expect(compressed.headers["cache-control"], asset).toBe("public, max-age=31536000, immutable");
        expect(compressed.headers["vary"], asset).toMatch(/Accept-Encoding/);
        expect(Number(compressed.headers["content-length"]), asset).toBe(built.length);
        if (method === "GET") expect(compressed.body.equals(built), asset).toBe(true);
      }
      expect(brotliDecompressSync(built).equals(plain.body), asset).toBe(true);
      const gzipped = await rawGet(asset!, { "Accept-Encoding": "gzip" });
      expect(gzipped.headers["content-encoding"], asset).toBe("gzip");
      expect(gunzipSync(gzipped.body).equals(plain.body), asset).toBe(true);
      const refused = await rawGet(asset!, { "Accept-Encoding": "br;q=0, gzip" });
      expect(refused.headers["content-encoding"], asset).toBe("gzip");
    }
  });

  it("download addresses may be framed by our own pages only (the hidden download frame)", async () => {
    const response = await fetch(`${base}/api/download/no-such-post`);
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'self'");
    expect(response.headers.get("x-frame-options")).toBe("SAMEORIGIN");
  });

  it("a missing page is still a document with the nonce CSP", async () => {
    const response = await fetch(`${base}/no-such-page`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-security-policy")).toMatch(/script-src 'self' 'nonce-/);
  });

  it("sends each security header once: a document's own CSP replaces the default one, and no server module rewrites a head as it is written", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const names = [
      "content-security-policy",
      "x-frame-options",
      "x-content-type-options",
      "referrer-policy",
      "cross-origin-opener-policy",
      "permissions-policy",
    ];
    for (const [page, headers] of [
      ["/", {}],
      ["/library", { Cookie: cookie }],
      ["/no-such-page", {}],
      ["/api/library/tiers", {}],
      ["/logo.svg", {}],
    ] as const) {
      const raw = await rawHeadersOf(page, headers);
      for (const name of names)
        expect(
          raw.filter((sent) => sent === name),
          `${page} ${name}`,
        ).toHaveLength(1);
    }
    for (const file of readdirSync(path.join(root, "server")))
      expect(readFileSync(path.join(root, "server", file), "utf8"), file).not.toMatch(/\.writeHead\s*=/);
  });

  it("HSTS only when the site is served over https", () => {
    expect(responseSecurityHeaders("https://example.com")["Strict-Transport-Security"]).toBe("max-age=31536000; includeSubDomains");
    expect(responseSecurityHeaders("http://127.0.0.1:3000")["Strict-Transport-Security"]).toBeUndefined();
  });

  it("the session cookie is httpOnly, SameSite=Lax, and Secure on https", async () => {
    const user = await createTestUser();
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base },
      body: JSON.stringify({ email: user.email, password: "Password1!" }),
    });
    expect(response.status).toBe(200);
    const setCookie = response.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^__session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    // Served over http here: Secure would make the browser drop it.
    expect(setCookie).not.toMatch(/Secure/i);
  });
});

describe("cross-site state changes", () => {
  async function sessionOf() {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    return { user, cookie };
  }

  it("refuses a cross-site POST that carries the session cookie, and changes nothing", async () => {
    const { user, cookie } = await sessionOf();
    const response = await fetch(`${base}/api/auth/logout`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: "https://evil.example" },
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: "Cross-site request refused." });
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(await db.session.count({ where: { userId: user.id } })).toBe(1);
  });

  it("refuses by Sec-Fetch-Site when the Origin header is missing, and a null Origin", async () => {
    const { user, cookie } = await sessionOf();
    const variants: Record<string, string>[] = [{ "Sec-Fetch-Site": "cross-site" }, { Origin: "null" }, { Referer: "https://evil.example/page" }];
    for (const headers of variants) {
      const response = await fetch(`${base}/api/auth/update-username`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/json", ...headers },
        body: JSON.stringify({ username: "Hijacked" }),
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
    }
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).fullName).toBe(user.fullName);
  });

  it("personal tokens: a cross-site POST or DELETE with the session is refused; the site's own POST makes one", async () => {
    const { user, cookie } = await sessionOf();
    const json = { Cookie: cookie, "Content-Type": "application/json" };
    const forged = await fetch(`${base}/api/account/tokens`, {
      method: "POST",
      headers: { ...json, Origin: "https://evil.example" },
      body: '{"label":"forged"}',
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({ error: "Cross-site request refused." });
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(0);

    const own = await fetch(`${base}/api/account/tokens`, {
      method: "POST",
      headers: { ...json, Origin: base, "Sec-Fetch-Site": "same-origin" },
      body: '{"label":"mine"}',
    });
    expect(own.status).toBe(201);
    const { id } = (await own.json()) as { id: string };
    const revoke = await fetch(`${base}/api/account/tokens/${id}`, { method: "DELETE", headers: { Cookie: cookie, "Sec-Fetch-Site": "cross-site" } });
    expect(revoke.status).toBe(403);
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(1);
  });

  it("lets a same-origin POST through", async () => {
    const { user, cookie } = await sessionOf();
    const response = await fetch(`${base}/api/auth/logout`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: base, "Sec-Fetch-Site": "same-origin" },
    });
    expect(response.status).toBe(200);
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);
  });

  // Login CSRF: a cross-site sign-in gets no session cookie, also when the request carries no
  // cookie at all and sends its JSON as text/plain (a body a cross-site form can post).
  it("refuses a cross-site sign-in without any cookie, by Origin or by Sec-Fetch-Site", async () => {
    await createTestUser({ email: "csrf-login@example.com", password: "Password1!" });
    const forged = { email: "csrf-login@example.com", password: "Password1!" };
    for (const headers of [
      { Origin: "https://evil.example" },
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site", Origin: "https://sub.evil.example" },
    ] as Record<string, string>[]) {
      const response = await fetch(`${base}/api/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "text/plain", ...headers },
        body: JSON.stringify(forged),
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.headers.get("set-cookie")).toBeNull();
    }
    // The /login form as well (form-encoded, no cookie).
    const form = await fetch(`${base}/login`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
      body: new URLSearchParams({ intent: "login", ...forged }),
      redirect: "manual",
    });
    expect(form.status).toBe(403);
    expect(form.headers.get("set-cookie")).toBeNull();
  });

  it("JSON endpoints answer 415 to a body that is not application/json", async () => {
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", Origin: base, "Sec-Fetch-Site": "same-origin" },
      body: JSON.stringify({ email: "nobody@example.com", password: "wrong-password" }),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({ error: "Request body must be JSON (Content-Type: application/json)." });
    expect(response.headers.get("set-cookie")).toBeNull();
    const json = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json; charset=utf-8", Origin: base, "Sec-Fetch-Site": "same-origin" },
      body: JSON.stringify({ email: "nobody@example.com", password: "wrong-password" }),
    });
    expect(json.status).toBe(401);
  });

  it("GET /api/auth/logout refuses a cross-site navigation and keeps the session", async () => {
    const { user, cookie } = await sessionOf();
    const forged = await fetch(`${base}/api/auth/logout`, { headers: { Cookie: cookie, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate" } });
    expect(forged.status).toBe(403);
    expect(await db.session.count({ where: { userId: user.id } })).toBe(1);
    const own = await fetch(`${base}/api/auth/logout`, { headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" } });
    expect(own.status).toBe(200);
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);
  });

  it("lets requests that no browser page sent (no Origin, no Sec-Fetch-Site) reach the app", async () => {
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "nobody@example.com", password: "wrong-password" }),
    });
    expect(response.status).toBe(401);
  });

  it("exempts the signed webhooks even with a cookie and a foreign Origin", async () => {
    const { cookie } = await sessionOf();
    const payload = kofiPayload({ verification_token: KOFI_TOKEN, kofi_transaction_id: "server-test-tx" });
    const response = await fetch(`${base}/api/webhooks/kofi`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: "https://ko-fi.com", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ data: JSON.stringify(payload) }),
    });
    expect(response.status).toBe(200);
    expect(await db.purchase.count({ where: { transactionId: "server-test-tx" } })).toBe(1);
  });

  it("exempts Bearer-token requests (browsers never add them on their own)", async () => {
    const { cookie } = await sessionOf();
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      const response = await fetch(`${base}/api/auth/logout`, {
        method: "POST",
        headers: { Cookie: cookie, Origin: "https://evil.example", Authorization: `${scheme} not-a-real-token` },
      });
      expect(response.status).not.toBe(403);
    }
  });
});

// Sign-ins hash in worker threads (the worker file must resolve from the
// bundled build) and are limited per connection address without CLIENT_IP_HEADER.
describe("sign-in workers and per-address limit", () => {
  it("the built server signs in through its password workers", async () => {
    await createTestUser({ email: "worker-login@example.com", password: "Password1!" });
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "worker-login@example.com", password: "Password1!" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(/^__session=/);
  });

  it("limits sign-ins per connection address even without CLIENT_IP_HEADER", async () => {
    await db.rateLimit.deleteMany({});
    const attempt = (index: number) =>
      fetch(`${base}/api/auth/login`, {
        method: "POST",
        // A header the client writes is never taken for its address.
        headers: { "Content-Type": "application/json", "X-Forwarded-For": `10.0.0.${index}` },
        body: JSON.stringify({ email: `random-${index}-${Date.now()}@example.com`, password: "Whatever1!" }),
      });
    // Two attempts with different forged headers share one per-address counter.
    expect((await attempt(0)).status).toBe(401);
    expect((await attempt(1)).status).toBe(401);
    const counters = await db.rateLimit.findMany({ where: { key: { startsWith: "login:ip:" } } });
    expect(counters.map((counter) => counter.count)).toEqual([2]);
    // 47 more attempts are set in the database rather than made (each costs a bcrypt compare,
    // past the test timeout on a loaded machine): the 50th passes, the 51st is refused.
    await db.rateLimit.update({ where: { key: counters[0]!.key }, data: { count: 49 } });
    expect((await attempt(49)).status).toBe(401);
    const refused = await attempt(50);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    await db.rateLimit.deleteMany({});
  });

  it("a server whose password workers cannot start stops at start with a clear message", async () => {
    // A build without the worker file beside it (e.g. a partial deploy).
    const broken = path.join(root, `.tmp-build-${process.pid}`);
    mkdirSync(broken, { recursive: true });
    try {
      const [serverJs, indexJs] = serverArgs.slice(-2);
      copyFileSync(serverJs!, path.join(broken, "server.js"));
      copyFileSync(indexJs!, path.join(broken, "index.js"));
      const { code, output } = await runUntilExit(
        [path.join(broken, "server.js"), path.join(broken, "index.js")],
        await productionServerEnv({ DISABLE_JOBS: "1" }),
        // A guard, not a measure: a loaded machine may take long to load the build.
        90_000,
      );
      expect(code).toBe(1);
      expect(output).toContain("The password worker pool could not start");
      expect(output).toContain("password-worker.mjs");
      expect(output).not.toContain("[server] http://");
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  }, 120_000);
});

// A client trickling its request must not hold a connection (Node's own limit is 300 s).
describe("slow clients", () => {
  /**
   * Opens a raw connection, writes `head`, then one byte of `drip` every 200 ms; resolves with how
   * many bytes of `drip` were sent when the server closed the connection.
   */
  function trickle(head: string, drip: string): Promise<{ sent: number; received: string }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(new URL(base).port), "127.0.0.1", () => socket.write(head));
      let index = 0;
      let received = "";
      const timer = setInterval(() => {
        if (!socket.destroyed && index < drip.length) socket.write(drip[index++]!);
      }, 200);
      socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
      socket.on("error", () => undefined);
      socket.on("close", () => {
        clearInterval(timer);
        resolve({ sent: index, received });
      });
      setTimeout(() => {
        clearInterval(timer);
        socket.destroy();
        reject(new Error("the server kept the trickling connection open"));
      }, 15_000);
    });
  }

  it("drops a connection whose body trickles in past REQUEST_BODY_TIMEOUT_MS", async () => {
    // 199 bytes at one per 200 ms would take 40 s: the server closed it while it still trickled, unanswered.
    const head = "POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n";
    const drip = "x".repeat(199);
    const { sent, received } = await trickle(head, drip);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(drip.length);
    expect(received).toBe("");
  });

  it("drops a connection whose request head trickles in past HEADERS_TIMEOUT_MS", async () => {
    const drip = `Host: 127.0.0.1\r\nX-Slow: ${"a".repeat(100)}`;
    const { sent } = await trickle("GET /healthz HTTP/1.1\r\n", drip);
    expect(sent).toBeLessThan(drip.length);
  });

  it("a body that arrives promptly is answered as before", async () => {
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "nobody@example.com", password: "Whatever1!" }),
    });
    expect(response.status).toBe(401);
  });
});

/** Sends only the head of a request to this server, declaring `length` body bytes (tests/declared-body.ts). */
const declaredBody = (pathname: string, length: number, headers: Record<string, string>, method = "POST") =>
  declaredBodyTo(`${base}${pathname}`, length, headers, method);

describe("an /api address no route serves", () => {
  it("answers 404 in the API's shape for every method, not the HTML page or a 405", async () => {
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      const response = await fetch(`${base}/api/no/such/endpoint`, {
        method,
        headers: { "Content-Type": "application/json", Origin: base },
        body: method === "GET" ? undefined : "{}",
      });
      expect([method, response.status, response.headers.get("Content-Type")]).toEqual([method, 404, "application/json; charset=utf-8"]);
      expect(await response.json()).toEqual({ error: "Not found." });
    }
    // The site's own addresses still answer their HTML page, a form posted to one too.
    const page = await fetch(`${base}/no/such/page`);
    expect([page.status, page.headers.get("Content-Type")]).toEqual([404, "text/html; charset=utf-8"]);
    const posted = await fetch(`${base}/no/such/page`, { method: "POST", headers: { Origin: base }, body: new URLSearchParams({ a: "1" }) });
    expect([posted.status, posted.headers.get("Content-Type")]).toEqual([404, "text/html; charset=utf-8"]);
    expect(await posted.text()).toContain("Page not found");
  });
});

describe("body size limits", () => {
  it("refuses a JSON body over 1 MiB with 413 before the app reads it", async () => {
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "a@example.com", password: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "Request body is too large." });
  });

  it("refuses a body without a declared length outside the upload routes", async () => {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"email":"a@example.com"}'));
        controller.close();
      },
    });
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    });
    expect(response.status).toBe(411);
  });

  it("lets upload routes take bigger bodies, up to their own type's limit", async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const cookie = await sessionCookie(admin.id);
    const big = new FormData();
    big.append("image", new Blob([new Uint8Array(3 * 1024 * 1024)], { type: "image/png" }), "big.png");
    // 3 MiB passes the server (the image limit is 10 MiB) and reaches the route, which reads it
    // all and refuses it as an image (an answer before the body would close the connection).
    const post = await createPost({ fileSize: null });
    const response = await fetch(`${base}/api/upload/front/${post.id}`, { method: "POST", headers: { Cookie: cookie, Origin: base }, body: big });
    expect(response.status).not.toBe(413);
    expect(response.status).toBeLessThan(500);

    // 11 MiB declared: refused from the headers alone, before the body is sent.
    const refused = await declaredBody("/api/upload/front/no-such-post", 11 * 1024 * 1024, { Cookie: cookie, Origin: base });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toEqual({ error: "Request body is too large." });
  });

  it("refuses a declared 5 GiB post file without reading it: too large for an admin, not theirs to send for a guest", async () => {
    const admin = await sessionCookie((await createTestUser({ isAdmin: true, canBeAdmin: true })).id);
    const multipart = { "Content-Type": "multipart/form-data; boundary=x", Origin: base };
    const refused = await declaredBody("/api/upload/file/some-post", 5 * 1024 * 1024 * 1024, { ...multipart, Cookie: admin });
    expect([refused.status, JSON.parse(refused.body)]).toEqual([413, { error: "Request body is too large." }]);
    expect((await declaredBody("/api/upload/file/some-post", 5 * 1024 * 1024 * 1024, multipart)).status).toBe(401);
  });

  it("asks who sends a large body before reading it: only an admin's multipart upload gets the upload limit", async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const adminCookie = await sessionCookie(admin.id);
    const fan = await sessionCookie((await createTestUser()).id);
    const multipart = { "Content-Type": "multipart/form-data; boundary=x", Origin: base };
    const MiB = 1024 * 1024;
    // A guest's url-encoded 400 MB "upload": refused from the headers, nothing read.
    const urlEncoded = await declaredBody("/library?intent=upload-file&postId=a", 400 * MiB, {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: base,
    });
    expect(urlEncoded.status).toBe(413);
    // Multipart above 1 MiB from a guest or a signed-in fan: the upload routes' refusal of who asks, from the headers alone.
    const adminOnly = { error: "You need to be logged in as an admin to perform this action." };
    const guestUpload = await declaredBody("/library?intent=upload-file&postId=a", 3 * MiB, multipart);
    expect([guestUpload.status, JSON.parse(guestUpload.body)]).toEqual([401, adminOnly]);
    const fanUpload = await declaredBody("/api/upload/file/some-post", 500 * MiB, { ...multipart, Cookie: fan });
    expect([fanUpload.status, JSON.parse(fanUpload.body)]).toEqual([403, adminOnly]);
    // An admin sending another kind of body.
    expect(
      (await declaredBody("/admin?intent=trace-zip", 3 * MiB, { "Content-Type": "application/x-www-form-urlencoded", Origin: base, Cookie: adminCookie }))
        .status,
    ).toBe(413);
    // The admin's multipart upload passes the edge (the route then reads and answers it).
    const post = await createPost({ fileSize: null });
    const admitted = await sendMultipart(`/api/upload/front/${post.id}`, 3 * MiB, adminCookie);
    expect(admitted.status).not.toBe(413);
    expect(admitted.status).toBeLessThan(500);
    // Each upload route's own kind caps the admin too (images: 10 MiB).
    expect((await declaredBody("/api/upload/front/no-such-post", 11 * MiB, { ...multipart, Cookie: adminCookie })).status).toBe(413);
    expect((await declaredBody("/api/upload/file/no-such-post", 9 * MiB, { ...multipart, Cookie: adminCookie })).status).toBe(413);
  });

  it("admits a resumable upload's raw part body only for the admin who started it, up to the part size", async () => {
    const MiB = 1024 * 1024;
    const owner = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const otherAdmin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const post = await createPost({ fileSize: null });
    const uploadId = "edgeedgeedgeedge0123456789abcdef";
    await db.uploadSession.create({
      data: {
        id: uploadId,
        postId: post.id,
        adminId: owner.id,
        fileName: "pack.zip",
        size: BigInt(20 * MiB),
        partSize: 8 * MiB,
        driver: "local",
        storageKey: `uploads/${uploadId}/assembled`,
      },
    });
    const raw = { "Content-Type": "application/octet-stream", Origin: base };
    const part = `/api/uploads/${uploadId}/parts/1`;
    // Refused from the headers alone, as the part route refuses them: a guest, a fan, another admin.
    const refusal = async (headers: Record<string, string>) => {
      const answer = await declaredBody(part, 3 * MiB, { ...raw, ...headers }, "PUT");
      return [answer.status, (JSON.parse(answer.body) as { error: string }).error];
    };
    expect(await refusal({})).toEqual([401, "Not authenticated"]);
    expect(await refusal({ Cookie: await sessionCookie((await createTestUser()).id) })).toEqual([404, "This upload does not exist or is no longer available."]);
    expect(await refusal({ Cookie: await sessionCookie(otherAdmin.id) })).toEqual([403, "Only the admin who started this upload may continue it."]);
    const ownerCookie = await sessionCookie(owner.id);
    // The owner too above the part size (8 MiB for an 8 MiB POST_FILE_MAX_BYTES).
    expect((await declaredBody(part, 9 * MiB, { ...raw, Cookie: ownerCookie }, "PUT")).status).toBe(413);
    // The owner's part passes the edge; the route then finds it the wrong size (a whole part is 8 MiB).
    const admitted = await fetch(`${base}${part}`, { method: "PUT", headers: { ...raw, Cookie: ownerCookie }, body: new Uint8Array(3 * MiB) });
    expect(admitted.status).toBe(400);
    expect(((await admitted.json()) as { error: string }).error).toContain("wrong size");
    await db.uploadSession.delete({ where: { id: uploadId } });
  });

  it("takes no chunked body from someone who may not upload, and closes the connection", async () => {
    // A guest's chunked upload: the upload route's refusal of a guest, before a chunk is read.
    const upload = await rawExchange(
      "POST /library?intent=upload-file&postId=a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n",
    );
    expect(upload.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(upload.head).toMatch(/\r\nConnection: close\r\n/i);
    // Elsewhere a chunked body is refused for its missing length.
    const json = await rawExchange(
      "POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
    );
    expect(json.head).toMatch(/^HTTP\/1\.1 411 /);
    expect(json.head).toMatch(/\r\nConnection: close\r\n/i);
  });

  it("closes the connection when it answers before the body has arrived, without reading the rest", async () => {
    // A guest's small multipart post to the library's upload: redirected away at once.
    const answer = await rawExchange(
      `POST /library?intent=upload-file&postId=a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${512 * 1024}\r\n\r\n--x\r\n`,
    );
    expect(answer.head).toMatch(/^HTTP\/1\.1 (302|303|403) /);
    expect(answer.head).toMatch(/\r\nConnection: close\r\n/i);
  });

  it("refuses a Host header that carries a path, so the edge and the app always see the same route", async () => {
    const answer = await rawExchange("GET /library HTTP/1.1\r\nHost: example.com/login#\r\nConnection: close\r\n\r\n");
    expect(answer.head).toMatch(/^HTTP\/1\.1 400 /);
    const upload = await rawExchange(
      `POST /library?intent=upload-file&postId=a HTTP/1.1\r\nHost: example.com/login#\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${400 * 1024 * 1024}\r\n\r\n`,
    );
    expect(upload.head).toMatch(/^HTTP\/1\.1 400 /);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

/** A multipart POST of `size` zero bytes as `image`, with the session cookie. */
async function sendMultipart(pathname: string, size: number, cookie: string): Promise<Response> {
  const form = new FormData();
  form.append("image", new Blob([new Uint8Array(size)], { type: "image/png" }), "big.png");
  return fetch(`${base}${pathname}`, { method: "POST", headers: { Cookie: cookie, Origin: base }, body: form });
}

/** Writes `request` on a raw connection and sends nothing more: the answer's head, once the server has closed the connection. */
function rawExchange(request: string): Promise<{ head: string }> {
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = net.connect(Number(new URL(base).port), "127.0.0.1", () => socket.write(request));
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open; received:\n${received}`));
    }, 10_000);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ head: received.split("\r\n\r\n")[0] + "\r\n" });
    });
  });
}

describe("graceful stop", () => {
  it("exits with 0 on SIGTERM", async () => {
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    server.kill("SIGTERM");
    const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
    // A SIGKILL (the guard) would exit with null: 0 is a clean stop of its own.
    expect(await exited).toBe(0);
    clearTimeout(timer);
  });
});
