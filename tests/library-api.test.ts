// The library's /api routes against a real database: who sees and unlocks what, and the admin
// operations (refused to everyone else).
import { vi } from "vitest";

vi.hoisted(() => {
  // A small upload limit so the oversize path is testable.
  process.env.POST_FILE_MAX_BYTES = String(256 * 1024);
});

import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import * as postsRoute from "~/routes/api.library.posts";
import * as postRoute from "~/routes/api.library.posts.$id";
import * as toggleRoute from "~/routes/api.library.posts.$id.toggle";
import * as orderRoute from "~/routes/api.library.posts.$id.order";
import * as acceptTosRoute from "~/routes/api.library.accept-tos.$id";
import * as tiersRoute from "~/routes/api.library.tiers";
import * as frontRoute from "~/routes/api.upload.front.$id";
import * as fileRoute from "~/routes/api.upload.file.$id";
import type { LibraryPost } from "~/models/library-listing.server";
import { movePostToIndex } from "~/models/post-admin.server";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";

const ADMIN_ONLY = "You need to be logged in as an admin to perform this action.";

async function listAs(cookie?: string) {
  const response = await callRoute(postsRoute, { path: "/api/library/posts", cookie });
  expect(response.status).toBe(200);
  return (await readJsonBody<{ posts: LibraryPost[] }>(response)).posts;
}

function byId(posts: LibraryPost[]) {
  return new Map(posts.map((post) => [post.postId, post]));
}

let adminCookie: string;
let userCookie: string;
let admin: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
  userCookie = await sessionCookie((await createTestUser()).id);
});

describe("GET /api/library/posts: entitlement per viewer", () => {
  it("guests see enabled posts only, with only free posts unlocked and no storage keys", async () => {
    const free = await createPost({ paid: false });
    const paid = await createPost({ tiers: [TIER_1] });
    const disabled = await createPost({ paid: false, enabled: false });
    const posts = byId(await listAs());
    expect(posts.get(free.id)?.unlocked).toBe(true);
    expect(posts.get(paid.id)?.unlocked).toBe(false);
    expect(posts.has(disabled.id)).toBe(false);
    expect(posts.get(free.id)).not.toHaveProperty("drive_file_id");
    expect(posts.get(free.id)).not.toHaveProperty("downloadStatus");
    expect(posts.get(paid.id)).toMatchObject({ paid_content: true, tiers: [TIER_1], version: "V1.0", fileSize: 4096 });
  });

  it("lists posts newest order date first", async () => {
    const older = await createPost({ orderDate: new Date("2020-01-01T00:00:00Z") });
    const newer = await createPost({ orderDate: new Date("2020-01-02T00:00:00Z") });
    const ids = (await listAs()).map((post) => post.postId);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
  });

  it("unlocked_content unlocks exactly the granted post", async () => {
    const granted = await createPost({ tiers: [TIER_3] });
    const other = await createPost({ tiers: [TIER_3] });
    const user = await createTestUser();
    await db.unlockedContent.create({ data: { userId: user.id, postId: granted.id, source: "ADMIN" } });
    const posts = byId(await listAs(await sessionCookie(user.id)));
    expect(posts.get(granted.id)?.unlocked).toBe(true);
    expect(posts.get(other.id)?.unlocked).toBe(false);
  });

  it("the current tier unlocks the posts of that tier, but not Ko-fi-only posts", async () => {
    const tierPost = await createPost({ tiers: [TIER_1, TIER_2] });
    const higher = await createPost({ tiers: [TIER_3] });
    const shopOnly = await createPost({ tiers: [TIER_2], kofiOnly: true });
    const user = await createTestUser({ currentTierId: TIER_2 });
    const posts = byId(await listAs(await sessionCookie(user.id)));
    expect(posts.get(tierPost.id)?.unlocked).toBe(true);
    expect(posts.get(higher.id)?.unlocked).toBe(false);
    expect(posts.get(shopOnly.id)?.unlocked).toBe(false);
  });

  it("early supporters keep posts of the tier they pledged at on first publication", async () => {
    const published = new Date("2025-06-01T00:00:00Z");
    const early = await createPost({ tiers: [TIER_3], firstTiers: [TIER_1], firstPublishedAt: published });
    const user = await createTestUser({ currentTierId: null });
    await db.pledgeEvent.create({
      data: {
        id: `pledge_start:${user.id}`,
        userId: user.id,
        type: "pledge_start",
        amountCents: 300,
        date: new Date("2025-05-01T00:00:00Z"),
        tierId: TIER_1,
        paymentStatus: "Paid",
      },
    });
    const late = await createTestUser();
    await db.pledgeEvent.create({
      data: {
        id: `pledge_start:${late.id}`,
        userId: late.id,
        type: "pledge_start",
        amountCents: 300,
        date: new Date("2025-07-01T00:00:00Z"),
        tierId: TIER_1,
        paymentStatus: "Paid",
      },
    });
    expect(byId(await listAs(await sessionCookie(user.id))).get(early.id)?.unlocked).toBe(true);
    expect(byId(await listAs(await sessionCookie(late.id))).get(early.id)?.unlocked).toBe(false);
  });

  it("purchases with a verified shop email unlock (guest purchases too); unverified ones do not", async () => {
    const bought = await createPost({ kofiOnly: true, kofiId: "ITEM-A" });
    const notBought = await createPost({ kofiOnly: true, kofiId: "ITEM-B" });
    const user = await createTestUser();
    // Bought as a guest before the email was linked.
    await db.purchase.create({
      data: { email: "Buyer@Example.com", kofiItemCode: "ITEM-A", transactionId: "tx-1", source: "WEBHOOK", purchasedAt: new Date("2024-01-01") },
    });
    await db.purchase.create({ data: { email: "pending@example.com", kofiItemCode: "ITEM-B", transactionId: "tx-2", source: "CSV", purchasedAt: new Date() } });
    await db.shopEmail.create({ data: { userId: user.id, email: "buyer@example.com", verifiedEmail: "buyer@example.com", verifiedAt: new Date() } });
    await db.shopEmail.create({ data: { userId: user.id, email: "pending@example.com" } });
    const posts = byId(await listAs(await sessionCookie(user.id)));
    expect(posts.get(bought.id)?.unlocked).toBe(true);
    expect(posts.get(notBought.id)?.unlocked).toBe(false);
  });

  it("restricted users get nothing unlocked, free posts included", async () => {
    const free = await createPost({ paid: false });
    const user = await createTestUser({ restricted: true, currentTierId: TIER_3 });
    expect(byId(await listAs(await sessionCookie(user.id))).get(free.id)?.unlocked).toBe(false);
  });

  it("admins see disabled posts, storage keys, and everything unlocked", async () => {
    const disabled = await createPost({ enabled: false, tiers: [TIER_3] });
    const post = byId(await listAs(adminCookie)).get(disabled.id);
    expect(post).toMatchObject({ enabled: false, unlocked: true, drive_file_id: disabled.driveFileId });
  });
});

describe("GET /api/library/tiers", () => {
  it("answers the tiers as data", async () => {
    const response = await callRoute(tiersRoute, { path: "/api/library/tiers" });
    const tiers = await readJsonBody<{ tierId: string; title: string; subscribeLabel: string | null; amount_cents: number | null }[]>(response);
    // Cheapest first; the tiers the platform has not priced for us yet (migration 0030) last.
    expect(tiers.map((tier) => tier.tierId).slice(0, 3)).toEqual([TIER_1, TIER_2, TIER_3]);
    expect(tiers.slice(3).every((tier) => tier.amount_cents === null)).toBe(true);
    expect(tiers[1]).toMatchObject({ title: "Tier 2", subscribeLabel: "Tier 2" });
  });
});

describe("admin post operations", () => {
  it("PUT /api/library/posts/{id} edits fields and tiers, and records an audit entry", async () => {
    const post = await createPost({ tiers: [TIER_1] });
    const response = await callRoute(postRoute, {
      method: "PUT",
      path: `/api/library/posts/${post.id}`,
      params: { id: post.id },
      cookie: adminCookie,
      json: {
        title: "Renamed",
        version: "2.0",
        kofi_id: "NEWKOFI",
        is_kofiOnly: true,
        tiers: [TIER_2, TIER_3],
        first_tiers: [TIER_1],
        first_published_at: "2025-01-02T00:00:00.000Z",
        last_updated: "2025-02-03T00:00:00.000Z",
      },
    });
    expect(response.status).toBe(200);
    const { post: updated } = await readJsonBody<{ post: LibraryPost }>(response);
    expect(updated).toMatchObject({
      title: "Renamed",
      version: "2.0",
      kofi_id: "NEWKOFI",
      is_kofiOnly: true,
      first_tiers: [TIER_1],
      first_published_at: "2025-01-02T00:00:00.000Z",
      last_updated: "2025-02-03T00:00:00.000Z",
    });
    expect([...updated.tiers].sort()).toEqual([TIER_3, TIER_2].sort());
    const row = await db.post.findUniqueOrThrow({ where: { id: post.id } });
    expect(row.title).toBe("Renamed");
    const audit = await db.auditEntry.findFirst({ where: { targetId: post.id, action: "post.update" } });
    expect(audit?.actorId).toBe(admin.id);
  });

  it("a typed drive file ID must be a safe storage key and takes the stored file's size", async () => {
    const post = await createPost({ fileSize: null });
    await (await storage()).put("uploads/manual/mod.zip", Buffer.alloc(3000, 1));
    const ok = await callRoute(postRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { drive_file_id: "uploads/manual/mod.zip" } });
    expect((await readJsonBody<{ post: LibraryPost }>(ok)).post).toMatchObject({
      drive_file_id: "uploads/manual/mod.zip",
      fileSize: 3000,
      fileName: "mod.zip",
    });
    const bad = await callRoute(postRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { drive_file_id: "../../etc/passwd" } });
    expect(bad.status).toBe(400);
    expect(await readJsonBody(bad)).toEqual({ error: "The drive file ID is not a valid storage key." });
  });

  it("refuses guests (401) and non-admins (403) with the spec's message, and changes nothing", async () => {
    const post = await createPost();
    for (const [cookie, status] of [
      [undefined, 401],
      [userCookie, 403],
    ] as const) {
      const calls = [
        callRoute(postRoute, { method: "PUT", params: { id: post.id }, cookie, json: { title: "Hacked" } }),
        callRoute(postRoute, { method: "DELETE", params: { id: post.id }, cookie }),
        callRoute(toggleRoute, { method: "PUT", params: { id: post.id }, cookie, json: { enabled: false } }),
        callRoute(orderRoute, { method: "PUT", params: { id: post.id }, cookie, json: { orderDate: "2030-01-01T00:00:00Z" } }),
        callRoute(postsRoute, { method: "POST", cookie, json: { title: "New" } }),
        callRoute(frontRoute, { method: "POST", params: { id: post.id }, cookie, form: new FormData() }),
        callRoute(fileRoute, { method: "POST", params: { id: post.id }, cookie, form: new FormData() }),
      ];
      for (const response of await Promise.all(calls)) {
        expect(response.status).toBe(status);
        expect(await readJsonBody(response)).toEqual({ error: ADMIN_ONLY });
      }
    }
    const row = await db.post.findUniqueOrThrow({ where: { id: post.id } });
    expect(row).toMatchObject({ title: post.title, enabled: true });
    expect(row.orderDate).toEqual(post.orderDate);
  });

  it("answers 404 for ids of the wrong shape and unknown posts, 400 for bad input", async () => {
    const wrongShape = await callRoute(postRoute, { method: "PUT", params: { id: "../x" }, cookie: adminCookie, json: { title: "x" } });
    expect(wrongShape.status).toBe(404);
    const unknown = await callRoute(toggleRoute, { method: "PUT", params: { id: "424242424" }, cookie: adminCookie, json: { enabled: true } });
    expect(unknown.status).toBe(404);
    expect(await readJsonBody(unknown)).toEqual({ error: "Post not found." });
    const post = await createPost();
    const badToggle = await callRoute(toggleRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { enabled: "yes" } });
    expect(badToggle.status).toBe(400);
    const badOrder = await callRoute(orderRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { orderDate: "not a date" } });
    expect(badOrder.status).toBe(400);
    const badTier = await callRoute(postRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { tiers: ["999"] } });
    expect(badTier.status).toBe(400);
    expect(await readJsonBody(badTier)).toEqual({ error: "Unknown tier: 999" });
    const emptyTitle = await callRoute(postRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { title: "  " } });
    expect(await readJsonBody(emptyTitle)).toEqual({ error: "Title is required." });
  });

  it("toggles a post off and on: guests stop and start seeing it", async () => {
    const post = await createPost({ paid: false });
    const off = await callRoute(toggleRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { enabled: false } });
    expect((await readJsonBody<{ post: LibraryPost }>(off)).post.enabled).toBe(false);
    expect(byId(await listAs()).has(post.id)).toBe(false);
    await callRoute(toggleRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { enabled: true } });
    expect(byId(await listAs()).has(post.id)).toBe(true);
    expect(await db.auditEntry.count({ where: { targetId: post.id, action: { in: ["post.enable", "post.disable"] } } })).toBe(2);
  });

  it("PUT order sets the order date; Set Index moves a post between its neighbours", async () => {
    const post = await createPost();
    const response = await callRoute(orderRoute, {
      method: "PUT",
      params: { id: post.id },
      cookie: adminCookie,
      json: { orderDate: "2099-01-01T00:00:00.000Z" },
    });
    expect((await readJsonBody<{ post: LibraryPost }>(response)).post.order_date).toBe("2099-01-01T00:00:00.000Z");
    expect((await listAs(adminCookie))[0]?.postId).toBe(post.id);

    const before = (await listAs(adminCookie)).map((item) => item.postId);
    const moved = before[0]!;
    await movePostToIndex(admin, moved, 2);
    const after = await listAs(adminCookie);
    expect(after.map((item) => item.postId).indexOf(moved)).toBe(2);
    // Between its new neighbours (1 minute after the next one, or halfway when they are closer).
    expect(new Date(after[2]!.order_date).getTime()).toBeGreaterThan(new Date(after[3]!.order_date).getTime());
    expect(new Date(after[2]!.order_date).getTime()).toBeLessThan(new Date(after[1]!.order_date).getTime());
    const spaced = await createPost({ orderDate: new Date("2001-01-01T00:00:00Z") });
    await createPost({ orderDate: new Date("2000-01-01T00:00:00Z") });
    const last = await listAs(adminCookie);
    await movePostToIndex(admin, moved, last.length - 2);
    const final = await listAs(adminCookie);
    expect(final[final.length - 2]?.postId).toBe(moved);
    expect(new Date(final[final.length - 2]!.order_date).toISOString()).toBe("2000-01-01T00:01:00.000Z");
    expect(final[final.length - 3]?.postId).toBe(spaced.id);
  });

  it("creates and deletes posts", async () => {
    const created = await callRoute(postsRoute, { method: "POST", cookie: adminCookie, json: { postId: "777001", title: "Brand new", tiers: [TIER_1] } });
    expect(created.status).toBe(201);
    expect((await readJsonBody<{ post: LibraryPost }>(created)).post).toMatchObject({
      postId: "777001",
      title: "Brand new",
      version: "V1.0",
      tiers: [TIER_1],
      enabled: true,
    });
    const again = await callRoute(postsRoute, { method: "POST", cookie: adminCookie, json: { postId: "777001", title: "Again" } });
    expect(again.status).toBe(409);
    const deleted = await callRoute(postRoute, { method: "DELETE", params: { id: "777001" }, cookie: adminCookie });
    expect(deleted.status).toBe(200);
    expect(await db.post.findUnique({ where: { id: "777001" } })).toBeNull();
    expect(await db.auditEntry.count({ where: { targetId: "777001" } })).toBe(2);
  });
});

describe("POST /api/upload/front/{id}", () => {
  function imageForm(bytes: Buffer, name = "front.png", type = "image/png") {
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(bytes)], { type }), name);
    return form;
  }

  it("re-encodes a png to a resized JPEG served under /media", async () => {
    const post = await createPost();
    const png = await sharp({ create: { width: 2400, height: 1200, channels: 3, background: "#336699" } })
      .png()
      .toBuffer();
    const response = await callRoute(frontRoute, { method: "POST", params: { id: post.id }, cookie: adminCookie, form: imageForm(png) });
    expect(response.status).toBe(200);
    const { post: updated } = await readJsonBody<{ post: LibraryPost }>(response);
    expect(updated.imageUrl).toMatch(new RegExp(`^/media/posts/${post.id}\\.jpg\\?v=`));
    const stored = await (await storage()).read(`images/posts/${post.id}.jpg`);
    const chunks: Buffer[] = [];
    for await (const chunk of stored) chunks.push(chunk as Buffer);
    const meta = await sharp(Buffer.concat(chunks)).metadata();
    expect(meta).toMatchObject({ format: "jpeg", width: 1280 });
  });

  it("refuses files that are not images by content, whatever their name", async () => {
    const post = await createPost();
    const response = await callRoute(frontRoute, {
      method: "POST",
      params: { id: post.id },
      cookie: adminCookie,
      form: imageForm(Buffer.from("<svg>not really</svg>"), "evil.png"),
    });
    expect(response.status).toBe(400);
    expect(await readJsonBody(response)).toEqual({ error: "The file is not a valid image." });
  });

  it("refuses oversized images with 413 and unknown posts with 404", async () => {
    const post = await createPost();
    const big = Buffer.alloc(11 * 1024 * 1024, 1);
    const response = await callRoute(frontRoute, { method: "POST", params: { id: post.id }, cookie: adminCookie, form: imageForm(big) });
    expect(response.status).toBe(413);
    expect(await readJsonBody(response)).toEqual({ error: "The file is too large." });
    const unknown = await callRoute(frontRoute, { method: "POST", params: { id: "31337" }, cookie: adminCookie, form: imageForm(Buffer.alloc(10)) });
    expect(unknown.status).toBe(404);
  });
});

describe("POST /api/upload/file/{id}", () => {
  it("streams the file into storage and points the post at it", async () => {
    const post = await createPost({ fileSize: null });
    const bytes = Buffer.alloc(200 * 1024, 7);
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)]), "My Mod v2.zip");
    const response = await callRoute(fileRoute, { method: "POST", params: { id: post.id }, cookie: adminCookie, form });
    expect(response.status).toBe(200);
    expect((await readJsonBody<{ post: LibraryPost }>(response)).post).toMatchObject({
      drive_file_id: `posts/${post.id}/My-Mod-v2.zip`,
      fileSize: bytes.length,
      fileName: "My-Mod-v2.zip",
    });
    expect((await (await storage()).stat(`posts/${post.id}/My-Mod-v2.zip`))?.size).toBe(bytes.length);
  });

  it("refuses files over the limit with 413 and keeps nothing", async () => {
    const post = await createPost({ fileSize: null });
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(300 * 1024)]), "huge.zip");
    const response = await callRoute(fileRoute, { method: "POST", params: { id: post.id }, cookie: adminCookie, form });
    expect(response.status).toBe(413);
    expect(await readJsonBody(response)).toEqual({ error: "The file is too large." });
    expect(await (await storage()).stat(`posts/${post.id}/huge.zip`)).toBeNull();
    expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).driveFileId).toBeNull();
  });

  it("answers 400 when no file was sent", async () => {
    const post = await createPost({ fileSize: null });
    const response = await callRoute(fileRoute, { method: "POST", params: { id: post.id }, cookie: adminCookie, form: new FormData() });
    expect(response.status).toBe(400);
  });
});

describe("POST /api/library/accept-tos/{id}", () => {
  it("records acceptance for the user themself only", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const forOther = await callRoute(acceptTosRoute, { method: "POST", params: { id: other.id }, cookie, json: { tosAccepted: true } });
    expect(forOther.status).toBe(403);
    expect(await readJsonBody(forOther)).toEqual({ error: "Could not update TOS acceptance." });
    const guest = await callRoute(acceptTosRoute, { method: "POST", params: { id: user.id }, json: { tosAccepted: true } });
    expect(guest.status).toBe(401);
    const missing = await callRoute(acceptTosRoute, { method: "POST", params: { id: user.id }, cookie, json: {} });
    expect(missing.status).toBe(400);
    const ok = await callRoute(acceptTosRoute, { method: "POST", params: { id: user.id }, cookie, json: { tosAccepted: true } });
    expect(ok.status).toBe(200);
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).tosAccepted).toBe(true);
    expect((await db.user.findUniqueOrThrow({ where: { id: other.id } })).tosAccepted).toBe(false);
  });
});

describe("the listing stays exact while it is cached", () => {
  it("reflects grants, purchases, tier links and edits made after a first listing", async () => {
    const post = await createPost({ tiers: [TIER_3], kofiId: "LATE-ITEM" });
    const user = await createTestUser({ currentTierId: TIER_1 });
    const cookie = await sessionCookie(user.id);
    expect(byId(await listAs(cookie)).get(post.id)?.unlocked).toBe(false);

    await callRoute(postRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { tiers: [TIER_1] } });
    expect(byId(await listAs(cookie)).get(post.id)?.unlocked).toBe(true);
    await callRoute(postRoute, { method: "PUT", params: { id: post.id }, cookie: adminCookie, json: { tiers: [TIER_3] } });
    expect(byId(await listAs(cookie)).get(post.id)?.unlocked).toBe(false);

    await db.purchase.create({
      data: { email: "late@example.com", kofiItemCode: "LATE-ITEM", transactionId: "tx-late", source: "WEBHOOK", purchasedAt: new Date() },
    });
    await db.shopEmail.create({ data: { userId: user.id, email: "late@example.com", verifiedEmail: "late@example.com", verifiedAt: new Date() } });
    expect(byId(await listAs(cookie)).get(post.id)?.unlocked).toBe(true);

    await db.post.update({ where: { id: post.id }, data: { title: "Retitled later" } });
    expect(byId(await listAs(cookie)).get(post.id)?.title).toBe("Retitled later");
    await db.user.update({ where: { id: user.id }, data: { restricted: true } });
    expect(byId(await listAs(cookie)).get(post.id)?.unlocked).toBe(false);
  });

  it("answers the same posts as the page's loader uses", async () => {
    const user = await createTestUser({ currentTierId: TIER_2 });
    const { listLibraryPosts } = await import("~/models/library-listing.server");
    expect(await listAs(await sessionCookie(user.id))).toEqual(JSON.parse(JSON.stringify((await listLibraryPosts(user)).posts)));
    expect(await listAs(adminCookie)).toEqual(JSON.parse(JSON.stringify((await listLibraryPosts(admin)).posts)));
  });
});
