// A download counts once the whole file has been sent to the account (docs/security-model.md#
// what-counts-as-a-download), with the creator's "keep what you downloaded" on: asking for the
// last byte alone records nothing, so a member cannot collect versions to keep without fetching
// them; parts sent in any order, or a download resumed, count once they cover the file.
import { vi } from "vitest";

vi.hoisted(() => {
  process.env.KEEP_DOWNLOADED_VERSIONS = "true";
});

import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import * as paidRoute from "~/routes/api.download.$postId";
import { appDatabaseSettled, callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";

let post: Awaited<ReturnType<typeof createPost>>;
let versionId = "";

beforeAll(async () => {
  await createTiers();
  post = await createPost({ tiers: [TIER_2], title: "Counted Pack", version: "V1.0", fileSize: 50_000 });
  const version = await db.postVersion.create({
    data: { postId: post.id, label: "V1.0", storageKey: post.driveFileId!, fileName: post.fileName!, size: post.fileSize!, createdAt: new Date() },
  });
  await db.post.update({ where: { id: post.id }, data: { currentVersionId: version.id } });
  versionId = version.id;
});

async function fetchRange(cookie: string, range?: string): Promise<Response> {
  const response = await callRoute(paidRoute, {
    path: `/api/download/${post.id}?version=${versionId}`,
    params: { postId: post.id },
    cookie,
    headers: range ? { Range: range } : {},
  });
  await response.arrayBuffer();
  await appDatabaseSettled();
  return response;
}

async function member(): Promise<{ user: User; cookie: string }> {
  const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  return { user, cookie: await sessionCookie(user.id) };
}

async function lapse(user: User): Promise<void> {
  await db.user.update({ where: { id: user.id }, data: { currentTierId: null } });
}

describe("keep what you downloaded", () => {
  it("keeps nothing for a member who was sent only the last byte", async () => {
    const { user, cookie } = await member();
    for (let request = 0; request < 3; request++) expect((await fetchRange(cookie, "bytes=-1")).status).toBe(206);
    expect(await db.download.count({ where: { userId: user.id } })).toBe(0);
    await lapse(user);
    expect((await fetchRange(cookie)).status).toBe(403);
  });

  it("keeps the version once its parts were all sent, in any order", async () => {
    const { user, cookie } = await member();
    await fetchRange(cookie, "bytes=30000-");
    await fetchRange(cookie, "bytes=0-9999");
    expect(await db.download.count({ where: { userId: user.id } })).toBe(0);
    // Overlapping the parts sent before; the gap 10000-29999 is the last one missing.
    await fetchRange(cookie, "bytes=5000-30000");
    expect(await db.download.findMany({ where: { userId: user.id }, select: { version: true, versionId: true } })).toEqual([{ version: "V1.0", versionId }]);
    await lapse(user);
    expect((await fetchRange(cookie)).status).toBe(200);
  });

  it("keeps nothing for a member whose client went away before the last byte, and keeps it once that byte is asked for", async () => {
    const { user, cookie } = await member();
    const size = Number(post.fileSize);
    // A client that reads all but the last byte, then goes away.
    const response = await callRoute(paidRoute, { path: `/api/download/${post.id}?version=${versionId}`, params: { postId: post.id }, cookie });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let received = 0;
    while (received < size - 1) received += (await reader.read()).value!.length;
    expect(received).toBe(size - 1);
    await reader.cancel();
    await appDatabaseSettled();
    expect(await db.download.count({ where: { userId: user.id } })).toBe(0);

    // The whole file: the record is written before the last byte reaches the client.
    const whole = await callRoute(paidRoute, { path: `/api/download/${post.id}?version=${versionId}`, params: { postId: post.id }, cookie });
    const wholeReader = whole.body!.getReader();
    received = 0;
    while (received < size - 1) received += (await wholeReader.read()).value!.length;
    expect(await db.download.count({ where: { userId: user.id } })).toBe(0);
    const last = await wholeReader.read();
    expect(last.value!.length).toBe(1);
    expect(await db.download.count({ where: { userId: user.id } })).toBe(1);
    expect((await wholeReader.read()).done).toBe(true);
  });

  it("counts bytes sent to this account only: another account's parts do not add up", async () => {
    const first = await member();
    const second = await member();
    await fetchRange(first.cookie, "bytes=0-24999");
    await fetchRange(second.cookie, "bytes=25000-");
    expect(await db.download.count({ where: { userId: { in: [first.user.id, second.user.id] } } })).toBe(0);
  });
});
