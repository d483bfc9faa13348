// Delta updates (docs/api.md#delta-updates) through the route: with a token or a session, the
// delta from a version the account has to the current one, refused like any download to a fan
// without access, 404 for a version the post does not have, 409 for the current one; stamped,
// recorded as a download of the current version, and no bigger than the changed entries'
// compressed bytes plus 5%. Per file (`&file=`): a variant's delta from the same-label variant of
// the older version, under the file's own gate (an add-on for Tier 3 refused to Tier 1 as its
// download is), 404 when the older version has no such file.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { storage } from "~/integrations/storage.server";
import { readZipDirectory, readZipEntry } from "~/integrations/zip.server";
import { hashToken } from "~/models/session.server";
import * as paidRoute from "~/routes/api.download.$postId";
import * as deltaRoute from "~/routes/api.library.posts.$id.delta";
import { traceTag } from "~/utils/trace-stamp.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { VERSION_FILE_MESSAGES } from "~/utils/version-file-words";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";
import { archiveComment, testArchive, type ZipFileSpec } from "./zip-files";
import { addVersionFileVia, addZipVersion, noise, zipBytes } from "./zip-versions";

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

describe("GET /api/library/posts/{postId}/delta?file= (an added file: a variant, an add-on)", () => {
  const ALPHA_V1: ZipFileSpec[] = [
    { name: "Alpha/hair.package", text: noise(11, 30_000) },
    { name: "Alpha/old.package", text: noise(12, 10_000) },
  ];
  const ALPHA_V2: ZipFileSpec[] = [
    { name: "Alpha/hair.package", text: noise(11, 30_000) },
    { name: "Alpha/fringe.package", text: noise(13, 12_000) },
  ];
  const HATS_V1: ZipFileSpec[] = [{ name: "Hats/cap.package", text: noise(21, 8_000) }];
  const HATS_V2: ZipFileSpec[] = [
    { name: "Hats/cap.package", text: noise(21, 8_000) },
    { name: "Hats/beret.package", text: noise(22, 9_000) },
  ];
  let filePostId: string;
  let v1: Awaited<ReturnType<typeof addVersion>>;
  let v2: Awaited<ReturnType<typeof addVersion>>;
  const ids = { alphaV1: "", alphaV2: "", hatsV2: "", maxisV2: "" };
  let tier1: User;
  let tier1Token: string;
  let tier3: User;

  /** Adds a file to a version through the admin API, as the editor does: its ZIP entries are read on upload. */
  function addFile(versionId: string, fields: Record<string, string>, files: ZipFileSpec[]): Promise<string> {
    return addVersionFileVia(adminCookie, filePostId, versionId, fields, zipBytes(files), `${fields.label || "file"}.zip`);
  }

  function fileDelta(from: string, fileId: string, credentials: { token?: string; cookie?: string }) {
    return callRoute(deltaRoute, {
      path: `/api/library/posts/${filePostId}/delta?from=${encodeURIComponent(from)}&file=${fileId}`,
      params: { id: filePostId },
      cookie: credentials.cookie,
      headers: credentials.token ? { Authorization: `Bearer ${credentials.token}` } : {},
    });
  }

  let adminCookie: string;
  beforeAll(async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
    adminCookie = await sessionCookie(admin.id);
    tier1 = await createTestUser({ currentTierId: TIER_1, tosAccepted: true });
    tier3 = await createTestUser({ currentTierId: TIER_3, tosAccepted: true });
    tier1Token = `delta-file-token-${Date.now()}`;
    await db.apiToken.create({ data: { userId: tier1.id, tokenHash: hashToken(tier1Token), label: "delta file test" } });
    const post = await createPost({ tiers: [TIER_1, TIER_2, TIER_3], title: "Delta Hair", version: "V1.0" });
    filePostId = post.id;
    v1 = await addVersion(filePostId, "V1.0", V1, false);
    v2 = await addVersion(filePostId, "V2.0", V2, true);
    ids.alphaV1 = await addFile(v1.version.id, { role: "variant", label: "Alpha" }, ALPHA_V1);
    await addFile(v1.version.id, { role: "optional", label: "Hats", gateTierIds: TIER_3 }, HATS_V1);
    ids.maxisV2 = await addFile(v2.version.id, { role: "variant", label: "Maxis Match" }, ALPHA_V2);
    ids.alphaV2 = await addFile(v2.version.id, { role: "variant", label: "Alpha" }, ALPHA_V2);
    ids.hatsV2 = await addFile(v2.version.id, { role: "optional", label: "Hats", gateTierIds: TIER_3 }, HATS_V2);
  });

  it("keeps each added file's ZIP entries (names, sizes, CRC-32s) as an upload of the main file does", async () => {
    const alpha = await db.versionFile.findUniqueOrThrow({ where: { id: ids.alphaV2 } });
    const entries = alpha.zipEntries as { path: string; size: number; crc32: number }[];
    expect(entries.map((entry) => [entry.path, entry.size])).toEqual([
      ["Alpha/hair.package", 30_000],
      ["Alpha/fringe.package", 12_000],
    ]);
    expect(entries.every((entry) => Number.isInteger(entry.crc32))).toBe(true);
  });

  it("answers the variant's delta from the same-label variant of the older version, stamped and recorded as that file's download", async () => {
    const response = await fileDelta("V1.0", ids.alphaV2, { token: tier1Token });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Disposition")).toContain("update-from-v1.0");
    const bytes = Buffer.from(await response.arrayBuffer());
    const file = path.join(work, "variant-delta.zip");
    writeFileSync(file, bytes);
    expect(() => testArchive(file)).not.toThrow();
    expect(archiveComment(file)).toBe(`Leak trace ${tier1.number}-${traceTag(tier1.number)}`);
    await (await storage()).put("deltas/variant.zip", bytes);
    const entries = await readZipDirectory(await storage(), "deltas/variant.zip");
    // Only the variant's own change: its new entry, and its removed one listed.
    expect(entries.map((entry) => entry.path).sort()).toEqual([".delta/removed.txt", "Alpha/fringe.package"]);
    expect((await readZipEntry(await storage(), "deltas/variant.zip", ".delta/removed.txt", 1000))?.toString("utf8")).toBe("Alpha/old.package\n");
    const records = await db.download.findMany({ where: { userId: tier1.id, postId: filePostId } });
    expect(records.map((record) => [record.version, record.versionId, record.fileId])).toEqual([["V2.0", v2.version.id, ids.alphaV2]]);
  });

  it("without file, still answers the main file's delta", async () => {
    const response = await callRoute(deltaRoute, {
      path: `/api/library/posts/${filePostId}/delta?from=V1.0`,
      params: { id: filePostId },
      headers: { Authorization: `Bearer ${tier1Token}` },
    });
    expect(response.status).toBe(200);
    await (await storage()).put("deltas/main.zip", Buffer.from(await response.arrayBuffer()));
    const entries = await readZipDirectory(await storage(), "deltas/main.zip");
    expect(entries.map((entry) => entry.path).sort()).toEqual([".delta/removed.txt", "Mods/changed.package", "Mods/new.package"]);
  });

  it("refuses an add-on gated to Tier 3 to a Tier 1 supporter with the file download's 403, and serves it to Tier 3", async () => {
    const cookie = await sessionCookie(tier1.id);
    const refused = await fileDelta("V1.0", ids.hatsV2, { cookie });
    const download = await callRoute(paidRoute, { path: `/api/download/${filePostId}?file=${ids.hatsV2}`, params: { postId: filePostId }, cookie });
    expect(download.status).toBe(403);
    expect(refused.status).toBe(download.status);
    const body = await readJsonBody(refused);
    expect(body).toEqual(await readJsonBody(download));
    expect(body).toEqual({ error: LIBRARY_MESSAGES.locked });
    expect(await db.download.count({ where: { userId: tier1.id, fileId: ids.hatsV2 } })).toBe(0);

    const served = await fileDelta("V1.0", ids.hatsV2, { cookie: await sessionCookie(tier3.id) });
    expect(served.status).toBe(200);
    await (await storage()).put("deltas/hats.zip", Buffer.from(await served.arrayBuffer()));
    const entries = await readZipDirectory(await storage(), "deltas/hats.zip");
    expect(entries.map((entry) => entry.path).sort()).toEqual([".delta/removed.txt", "Hats/beret.package"]);
  });

  it("answers 404 when the older version has no file of that role and label, or the file is not of the current version", async () => {
    const missing = await fileDelta("V1.0", ids.maxisV2, { token: tier1Token });
    expect(missing.status).toBe(404);
    expect(await readJsonBody(missing)).toEqual({ error: LIBRARY_MESSAGES.deltaFromNoFile });
    const older = await fileDelta("V1.0", ids.alphaV1, { token: tier1Token });
    expect(older.status).toBe(404);
    expect(await readJsonBody(older)).toEqual({ error: VERSION_FILE_MESSAGES.fileNotFound });
    const unknown = await fileDelta("V1.0", "no-such-file", { token: tier1Token });
    expect(unknown.status).toBe(404);
  });
});
