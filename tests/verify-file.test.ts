// "Verify a file": the versions resource route (what the browser compares
// with), and the answer for a stamped paid download hashed the way the browser does it
// (hash-wasm through the content-hash feed, in slices).
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSHA256 } from "hash-wasm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { LocalStorage, setStorageForTests, storage } from "~/integrations/storage.server";
import * as paidRoute from "~/routes/api.download.$postId";
import * as versionsRoute from "~/routes/library.$postId.versions";
import { contentHashFeed } from "~/utils/content-hash";
import { verdictFor, verdictText, type KnownVersion } from "~/utils/verify-file";
import { appDatabaseSettled, callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { writeZip } from "./zip-files";

const folder = mkdtempSync(path.join(os.tmpdir(), "clib-verify-"));

beforeAll(async () => {
  await createTiers();
  setStorageForTests(new LocalStorage(path.join(folder, "store")));
});

afterAll(async () => {
  await appDatabaseSettled();
  setStorageForTests(undefined);
  rmSync(folder, { recursive: true, force: true });
});

/** The content hash as the browser computes it: hash-wasm fed slice by slice. */
async function browserContentHash(bytes: Uint8Array, slice = 4 * 1024 * 1024): Promise<string> {
  const hasher = await createSHA256();
  hasher.init();
  const feed = contentHashFeed((part) => hasher.update(part));
  for (let at = 0; at < bytes.length; at += slice) feed.push(bytes.slice(at, at + slice));
  feed.finish();
  return hasher.digest("hex");
}

function zipOf(name: string, text: string): Buffer {
  const file = path.join(folder, name);
  writeZip(
    file,
    [
      { name: "mod/readme.txt", text },
      { name: "mod/mesh.obj", text: `v ${text}\n`, repeat: 2000 },
    ],
    { deflate: true, comment: "creator" },
  );
  return readFileSync(file);
}

/** A paid post with two versions (V1.0 older, V2.1 current, both with files) plus a hidden one and one not yet hashed. */
async function versionedPost(options: { enabled?: boolean } = {}) {
  const post = await createPost({ tiers: [TIER_2], fileSize: null, enabled: options.enabled ?? true, version: "V2.1" });
  const v1 = zipOf(`v1-${post.id}.zip`, "one");
  const v2 = zipOf(`v2-${post.id}.zip`, "two");
  const hidden = zipOf(`hidden-${post.id}.zip`, "hidden");
  const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
  const row = async (label: string, bytes: Buffer, minutesAgo: number, extra: { hidden?: boolean; hashed?: boolean } = {}) => {
    const key = `posts/${post.id}/${label}.zip`;
    await (await storage()).put(key, bytes);
    return db.postVersion.create({
      data: {
        postId: post.id,
        label,
        storageKey: key,
        fileName: `${label}.zip`,
        size: BigInt(bytes.length),
        sha256: extra.hashed === false ? null : sha(bytes),
        contentHash: extra.hashed === false ? null : await browserContentHash(bytes),
        hidden: extra.hidden ?? false,
        createdAt: new Date(Date.now() - minutesAgo * 60_000),
      },
    });
  };
  const old = await row("V1.0", v1, 60);
  await row("V1.5", hidden, 30, { hidden: true });
  await row("V1.9", zipOf(`nohash-${post.id}.zip`, "no hash"), 20, { hashed: false });
  const current = await row("V2.1", v2, 10);
  await db.post.update({
    where: { id: post.id },
    data: { currentVersionId: current.id, driveFileId: current.storageKey, fileName: current.fileName, fileSize: current.size },
  });
  return { post, old, current, v1, v2, hidden };
}

describe("GET /library/{postId}/versions", () => {
  it("lists the visible, hashed versions newest first, marking the current one", async () => {
    const { post, old, current } = await versionedPost();
    const response = await callRoute(versionsRoute, { params: { postId: post.id } });
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("private, no-cache");
    const { versions } = await readJsonBody<{ versions: KnownVersion[] }>(response);
    expect(versions.map((version) => [version.label, version.current])).toEqual([
      ["V2.1", true],
      ["V1.0", false],
    ]);
    expect(versions[0]).toEqual({ id: current.id, label: "V2.1", contentHash: current.contentHash, sha256: current.sha256, current: true });
    expect(versions[1]!.id).toBe(old.id);
  });

  it("follows the library's visibility: a disabled post is 404 except for admins; unknown ids are 404", async () => {
    const { post } = await versionedPost({ enabled: false });
    const supporter = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    for (const cookie of [undefined, await sessionCookie(supporter.id)]) {
      const hidden = await callRoute(versionsRoute, { params: { postId: post.id }, cookie });
      expect(hidden.status).toBe(404);
      expect(await readJsonBody(hidden)).toEqual({ error: "Post not found." });
    }
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const seen = await callRoute(versionsRoute, { params: { postId: post.id }, cookie: await sessionCookie(admin.id) });
    expect((await readJsonBody<{ versions: unknown[] }>(seen)).versions).toHaveLength(2);
    for (const postId of ["no-such-post", "../x"]) expect((await callRoute(versionsRoute, { params: { postId } })).status).toBe(404);
  });
});

describe("the verdict on a picked file", () => {
  it("a stamped paid download is Genuine V2.1; the older file is V1.0; a changed file or a hidden version matches nothing", async () => {
    const { post, v1, hidden } = await versionedPost();
    const supporter = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const download = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(supporter.id) });
    const stamped = new Uint8Array(await download.arrayBuffer());
    expect(Buffer.from(stamped.subarray(-60)).toString("latin1")).toContain(`Leak trace ${supporter.number}-`);
    const { versions } = await readJsonBody<{ versions: KnownVersion[] }>(await callRoute(versionsRoute, { params: { postId: post.id } }));

    // Small slices as well as the browser's 4 MiB ones: the answer does not depend on them.
    for (const slice of [4 * 1024 * 1024, 1000]) {
      expect(verdictText(verdictFor(await browserContentHash(stamped, slice), versions))).toBe("Genuine V2.1");
    }
    expect(verdictText(verdictFor(await browserContentHash(v1), versions))).toBe("This is V1.0, an older version");
    const changed = stamped.slice();
    changed[100] = changed[100]! ^ 0xff;
    expect(verdictText(verdictFor(await browserContentHash(changed), versions))).toBe("Does not match any version");
    expect(verdictText(verdictFor(await browserContentHash(hidden), versions))).toBe("Does not match any version");
    await appDatabaseSettled();
  });

  it("the same file uploaded as an old and as the current version reads as current", () => {
    const versions: KnownVersion[] = [
      { id: "a", label: "V1.0", contentHash: "AB12", sha256: null, current: false },
      { id: "b", label: "V1.1", contentHash: "ab12", sha256: null, current: true },
    ];
    expect(verdictText(verdictFor("ab12", versions))).toBe("Genuine V1.1");
    expect(verdictFor("ffff", versions)).toEqual({ kind: "none" });
  });
});
