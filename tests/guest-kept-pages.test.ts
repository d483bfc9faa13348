// A guest's kept page (app/models/reader-pages.server.ts) is kept at a database stamp read before
// Remix runs: writes to what guests see move it for every app server once committed, writes to
// anything else leave it. The HTTP server's half answers a kept page without reaching the app.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { enforceRateLimit } from "~/models/rate-limit.server";
import { readerPageKey, readerPageLookup, type ReaderRequest } from "~/models/reader-pages.server";
import { createUserSession } from "~/models/session.server";
import { keptPages } from "../server/app.ts";
import { createTestUser } from "./helpers";

const guest = (url = "/", cookie?: string): ReaderRequest => ({ method: "GET", url, cookie, authorization: undefined, acceptLanguage: undefined });
const guestStamp = async () => (await readerPageLookup(guest(), { guestCacheable: true }))!.stamp;

describe("the stamp a guest's page is kept at", () => {
  it("is read only for a guest's GET of a page that opts in, per address and whole Cookie header", async () => {
    expect(await readerPageLookup(guest(), { keptForReaders: true })).toBeNull();
    expect(await readerPageLookup({ ...guest(), method: "POST" }, { guestCacheable: true })).toBeNull();
    expect(await readerPageLookup({ ...guest(), authorization: "Bearer t" }, { guestCacheable: true })).toBeNull();
    const lookup = await readerPageLookup(guest("/library?page=2"), { guestCacheable: true });
    expect(lookup).toMatchObject({ accountId: null, key: readerPageKey(guest("/library?page=2")) });
    // One copy per combination of a guest's cookies, as `Vary: Cookie` tells shared caches.
    expect(readerPageKey(guest("/library", "nsfwAccepted=dHJ1ZQ%3D%3D"))).not.toBe(readerPageKey(guest("/library")));
  });

  it("does not move with writes to other tables: sessions, rate limits, a new account", async () => {
    const before = await guestStamp();
    const user = await createTestUser();
    await createUserSession(user.id);
    await enforceRateLimit(`login:email:${user.email}`, 10, 60_000);
    expect(await guestStamp()).toBe(before);
  });

  it("moves with a write to what guests see, through Prisma or raw SQL: panels, the vote's settings, posts", async () => {
    let stamp = await guestStamp();
    const moved = async () => {
      const now = await guestStamp();
      const changed = now !== stamp;
      stamp = now;
      return changed;
    };
    await db.panel.create({ data: { title: "New panel", link: "https://example.com", index: 50 } });
    expect(await moved()).toBe(true);
    await db.$executeRaw`UPDATE panels SET title = 'Renamed' WHERE index = 50`;
    expect(await moved()).toBe(true);
    await db.inspirationConfig.upsert({ where: { id: 1 }, create: { title: "Vote" }, update: { title: "Vote" } });
    expect(await moved()).toBe(true);
    await db.post.create({ data: { id: `guest-stamp-${Date.now()}`, title: "A guest sees this" } });
    expect(await moved()).toBe(true);
  });

  it("moves when a transaction's write commits, not before: a page read meanwhile saw the old rows", async () => {
    const before = await guestStamp();
    await db.$transaction(async (tx) => {
      await tx.panel.updateMany({ where: { index: 50 }, data: { title: "Renamed again" } });
      expect(await guestStamp()).toBe(before);
    });
    expect(await guestStamp()).not.toBe(before);
  });
});

describe("the HTTP server's half", () => {
  let reachedApp = 0;
  let base = "";
  let server: ReturnType<express.Express["listen"]>;
  const body = Buffer.from("<p>kept</p>");

  beforeAll(async () => {
    const app = express();
    app.use((_req, res, next) => ((res.locals.routeId = "routes/_index"), next()));
    app.use(
      keptPages(
        async (request) =>
          request.url === "/kept"
            ? { answer: { status: 200, headers: [["Content-Type", "text/html"]], body }, accountId: null }
            : { lookup: null, made: () => undefined },
        () => ({ guestCacheable: true }),
      ),
    );
    app.all("*", (_req, res) => {
      reachedApp += 1;
      res.status(404).send("from the app");
    });
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  it("answers a kept page without reaching the app, and leaves everything else to it", async () => {
    const kept = await fetch(`${base}/kept`);
    expect(await kept.text()).toBe("<p>kept</p>");
    expect(kept.headers.get("content-length")).toBe(String(body.length));
    expect((await fetch(`${base}/kept`, { method: "HEAD" })).status).toBe(200);
    expect(reachedApp).toBe(0);
    expect((await fetch(`${base}/other`)).status).toBe(404);
    expect(reachedApp).toBe(1);
  });
});
