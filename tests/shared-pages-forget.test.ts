// Guest pages kept for a second (app/document-cache.server.ts) are forgotten by writes to what
// guests see, noticed where every write passes (app/db.server.ts), and by nothing else: requests
// that write other tables (sign-in attempts, sessions, rate limits) or nothing at all leave them.
// The HTTP server's half answers a kept page without reaching the app.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { newKeptDocument, rememberSharedPage, sharedPageAnswer, sharedPagesSince } from "~/document-cache.server";
import { enforceRateLimit } from "~/models/rate-limit.server";
import { createUserSession } from "~/models/session.server";
import { reuseSharedPages } from "../server/app.ts";
import { createTestUser } from "./helpers";

/**
 * Keeps a page as made at `now`. The tests ask at that same instant: whether a kept page is
 * forgotten is the question here, not its second of life (app/document-cache.server.test.ts checks
 * that against its own clock), so a slow machine cannot let it expire on its own.
 */
function keep(path: string, now = Date.now()) {
  rememberSharedPage(`http://site.test${path}`, null, newKeptDocument(Buffer.from(`<p>${path}</p>`)), new Headers(), sharedPagesSince(), now);
  return now;
}

describe("what forgets a kept guest page", () => {
  it("writes to other tables do not: sessions, rate limits, a new account", async () => {
    const keptAt = keep("/kept-1");
    const user = await createTestUser();
    await createUserSession(user.id);
    await enforceRateLimit(`login:email:${user.email}`, 10, 60_000);
    await db.rateLimit.deleteMany({ where: { key: "no-such-key" } });
    expect(sharedPageAnswer("/kept-1", {}, keptAt)).not.toBeNull();
  });

  it("a write to what guests see does, inside or outside a transaction", async () => {
    const kept2 = keep("/kept-2");
    await db.panel.create({ data: { title: "New panel", link: "https://example.com", index: 50 } });
    expect(sharedPageAnswer("/kept-2", {}, kept2)).toBeNull();

    const kept3 = keep("/kept-3");
    await db.$executeRaw`UPDATE panels SET title = title WHERE index = 50`;
    expect(sharedPageAnswer("/kept-3", {}, kept3)).toBeNull();
  });

  it("a page kept between a write and its commit is forgotten again at the commit", async () => {
    let keptAt = 0;
    await db.$transaction(async (tx) => {
      await tx.panel.updateMany({ where: { index: 50 }, data: { title: "Renamed" } });
      // A guest page read now saw the rows before this write: kept at the new version...
      keptAt = keep("/kept-4");
      expect(sharedPageAnswer("/kept-4", {}, keptAt)).not.toBeNull();
    });
    // ...and the commit forgets it.
    expect(sharedPageAnswer("/kept-4", {}, keptAt)).toBeNull();
  });

  it("a page whose request started before a write is not kept", async () => {
    const since = sharedPagesSince();
    await db.panel.deleteMany({ where: { index: 50 } });
    rememberSharedPage("http://site.test/kept-5", null, newKeptDocument(Buffer.from("<p>old</p>")), new Headers(), since);
    expect(sharedPageAnswer("/kept-5", {})).toBeNull();
  });
});

describe("the HTTP server's half", () => {
  let reachedApp = 0;
  let base = "";
  let server: ReturnType<express.Express["listen"]>;

  beforeAll(async () => {
    const app = express();
    app.use(reuseSharedPages({ sharedPageAnswer, sharedPagesSince }));
    app.all("*", (_req, res) => {
      reachedApp += 1;
      res.status(404).send("from the app");
    });
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  it("answers a kept guest page without reaching the app, and anonymous posts that write nothing leave it kept", async () => {
    keep("/kept-http");
    // A coding not made yet is left to Remix; the plain bytes are made with the page.
    const plain = { headers: { "Accept-Encoding": "identity" } };
    const kept = await fetch(`${base}/kept-http`, plain);
    expect(await kept.text()).toBe("<p>/kept-http</p>");
    expect(kept.headers.get("content-length")).toBe(String("<p>/kept-http</p>".length));
    expect(reachedApp).toBe(0);
    // Posts to a missing page, in a loop: they reach the app and change nothing it keeps.
    for (let round = 0; round < 5; round++) expect((await fetch(`${base}/no-such-page`, { method: "POST" })).status).toBe(404);
    expect(reachedApp).toBe(5);
    expect(await (await fetch(`${base}/kept-http`, plain)).text()).toBe("<p>/kept-http</p>");
    expect(reachedApp).toBe(5);
  });
});
