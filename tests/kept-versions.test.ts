// Keep what you downloaded (docs/product.md#keep-what-you-downloaded), with the creator's setting
// on: a member whose membership lapses keeps the exact versions they downloaded through it, and
// nothing newer; the card, Check access and the download endpoint say and do the same.
import { vi } from "vitest";

vi.hoisted(() => {
  process.env.KEEP_DOWNLOADED_VERSIONS = "true";
});

import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { storage } from "~/integrations/storage.server";
import { checkAccess } from "~/models/access.server";
import { recordDownload } from "~/models/download.server";
import * as paidRoute from "~/routes/api.download.$postId";
import * as libraryRoute from "~/routes/library";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, fileBytes, TIER_2 } from "./library-fixtures";

let member: User;
let post: Awaited<ReturnType<typeof createPost>>;
let v21 = "";
let v23 = "";

beforeAll(async () => {
  await createTiers();
  member = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  post = await createPost({ tiers: [TIER_2], title: "Kept Streetwear", version: "V2.3" });
  const store = await storage();
  await store.put(`posts/${post.id}/v21.package`, fileBytes(2048, 21));
  const old = await db.postVersion.create({
    data: {
      postId: post.id,
      label: "V2.1",
      storageKey: `posts/${post.id}/v21.package`,
      fileName: "v21.package",
      size: 2048n,
      createdAt: new Date(Date.now() - 10 * 86_400_000),
    },
  });
  const current = await db.postVersion.create({
    data: { postId: post.id, label: "V2.3", storageKey: post.driveFileId!, fileName: post.fileName!, size: post.fileSize!, createdAt: new Date() },
  });
  await db.post.update({ where: { id: post.id }, data: { currentVersionId: current.id } });
  v21 = old.id;
  v23 = current.id;
  // Downloaded V2.1 through the Tier 2 membership, then the pledge lapsed.
  await recordDownload(member.id, post.id, "V2.1", new Date(Date.now() - 9 * 86_400_000), "current-tier", v21);
  await db.user.update({ where: { id: member.id }, data: { currentTierId: null } });
});

describe("a lapsed member", () => {
  it("may download the version they downloaded through their membership, and not the newer one", async () => {
    const cookie = await sessionCookie(member.id);
    const kept = await callRoute(paidRoute, { path: `/api/download/${post.id}?version=${v21}`, params: { postId: post.id }, cookie });
    expect(kept.status).toBe(200);
    expect(Buffer.from(await kept.arrayBuffer()).equals(fileBytes(2048, 21))).toBe(true);
    const newer = await callRoute(paidRoute, { path: `/api/download/${post.id}?version=${v23}`, params: { postId: post.id }, cookie });
    expect(newer.status).toBe(403);
    const current = await callRoute(paidRoute, { path: `/api/download/${post.id}`, params: { postId: post.id }, cookie });
    expect(current.status).toBe(403);
    // Recorded as any download, with the membership it was first downloaded through.
    const rows = await db.download.findMany({ where: { userId: member.id, postId: post.id }, orderBy: { createdAt: "asc" } });
    expect(rows.map((row) => [row.version, row.accessSource])).toEqual([
      ["V2.1", "TIER"],
      ["V2.1", "TIER"],
    ]);
  });

  it("sees on the card what they keep and what the newer version needs, and Check access says it", async () => {
    const page = await callRoute(libraryRoute, { path: `/library?search=${encodeURIComponent("Kept Streetwear")}`, cookie: await sessionCookie(member.id) });
    const data = (await page.json()) as {
      posts: { postId: string; unlocked: boolean }[];
      kept: Record<string, { versionId: string; label: string; words: string }>;
    };
    expect(data.posts.find((item) => item.postId === post.id)?.unlocked).toBe(false);
    expect(data.kept[post.id]).toMatchObject({ versionId: v21, label: "V2.1" });
    expect(data.kept[post.id]!.words).toMatch(/^You keep V2\.1, downloaded on \d+ \w+ \d{4} through a membership; V2\.3 needs Tier 2$/);
    const check = await checkAccess(member.id, post.id);
    expect(check.verdict).toBe("Cannot download");
    expect(check.kept).toEqual([expect.stringMatching(/^Keeps V2\.1, downloaded on \d+ \w+ \d{4} through a membership$/)]);
  });

  it("keeps nothing downloaded without a membership (a free download, an admin's)", async () => {
    const other = await createTestUser({ tosAccepted: true });
    await recordDownload(other.id, post.id, "V2.1", new Date(), "admin", v21);
    const response = await callRoute(paidRoute, {
      path: `/api/download/${post.id}?version=${v21}`,
      params: { postId: post.id },
      cookie: await sessionCookie(other.id),
    });
    expect(response.status).toBe(403);
  });
});
