// A post file's ZIP may list at most MAX_ZIP_ENTRIES entries: each costs storage reads at upload
// and is stored and compared with the version before. A larger one is refused, with the cap in
// the message, before its entries are read, and nothing of it stays; the versions job keeps such
// a migrated file's hashes without an entry list.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { LocalStorage, setStorageForTests, type ByteRange, type Storage } from "~/integrations/storage.server";
import { listZipEntries, TooManyZipEntriesError } from "~/integrations/zip.server";
import { backfillAllVersionHashes } from "~/models/post-version-backfill.server";
import * as fileRoute from "~/routes/api.upload.file.$id";
import * as libraryRoute from "~/routes/library";
import { getToast } from "~/toast.server";
import { MAX_ZIP_ENTRIES, VERSION_MESSAGES } from "~/utils/version-schemas";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";
import { writeZip } from "./zip-files";

const folder = mkdtempSync(path.join(os.tmpdir(), "clib-zipcap-"));
const root = path.join(folder, "store");
const store = new LocalStorage(root);
let adminCookie: string;

beforeAll(async () => {
  setStorageForTests(store);
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
});

afterAll(() => {
  setStorageForTests(undefined);
  rmSync(folder, { recursive: true, force: true });
});

/** A ZIP of `count` tiny files, written by Python's zipfile. */
function zipOf(count: number, name: string): Buffer {
  const file = path.join(folder, name);
  writeZip(
    file,
    Array.from({ length: count }, (_, index) => ({ name: `files/${index}.txt`, text: "x" })),
  );
  return readFileSync(file);
}

function uploadForm(bytes: Buffer, fileName: string): FormData {
  const form = new FormData();
  form.append("label", "V2.0");
  form.append("file", new Blob([new Uint8Array(bytes)]), fileName);
  return form;
}

function storedFiles(postId: string): string[] {
  const dir = path.join(root, "posts", postId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe("the cap on ZIP entries", () => {
  it("is 10,000, and the message names it", () => {
    expect(MAX_ZIP_ENTRIES).toBe(10_000);
    expect(VERSION_MESSAGES.tooManyZipEntries).toContain("10,000");
  });

  it("listing refuses an archive above the cap after reading only its end, and takes one at the cap", async () => {
    await store.put("zips/four.zip", zipOf(4, "four.zip"));
    const reads: ByteRange[] = [];
    const counting: Storage = {
      put: (key, body) => store.put(key, body),
      delete: (key) => store.delete(key),
      stat: (key) => store.stat(key),
      read: (key, range) => {
        reads.push(range!);
        return store.read(key, range);
      },
    };
    await expect(listZipEntries(counting, "zips/four.zip", { maxEntries: 3 })).rejects.toThrow(TooManyZipEntriesError);
    // The end records only: no central-directory entry was read.
    expect(reads.length).toBeLessThanOrEqual(2);
    expect(await listZipEntries(store, "zips/four.zip", { maxEntries: 4 })).toHaveLength(4);
  });

  it("an upload above the cap is refused with the cap in the message, leaving no stored object and no rows", async () => {
    const post = await createPost({ fileSize: null, version: "V1.0" });
    const bytes = zipOf(MAX_ZIP_ENTRIES + 1, "too-many.zip");
    const auditsBefore = await db.auditEntry.count();
    const response = await callRoute(fileRoute, {
      method: "POST",
      path: `/api/upload/file/${post.id}`,
      params: { id: post.id },
      form: uploadForm(bytes, "too-many.zip"),
      cookie: adminCookie,
    });
    expect(response.status).toBe(400);
    expect(await readJsonBody(response)).toEqual({ error: VERSION_MESSAGES.tooManyZipEntries });
    expect(storedFiles(post.id)).toEqual([]);
    expect(await db.postVersion.count({ where: { postId: post.id } })).toBe(0);
    expect(await db.post.findUniqueOrThrow({ where: { id: post.id } })).toMatchObject({ driveFileId: null, version: "V1.0", currentVersionId: null });
    expect(await db.auditEntry.count()).toBe(auditsBefore);

    // The admin card's upload (no JavaScript) says the same as a toast.
    const page = await callRoute(libraryRoute, {
      method: "POST",
      path: `/library?intent=upload-file&postId=${post.id}&back=%2Flibrary`,
      form: uploadForm(bytes, "too-many.zip"),
      cookie: adminCookie,
    });
    const cookie = page.headers.get("Set-Cookie")?.split(";")[0] ?? "";
    const { toast } = await getToast(new Request("http://localhost:3999/", { headers: { Cookie: cookie } }));
    expect(toast).toMatchObject({ type: "error", message: VERSION_MESSAGES.tooManyZipEntries });
    expect(storedFiles(post.id)).toEqual([]);
  }, 60_000);

  it("the versions job keeps a migrated file above the cap: hashes, no entry list", async () => {
    const post = await createPost({ fileSize: null });
    const key = `posts/${post.id}/old.zip`;
    await store.put(key, zipOf(MAX_ZIP_ENTRIES + 1, "old.zip"));
    const version = await db.postVersion.create({ data: { postId: post.id, label: "V1.0", storageKey: key, fileName: "old.zip", size: 0n } });
    await backfillAllVersionHashes();
    const after = await db.postVersion.findUniqueOrThrow({ where: { id: version.id } });
    expect(after.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(after.zipEntries).toBeNull();
  }, 60_000);
});
