// What a post not shown to everyone reveals, through the routes as a browser calls them
// (docs/security-model.md#who-sees-a-post): a scheduled or disabled post's cover and version list
// answer 404 to guests and members; admins get the cover privately, never cached by a shared
// cache; the cover's address changes whenever the post's visibility does.
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import * as postsRoute from "~/routes/api.library.posts";
import * as publishRoute from "~/routes/api.library.posts.$id.publish";
import * as toggleRoute from "~/routes/api.library.posts.$id.toggle";
import * as frontRoute from "~/routes/api.upload.front.$id";
import * as fileRoute from "~/routes/api.upload.file.$id";
import * as versionsRoute from "~/routes/library.$postId.versions";
import * as mediaRoute from "~/routes/media.$";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createTiers, TIER_2 } from "./library-fixtures";

const DAY = 86_400_000;
const PUBLIC_IMMUTABLE = "public, max-age=31536000, immutable";
let adminCookie = "";
let memberCookie = "";

beforeAll(async () => {
  await createTiers();
  const admin: User = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  const member: User = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
  memberCookie = await sessionCookie(member.id);
});

/** A post made the way an admin makes one: created, a front and a file uploaded. */
async function postWithFrontAndFile(postId: string): Promise<void> {
  const created = await callRoute(postsRoute, { method: "POST", cookie: adminCookie, json: { postId, title: `Leak check ${postId}` } });
  expect(created.status).toBe(201);
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#884422" } })
    .png()
    .toBuffer();
  const front = new FormData();
  front.append("image", new Blob([new Uint8Array(png)], { type: "image/png" }), "front.png");
  expect((await callRoute(frontRoute, { method: "POST", params: { id: postId }, cookie: adminCookie, form: front })).status).toBe(200);
  const file = new FormData();
  file.append("file", new Blob([new Uint8Array(Buffer.alloc(4096, 9))]), "pack.package");
  expect((await callRoute(fileRoute, { method: "POST", params: { id: postId }, cookie: adminCookie, form: file })).status).toBe(200);
}

async function media(postId: string, cookie?: string, query = ""): Promise<Response> {
  return callRoute(mediaRoute, { path: `/media/posts/${postId}.jpg${query}`, params: { "*": `posts/${postId}.jpg` }, cookie });
}

async function versions(postId: string, cookie?: string): Promise<Response> {
  return callRoute(versionsRoute, { path: `/library/${postId}/versions`, params: { postId }, cookie });
}

async function listedImageUrl(postId: string, cookie: string): Promise<string | null | undefined> {
  const response = await callRoute(postsRoute, { path: "/api/library/posts", cookie });
  const { posts } = await readJsonBody<{ posts: { postId: string; imageUrl: string | null }[] }>(response);
  return posts.find((post) => post.postId === postId)?.imageUrl;
}

describe("a scheduled post", () => {
  it("serves its cover and versions to no one but admins, and the admin's cover privately", async () => {
    await postWithFrontAndFile("leak-scheduled");
    const scheduled = await callRoute(publishRoute, {
      method: "PUT",
      params: { id: "leak-scheduled" },
      cookie: adminCookie,
      json: { publish_at: new Date(Date.now() + 7 * DAY).toISOString() },
    });
    expect(scheduled.status).toBe(200);
    expect((await db.postVersion.count({ where: { postId: "leak-scheduled", contentHash: { not: null } } })) > 0).toBe(true);

    for (const cookie of [undefined, memberCookie]) {
      const cover = await media("leak-scheduled", cookie);
      expect(cover.status).toBe(404);
      expect(cover.headers.get("Cache-Control")).toBe("no-store");
      expect((await media("leak-scheduled", cookie, "?w=320")).status).toBe(404);
      const list = await versions("leak-scheduled", cookie);
      expect(list.status).toBe(404);
      expect(await list.text()).not.toMatch(/sha256|V1\.0/i);
    }
    const adminCover = await media("leak-scheduled", adminCookie);
    expect(adminCover.status).toBe(200);
    expect(adminCover.headers.get("Cache-Control")).toBe("private, no-store");
    expect((await versions("leak-scheduled", adminCookie)).status).toBe(200);

    // Its time comes (no write to the row but the time itself): the cover is public, under
    // another address than the one admins were served privately.
    const before = await listedImageUrl("leak-scheduled", adminCookie);
    await db.$executeRaw`UPDATE posts SET publish_at = now() - interval '1 minute' WHERE id = 'leak-scheduled'`;
    const guestCover = await media("leak-scheduled");
    expect(guestCover.status).toBe(200);
    expect(guestCover.headers.get("Cache-Control")).toBe(PUBLIC_IMMUTABLE);
    expect((await versions("leak-scheduled")).status).toBe(200);
    const after = await listedImageUrl("leak-scheduled", memberCookie);
    expect(after).toMatch(/^\/media\/posts\/leak-scheduled\.jpg\?v=/);
    expect(after).not.toBe(before);
  });
});

describe("a disabled post", () => {
  it("hides its cover from guests and members, serves it privately to admins, under a new address", async () => {
    await postWithFrontAndFile("leak-disabled");
    const publicUrl = await listedImageUrl("leak-disabled", memberCookie);
    expect((await media("leak-disabled")).headers.get("Cache-Control")).toBe(PUBLIC_IMMUTABLE);

    const toggled = await callRoute(toggleRoute, { method: "PUT", params: { id: "leak-disabled" }, cookie: adminCookie, json: { enabled: false } });
    expect(toggled.status).toBe(200);
    for (const cookie of [undefined, memberCookie]) {
      expect((await media("leak-disabled", cookie)).status).toBe(404);
      expect((await versions("leak-disabled", cookie)).status).toBe(404);
      expect(await listedImageUrl("leak-disabled", cookie ?? "")).toBeUndefined();
    }
    const adminCover = await media("leak-disabled", adminCookie);
    expect(adminCover.status).toBe(200);
    expect(adminCover.headers.get("Cache-Control")).toBe("private, no-store");
    const privateUrl = await listedImageUrl("leak-disabled", adminCookie);
    expect(privateUrl).toMatch(/^\/media\/posts\/leak-disabled\.jpg\?v=/);
    expect(privateUrl).not.toBe(publicUrl);

    // Enabled again: public once more, and again under an address of its own.
    await callRoute(toggleRoute, { method: "PUT", params: { id: "leak-disabled" }, cookie: adminCookie, json: { enabled: true } });
    expect((await media("leak-disabled")).headers.get("Cache-Control")).toBe(PUBLIC_IMMUTABLE);
    const again = await listedImageUrl("leak-disabled", memberCookie);
    expect(again).not.toBe(privateUrl);
    expect(again).not.toBe(publicUrl);
  });
});
