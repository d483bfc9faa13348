// Post versions through the route modules, on the real database and storage: uploads
// make versions hashed while they stream, ZIPs have their entries read and a broken one is refused
// leaving nothing behind, the changelog between two real ZIPs is exact, admins hide and make
// versions current (non-admins cannot), downloads serve and record a chosen version, and the
// versions job hashes migrated files once.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { LocalStorage, setStorageForTests } from "~/integrations/storage.server";
import { backfillAllVersionHashes, resetBackfillSkips } from "~/models/post-version-backfill.server";
import { versionHistories } from "~/models/post-version-history.server";
import { addPostVersion, makeVersionCurrent, setVersionHidden, storePostVersionFile } from "~/models/post-version.server";
import { DomainError } from "~/models/errors";
import * as paidRoute from "~/routes/api.download.$postId";
import * as freeRoute from "~/routes/api.download.freedownload.$postId";
import * as signedRoute from "~/routes/download.$postId";
import * as fileRoute from "~/routes/api.upload.file.$id";
import * as libraryRoute from "~/routes/library";
import * as postRoute from "~/routes/api.library.posts.$id";
import { getToast } from "~/toast.server";
import { VERSION_MESSAGES } from "~/utils/version-schemas";
import { renderVersionNotes } from "~/utils/version-notes.server";
import { appDatabaseSettled, callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { writeZip, type ZipFileSpec } from "./zip-files";

globalThis.__allowConsoleError = false;

const folder = mkdtempSync(path.join(os.tmpdir(), "clib-versions-"));
const root = path.join(folder, "store");
const store = new LocalStorage(root);

let admin: Awaited<ReturnType<typeof createTestUser>>;
let adminCookie: string;

beforeAll(async () => {
  setStorageForTests(store);
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
});

afterAll(() => {
  setStorageForTests(undefined);
  rmSync(folder, { recursive: true, force: true });
});

function zipBytes(name: string, files: ZipFileSpec[]): Buffer {
  const file = path.join(folder, name);
  writeZip(file, files, { deflate: true });
  return readFileSync(file);
}

/** What the central directory must list for these files. */
function expectedEntries(files: ZipFileSpec[]) {
  return files.map((file) => {
    const data = Buffer.from((file.text ?? "").repeat(file.repeat ?? 1));
    return { path: file.name, size: data.length, crc32: crc32(data) };
  });
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Every file stored under the post's folder (the local backend's files, temporary ones included). */
function storedFiles(postId: string): string[] {
  const dir = path.join(root, "posts", postId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

function uploadForm(bytes: Buffer, fileName: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(bytes)]), fileName);
  return form;
}

function apiUpload(postId: string, form: FormData, cookie = adminCookie) {
  return callRoute(fileRoute, { method: "POST", params: { id: postId }, cookie, form });
}

async function toastOf(response: Response) {
  const cookie = (response.headers.get("Set-Cookie") ?? "").split(";")[0]!;
  const { toast } = await getToast(new Request("http://localhost:3999/library", { headers: { Cookie: cookie } }));
  return toast;
}

const V1: ZipFileSpec[] = [
  { name: "mod/readme.txt", text: "Version one\n" },
  { name: "mod/mesh.obj", text: "v 0 0 0\n", repeat: 500 },
  { name: "mod/old-texture.png", text: "PNG", repeat: 10 },
  { name: "mod/same-size.txt", text: "aaaa" },
];
const V2: ZipFileSpec[] = [
  { name: "mod/readme.txt", text: "Version two, longer\n" },
  { name: "mod/mesh.obj", text: "v 0 0 0\n", repeat: 500 },
  { name: "mod/new-texture.png", text: "PNG2", repeat: 10 },
  // Same size, other bytes: only the CRC-32 tells.
  { name: "mod/same-size.txt", text: "bbbb" },
  { name: "extras/bonus.txt", text: "bonus" },
];

describe("uploading a post file makes a version", () => {
  it("hashes the bytes while they stream and reads the ZIP's entries, with the label and notes sent before the file", async () => {
    const post = await createPost({ fileSize: null, version: "V0.9" });
    const bytes = zipBytes("v1.zip", V1);
    const response = await apiUpload(post.id, uploadForm(bytes, "Mod Pack.zip", { label: "V1.0", notes: "First *release*" }));
    expect(response.status).toBe(200);
    const answer = await readJsonBody<{ message: string; post: { version: string; drive_file_id: string }; version: { id: string; sha256: string } }>(response);
    expect(answer.message).toBe("File uploaded.");
    expect(answer.post.version).toBe("V1.0");

    const version = await db.postVersion.findUniqueOrThrow({ where: { id: answer.version.id } });
    expect(version.sha256).toBe(sha256(bytes));
    expect(version.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(version.size).toBe(BigInt(bytes.length));
    expect(version.label).toBe("V1.0");
    expect(version.notes).toBe("First *release*");
    expect(version.zipEntries).toEqual(expectedEntries(V1));
    expect(version.storageKey).toBe(`posts/${post.id}/Mod-Pack.zip`);
    expect(readFileSync(path.join(root, version.storageKey)).equals(bytes)).toBe(true);

    const after = await db.post.findUniqueOrThrow({ where: { id: post.id } });
    expect(after).toMatchObject({
      version: "V1.0",
      driveFileId: version.storageKey,
      fileName: "Mod-Pack.zip",
      fileSize: BigInt(bytes.length),
      currentVersionId: version.id,
    });
    expect(after.lastUpdated!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: post.id, action: "post.file" } });
    expect(audit.after).toMatchObject({ versionId: version.id, version: "V1.0", sha256: version.sha256 });
  });

  it("keeps the documented API: without a label the post keeps its version; a file that is no ZIP shows size and hash only", async () => {
    const post = await createPost({ fileSize: null, version: "V3.2" });
    const bytes = Buffer.from("not an archive, just bytes ".repeat(1000));
    const response = await apiUpload(post.id, uploadForm(bytes, "textures.package"));
    expect(response.status).toBe(200);
    const version = await db.postVersion.findFirstOrThrow({ where: { postId: post.id } });
    expect(version).toMatchObject({ label: "V3.2", notes: "", sha256: sha256(bytes), zipEntries: null });
    expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).version).toBe("V3.2");
  });

  it("refuses a truncated ZIP with a clear message, leaving no stored object and no rows", async () => {
    const post = await createPost({ fileSize: null, version: "V1.0" });
    const whole = zipBytes("cut.zip", V1);
    const cut = whole.subarray(0, whole.length - 40);
    const auditsBefore = await db.auditEntry.count();
    const response = await apiUpload(post.id, uploadForm(cut, "broken.zip", { label: "V2.0" }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: VERSION_MESSAGES.unreadableZip });
    expect(storedFiles(post.id)).toEqual([]);
    expect(await db.postVersion.count({ where: { postId: post.id } })).toBe(0);
    expect(await db.post.findUniqueOrThrow({ where: { id: post.id } })).toMatchObject({ driveFileId: null, version: "V1.0", currentVersionId: null });
    expect(await db.auditEntry.count()).toBe(auditsBefore);

    // The page's own upload (no JavaScript) gives the same words as a toast.
    const page = await callRoute(libraryRoute, {
      method: "POST",
      path: `/library?intent=upload-file&postId=${post.id}&back=%2Flibrary`,
      form: uploadForm(cut, "broken.zip"),
      cookie: adminCookie,
    });
    expect(await toastOf(page)).toMatchObject({ type: "error", message: VERSION_MESSAGES.unreadableZip });
    expect(storedFiles(post.id)).toEqual([]);
  });

  it("a second upload with the same file name keeps the first version's bytes, and the changelog is exact", async () => {
    const post = await createPost({ fileSize: null });
    const one = zipBytes("one.zip", V1);
    const two = zipBytes("two.zip", V2);
    expect((await apiUpload(post.id, uploadForm(one, "mod.zip", { label: "V1.0" }))).status).toBe(200);
    // The card's form without JavaScript: label and notes first, then the file.
    const page = await callRoute(libraryRoute, {
      method: "POST",
      path: `/library?intent=upload-file&postId=${post.id}&back=%2Flibrary`,
      form: uploadForm(two, "mod.zip", { label: "V2.0", notes: "New texture <b>bold</b>" }),
      cookie: adminCookie,
    });
    expect(await toastOf(page)).toMatchObject({ type: "success", message: "File uploaded." });
    const versions = await db.postVersion.findMany({ where: { postId: post.id }, orderBy: { createdAt: "asc" } });
    expect(versions.map((version) => version.label)).toEqual(["V1.0", "V2.0"]);
    expect(versions[0]!.storageKey).not.toBe(versions[1]!.storageKey);
    expect(readFileSync(path.join(root, versions[0]!.storageKey)).equals(one)).toBe(true);
    expect(readFileSync(path.join(root, versions[1]!.storageKey)).equals(two)).toBe(true);

    const history = (await versionHistories([post.id], { admin: true }))[post.id]!;
    expect(history.map((version) => version.label)).toEqual(["V2.0", "V1.0"]);
    expect(history[1]!.changelog).toBeNull();
    const entry = (files: ZipFileSpec[], name: string) => expectedEntries(files).find((item) => item.path === name)!;
    expect(history[0]!.changelog).toEqual({
      added: [entry(V2, "extras/bonus.txt"), entry(V2, "mod/new-texture.png")],
      removed: [entry(V1, "mod/old-texture.png")],
      changed: [
        { path: "mod/readme.txt", before: entry(V1, "mod/readme.txt"), after: entry(V2, "mod/readme.txt") },
        { path: "mod/same-size.txt", before: entry(V1, "mod/same-size.txt"), after: entry(V2, "mod/same-size.txt") },
      ],
    });
    // Notes are Markdown; raw HTML in them is shown as text.
    expect(history[0]!.notesHtml).toContain("&lt;b&gt;bold&lt;/b&gt;");
    expect(history[0]!.notesHtml).not.toContain("<b>");
  });
});

describe("notes", () => {
  it("render Markdown without letting raw HTML or script links through", () => {
    const html = renderVersionNotes(
      "**Fixed** the <script>alert(1)</script> [site](https://example.com) [bad](javascript:alert(1)) <img src=x onerror=alert(1)>",
    );
    expect(html).toContain("<strong>Fixed</strong>");
    expect(html).toContain('<a href="https://example.com/"');
    expect(html).not.toMatch(/<script|<img|javascript:/i);
  });
});

/** A post with two uploaded versions (V1.0 then V2.0), V2.0 current. */
async function postWithTwoVersions(options: Parameters<typeof createPost>[0] = {}) {
  const post = await createPost({ fileSize: null, ...options });
  const one = Buffer.from("first version bytes ".repeat(50));
  const two = Buffer.from("second version bytes ".repeat(60));
  for (const [bytes, label] of [
    [one, "V1.0"],
    [two, "V2.0"],
  ] as const) {
    const stored = await storePostVersionFile(post.id, {
      fileName: "mod.package",
      contentType: "application/octet-stream",
      data: (async function* () {
        yield new Uint8Array(bytes);
      })(),
      fields: { label },
    });
    await addPostVersion(admin, stored);
  }
  const [older, newer] = await db.postVersion.findMany({ where: { postId: post.id }, orderBy: { createdAt: "asc" } });
  return { post, older: older!, newer: newer!, one, two };
}

function versionForm(intent: string, postId: string, versionId: string): Record<string, string> {
  return { intent, postId, versionId, back: "/library" };
}

describe("admins manage versions", () => {
  it("make an older version current again: the post's label, file key, name and size follow", async () => {
    const { post, older, newer } = await postWithTwoVersions();
    const response = await callRoute(libraryRoute, {
      method: "POST",
      path: "/library",
      form: versionForm("version-current", post.id, older.id),
      cookie: adminCookie,
    });
    expect(await toastOf(response)).toMatchObject({ type: "success", message: VERSION_MESSAGES.versionMadeCurrent });
    expect(await db.post.findUniqueOrThrow({ where: { id: post.id } })).toMatchObject({
      version: "V1.0",
      driveFileId: older.storageKey,
      fileName: older.fileName,
      fileSize: older.size,
      currentVersionId: older.id,
    });
    expect(await db.auditEntry.findFirst({ where: { targetId: post.id, action: "post.version.current" } })).not.toBeNull();
    // Already current: a clear refusal, nothing changes.
    await expect(makeVersionCurrent(admin, post.id, older.id)).rejects.toMatchObject({ status: 409, message: VERSION_MESSAGES.alreadyCurrent });
    await makeVersionCurrent(admin, post.id, newer.id);
    expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).currentVersionId).toBe(newer.id);
  });

  it("hide and show an older version; the current one cannot be hidden, a hidden one cannot be made current", async () => {
    const { post, older, newer } = await postWithTwoVersions();
    const refusedHide = await callRoute(libraryRoute, {
      method: "POST",
      path: "/library",
      form: versionForm("version-hide", post.id, newer.id),
      cookie: adminCookie,
    });
    expect(await toastOf(refusedHide)).toMatchObject({ type: "error", message: VERSION_MESSAGES.cannotHideCurrent });
    expect((await db.postVersion.findUniqueOrThrow({ where: { id: newer.id } })).hidden).toBe(false);

    const hide = await callRoute(libraryRoute, { method: "POST", path: "/library", form: versionForm("version-hide", post.id, older.id), cookie: adminCookie });
    expect(await toastOf(hide)).toMatchObject({ type: "success", message: VERSION_MESSAGES.versionHidden });
    expect((await db.postVersion.findUniqueOrThrow({ where: { id: older.id } })).hidden).toBe(true);
    expect((await versionHistories([post.id], { admin: false }))[post.id]!.map((version) => version.label)).toEqual(["V2.0"]);
    expect((await versionHistories([post.id], { admin: true }))[post.id]!.map((version) => version.label)).toEqual(["V2.0", "V1.0"]);
    await expect(makeVersionCurrent(admin, post.id, older.id)).rejects.toMatchObject({ status: 409, message: VERSION_MESSAGES.cannotMakeHiddenCurrent });
    expect(await db.auditEntry.count({ where: { targetId: post.id, action: "post.version.hide" } })).toBe(1);

    const show = await callRoute(libraryRoute, { method: "POST", path: "/library", form: versionForm("version-show", post.id, older.id), cookie: adminCookie });
    expect(await toastOf(show)).toMatchObject({ type: "success", message: VERSION_MESSAGES.versionShown });
    expect((await db.postVersion.findUniqueOrThrow({ where: { id: older.id } })).hidden).toBe(false);

    // Another post's version is not found through this post.
    const other = await postWithTwoVersions();
    await expect(setVersionHidden(admin, post.id, other.older.id, true)).rejects.toMatchObject({ status: 404 });
  });

  it("the library page's kept histories follow a hide and a show at once (the library version moves with post_versions)", async () => {
    const { post, older } = await postWithTwoVersions();
    const viewer = await sessionCookie((await createTestUser()).id);
    const labelsOnPage = async () => {
      const page = await callRoute(libraryRoute, { path: `/library?search=${encodeURIComponent(post.title)}`, cookie: viewer });
      const data = (await page.json()) as { versions: Record<string, { label: string }[]> };
      return data.versions[post.id]?.map((version) => version.label);
    };
    expect(await labelsOnPage()).toEqual(["V2.0", "V1.0"]);
    await setVersionHidden(admin, post.id, older.id, true);
    expect(await labelsOnPage()).toEqual(["V2.0"]);
    await setVersionHidden(admin, post.id, older.id, false);
    expect(await labelsOnPage()).toEqual(["V2.0", "V1.0"]);
  });

  it("non-admins are refused (403 in the model, the admin-only toast on the page) and nothing changes", async () => {
    const { post, older } = await postWithTwoVersions();
    const user = await createTestUser({ tosAccepted: true });
    await expect(setVersionHidden(user, post.id, older.id, true)).rejects.toMatchObject({ status: 403 });
    await expect(makeVersionCurrent(user, post.id, older.id)).rejects.toBeInstanceOf(DomainError);
    const auditsBefore = await db.auditEntry.count();
    for (const intent of ["version-hide", "version-current"]) {
      const response = await callRoute(libraryRoute, {
        method: "POST",
        path: "/library",
        form: versionForm(intent, post.id, older.id),
        cookie: await sessionCookie(user.id),
      });
      expect(await toastOf(response)).toMatchObject({ type: "error", message: "You need to be logged in as an admin to perform this action." });
    }
    expect((await db.postVersion.findUniqueOrThrow({ where: { id: older.id } })).hidden).toBe(false);
    expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).currentVersionId).not.toBe(older.id);
    expect(await db.auditEntry.count()).toBe(auditsBefore);
    // The API upload is admin-only too.
    const refused = await apiUpload(post.id, uploadForm(Buffer.from("x"), "x.bin"), await sessionCookie(user.id));
    expect(refused.status).toBe(403);
  });
});

describe("deleting a post", () => {
  it("deletes every version's file with it", async () => {
    const { post, older, newer } = await postWithTwoVersions();
    expect(storedFiles(post.id).length).toBe(2);
    const response = await callRoute(libraryRoute, {
      method: "POST",
      path: "/library",
      form: { intent: "delete", postId: post.id, back: "/library" },
      cookie: adminCookie,
    });
    expect(await toastOf(response)).toMatchObject({ type: "success", message: "Post deleted." });
    expect(storedFiles(post.id)).toEqual([]);
    expect(await db.postVersion.count({ where: { id: { in: [older.id, newer.id] } } })).toBe(0);
  });
});

describe("the post's own fields keep the current version in step", () => {
  it("PUT of a label renames the current version; a typed key of an older version makes it current; a new key is a new version; no key, none", async () => {
    const { post, older, newer } = await postWithTwoVersions();
    const put = (json: Record<string, unknown>) => callRoute(postRoute, { method: "PUT", params: { id: post.id }, json, cookie: adminCookie });
    expect((await put({ version: "V2.0b" })).status).toBe(200);
    expect((await db.postVersion.findUniqueOrThrow({ where: { id: newer.id } })).label).toBe("V2.0b");

    expect((await put({ drive_file_id: older.storageKey })).status).toBe(200);
    expect(await db.post.findUniqueOrThrow({ where: { id: post.id } })).toMatchObject({ currentVersionId: older.id, version: "V1.0" });

    await store.put(`posts/${post.id}/typed.package`, Buffer.from("typed by hand"));
    expect((await put({ drive_file_id: `posts/${post.id}/typed.package`, version: "V3.0" })).status).toBe(200);
    const typed = await db.postVersion.findFirstOrThrow({ where: { postId: post.id, storageKey: `posts/${post.id}/typed.package` } });
    expect(typed).toMatchObject({ label: "V3.0", size: BigInt(13), sha256: null });
    expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).currentVersionId).toBe(typed.id);

    expect((await put({ drive_file_id: "" })).status).toBe(200);
    expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).currentVersionId).toBeNull();
    expect(await db.postVersion.count({ where: { postId: post.id } })).toBe(3);
  });
});

describe("downloads choose a version", () => {
  it("?version serves that visible version and records its id and label; no parameter serves the current one", async () => {
    const { post, older, newer, one, two } = await postWithTwoVersions({ tiers: [TIER_2] });
    const user = await createTestUser({ tosAccepted: true, currentTierId: TIER_2 });
    const cookie = await sessionCookie(user.id);

    const current = await callRoute(paidRoute, { path: `/api/download/${post.id}`, params: { postId: post.id }, cookie });
    expect(current.status).toBe(200);
    expect(Buffer.from(await current.arrayBuffer()).equals(two)).toBe(true);
    const old = await callRoute(paidRoute, { path: `/api/download/${post.id}?version=${older.id}`, params: { postId: post.id }, cookie });
    expect(old.status).toBe(200);
    expect(old.headers.get("Content-Length")).toBe(String(one.length));
    expect(Buffer.from(await old.arrayBuffer()).equals(one)).toBe(true);
    await appDatabaseSettled();
    const records = await db.download.findMany({ where: { userId: user.id, postId: post.id }, orderBy: { createdAt: "asc" } });
    expect(records.map((record) => [record.version, record.versionId])).toEqual([
      ["V2.0", newer.id],
      ["V1.0", older.id],
    ]);

    // Hidden, or another post's version: 404 with the clear message, nothing recorded.
    await setVersionHidden(admin, post.id, older.id, true);
    const hidden = await callRoute(paidRoute, { path: `/api/download/${post.id}?version=${older.id}`, params: { postId: post.id }, cookie });
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({ error: VERSION_MESSAGES.versionNotFound });
    const other = await postWithTwoVersions({ tiers: [TIER_2] });
    const foreign = await callRoute(paidRoute, { path: `/api/download/${post.id}?version=${other.older.id}`, params: { postId: post.id }, cookie });
    expect(foreign.status).toBe(404);
    await appDatabaseSettled();
    expect(await db.download.count({ where: { userId: user.id } })).toBe(2);

    // Who may download does not change: a user without the tier gets 403, whatever the version.
    const stranger = await createTestUser({ tosAccepted: true });
    const locked = await callRoute(paidRoute, {
      path: `/api/download/${post.id}?version=${newer.id}`,
      params: { postId: post.id },
      cookie: await sessionCookie(stranger.id),
    });
    expect(locked.status).toBe(403);
  });

  it("a free post's signed address carries the version and serves it", async () => {
    const { post, older, one } = await postWithTwoVersions({ paid: false });
    const user = await createTestUser({ tosAccepted: true });
    const answer = await callRoute(freeRoute, {
      path: `/api/download/freedownload/${post.id}?version=${older.id}`,
      params: { postId: post.id },
      cookie: await sessionCookie(user.id),
    });
    const { downloadUrl } = await readJsonBody<{ downloadUrl: string }>(answer);
    expect(new URL(downloadUrl).searchParams.get("version")).toBe(older.id);
    const url = new URL(downloadUrl);
    const file = await callRoute(signedRoute, { path: `${url.pathname}${url.search}`, params: { postId: post.id } });
    expect(Buffer.from(await file.arrayBuffer()).equals(one)).toBe(true);
    await appDatabaseSettled();
    expect((await db.download.findFirstOrThrow({ where: { userId: user.id, postId: post.id } })).versionId).toBe(older.id);
  });

  it("the library's download form (no JavaScript) sends an older version's address", async () => {
    const { post, older } = await postWithTwoVersions({ tiers: [TIER_2] });
    const user = await createTestUser({ tosAccepted: true, currentTierId: TIER_2 });
    const response = await callRoute(libraryRoute, {
      method: "POST",
      path: "/library",
      form: { intent: "download", postId: post.id, versionId: older.id, back: "/library" },
      cookie: await sessionCookie(user.id),
    });
    expect(response.headers.get("Location")).toBe(`/api/download/${post.id}?version=${older.id}`);
  });
});

describe("the versions job", () => {
  it("hashes migrated versions once from storage, skips a missing file without retrying it, and is idempotent", async () => {
    resetBackfillSkips();
    await db.postVersion.updateMany({ where: { sha256: null }, data: { sha256: "0".repeat(64) } });
    const post = await createPost({ fileSize: null });
    const bytes = zipBytes("migrated.zip", V2);
    await store.put(`posts/${post.id}/old.zip`, bytes);
    const migrated = await db.postVersion.create({
      data: { postId: post.id, label: "V1.0", storageKey: `posts/${post.id}/old.zip`, fileName: "old.zip", size: BigInt(0) },
    });
    const missing = await db.postVersion.create({
      data: { postId: post.id, label: "V0.9", storageKey: `posts/${post.id}/gone.zip`, fileName: "gone.zip", size: BigInt(10) },
    });

    expect(await backfillAllVersionHashes()).toEqual({ filled: 1, skipped: 1 });
    const filled = await db.postVersion.findUniqueOrThrow({ where: { id: migrated.id } });
    expect(filled).toMatchObject({ sha256: sha256(bytes), size: BigInt(bytes.length) });
    expect(filled.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(filled.zipEntries).toEqual(expectedEntries(V2));
    expect((await db.postVersion.findUniqueOrThrow({ where: { id: missing.id } })).sha256).toBeNull();
    // A second run finds nothing to do: the missing file is not retried, the filled one not reread.
    expect(await backfillAllVersionHashes()).toEqual({ filled: 0, skipped: 0 });
  });
});
