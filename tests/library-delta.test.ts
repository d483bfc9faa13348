// Delta updates (docs/api.md#delta-updates) through the route: with a token or a session, the
// delta from a version the account has to the current one, refused like any download to a fan
// without access, 404 for a version the post does not have, 409 for the current one; stamped,
// recorded as a download of the current version, and no bigger than the changed entries'
// compressed bytes plus 5%.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { storage } from "~/integrations/storage.server";
import { readZipDirectory } from "~/integrations/zip.server";
import { hashToken } from "~/models/session.server";
import * as deltaRoute from "~/routes/api.library.posts.$id.delta";
import { traceTag } from "~/utils/trace-stamp.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2, TIER_3 } from "./library-fixtures";
import { archiveComment, testArchive, type ZipFileSpec } from "./zip-files";
import { addZipVersion, noise } from "./zip-versions";

const work = mkdtempSync(path.join(tmpdir(), "library-delta-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const addVersion = addZipVersion;

const V1: ZipFileSpec[] = [
  { name: "Mods/kept.package", text: noise(1, 60_000) },
  { name: "Mods/changed.package", text: noise(2, 40_000) },
  { name: "Mods/gone.package", text: noise(3, 20_000) },
];
const V2: ZipFileSpec[] = [
  { name: "Mods/kept.package", text: noise(1, 60_000) },
  { name: "Mods/changed.package", text: noise(4, 45_000) },
  { name: "Mods/new.package", text: noise(5, 30_000) },
];

let member: User;
let fan: User;
let token: string;
let postId: string;
let current: Awaited<ReturnType<typeof addVersion>>;

function getDelta(from: string | null, credentials: { token?: string; cookie?: string }, headers: Record<string, string> = {}) {
  const query = from === null ? "" : `?from=${encodeURIComponent(from)}`;
  return callRoute(deltaRoute, {
    path: `/api/library/posts/${postId}/delta${query}`,
    params: { id: postId },
    cookie: credentials.cookie,
    headers: { ...headers, ...(credentials.token ? { Authorization: `Bearer ${credentials.token}` } : {}) },
  });
}

beforeAll(async () => {
  await createTiers();
  member = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  fan = await createTestUser({ currentTierId: null, tosAccepted: true });
  token = `delta-token-${Date.now()}`;
  await db.apiToken.create({ data: { userId: member.id, tokenHash: hashToken(token), label: "delta test" } });
  const post = await createPost({ tiers: [TIER_2], title: "Delta Cottage", version: "V1.0" });
  postId = post.id;
  await addVersion(postId, "V1.0", V1, false);
  current = await addVersion(postId, "V2.0", V2, true);
});

describe("GET /api/library/posts/{postId}/delta", () => {
  it("answers the changed entries and the removed list, stamped, within 5% of the changed entries' compressed bytes", async () => {
    const response = await getDelta("V1.0", { token });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/zip");
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get("Content-Length"))).toBe(bytes.length);
    const file = path.join(work, "delta.zip");
    writeFileSync(file, bytes);
    expect(() => testArchive(file)).not.toThrow();
    expect(archiveComment(file)).toBe(`Leak trace ${member.number}-${traceTag(member.number)}`);

    await (await storage()).put("deltas/answered.zip", bytes);
    const deltaEntries = await readZipDirectory(await storage(), "deltas/answered.zip");
    expect(deltaEntries.map((entry) => entry.path).sort()).toEqual([".delta/removed.txt", "Mods/changed.package", "Mods/new.package"]);
    const currentEntries = await readZipDirectory(await storage(), current.key);
    const changed = currentEntries.filter((entry) => entry.path !== "Mods/kept.package");
    const compressed = changed.reduce((sum, entry) => sum + entry.compressedSize, 0);
    expect(bytes.length).toBeLessThanOrEqual(compressed * 1.05);
    // Far smaller than the whole file: the unchanged entry is left out.
    expect(bytes.length).toBeLessThan(current.bytes.length * 0.75);
  });

  it("is recorded as a download of the current version once wholly sent (a session works too)", async () => {
    const reader = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(reader.id);
    const response = await getDelta("V1.0", { cookie });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const records = await db.download.findMany({ where: { userId: reader.id, postId } });
    expect(records.map((record) => [record.version, record.versionId])).toEqual([["V2.0", current.version.id]]);
  });

  it("serves byte ranges of the same bytes, for a resumed download", async () => {
    const whole = Buffer.from(await (await getDelta("V1.0", { token })).arrayBuffer());
    const tail = await getDelta("V1.0", { token }, { Range: `bytes=1000-` });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(1000))).toBe(true);
  });

  it("refuses a fan without access the way the download does, and records nothing", async () => {
    const response = await getDelta("V1.0", { cookie: await sessionCookie(fan.id) });
    expect(response.status).toBe(403);
    expect(await readJsonBody(response)).toEqual({ error: LIBRARY_MESSAGES.locked });
    expect(await db.download.count({ where: { userId: fan.id } })).toBe(0);
    const locked = await createPost({ tiers: [TIER_3] });
    const other = await callRoute(deltaRoute, {
      path: `/api/library/posts/${locked.id}/delta?from=V0.9`,
      params: { id: locked.id },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(other.status).toBe(403);
  });

  it("answers 401 without credentials, 404 for a version the post does not have, 409 for the current one, 400 without from", async () => {
    expect((await getDelta("V1.0", {})).status).toBe(401);
    const unknown = await getDelta("V0.5", { token });
    expect(unknown.status).toBe(404);
    expect(await readJsonBody(unknown)).toEqual({ error: LIBRARY_MESSAGES.deltaFromUnknown });
    const same = await getDelta("V2.0", { token });
    expect(same.status).toBe(409);
    expect(await readJsonBody(same)).toEqual({ error: LIBRARY_MESSAGES.deltaFromCurrent });
    const none = await getDelta(null, { token });
    expect(none.status).toBe(400);
    expect(await readJsonBody(none)).toEqual({ error: LIBRARY_MESSAGES.deltaFromMissing });
  });

  it("answers 422 when a version is not a ZIP", async () => {
    const post = await createPost({ tiers: [TIER_2], title: "Plain File", version: "V2.0" });
    await db.postVersion.create({ data: { postId: post.id, label: "V1.0", storageKey: post.driveFileId!, fileName: post.fileName!, size: post.fileSize! } });
    const response = await callRoute(deltaRoute, {
      path: `/api/library/posts/${post.id}/delta?from=V1.0`,
      params: { id: post.id },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(422);
    expect(await readJsonBody(response)).toEqual({ error: LIBRARY_MESSAGES.deltaNotPossible });
  });
});
