// ZIP versions of a post for delta and sync tests: written by Python's zipfile (deflated), stored,
// and recorded with the hashes and entry list an upload records.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import { listZipEntries } from "~/integrations/zip.server";
import * as addFileRoute from "~/routes/api.admin.posts.$id.versions.$versionId.files";
import { callRoute } from "./helpers";
import { writeZip, type ZipFileSpec } from "./zip-files";

const work = mkdtempSync(path.join(tmpdir(), "zip-versions-"));
let made = 0;

/** Random, incompressible text: entries whose compressed size is about their size. */
export function noise(seed: number, length: number): string {
  let text = "";
  let state = seed;
  while (text.length < length) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += state.toString(36);
  }
  return text.slice(0, length);
}

/** The bytes of a deflated ZIP of `files`. */
export function zipBytes(files: ZipFileSpec[]): Buffer {
  made += 1;
  const local = path.join(work, `z${made}.zip`);
  writeZip(local, files, { deflate: true });
  return readFileSync(local);
}

/** Stores a ZIP of `files` as a version of the post; `current` makes it the post's file. */
export async function addZipVersion(postId: string, label: string, files: ZipFileSpec[], current: boolean) {
  made += 1;
  const local = path.join(work, `v${made}.zip`);
  writeZip(local, files, { deflate: true });
  const bytes = readFileSync(local);
  const key = `posts/${postId}/v${made}-${Date.now()}/file.zip`;
  const store = await storage();
  await store.put(key, bytes);
  const entries = await listZipEntries(store, key);
  const sha = createHash("sha256").update(bytes).digest("hex");
  const version = await db.postVersion.create({
    data: { postId, label, storageKey: key, fileName: "file.zip", size: BigInt(bytes.length), sha256: sha, contentHash: sha, zipEntries: entries },
  });
  if (current) {
    await db.post.update({
      where: { id: postId },
      data: { currentVersionId: version.id, version: label, driveFileId: key, fileName: "file.zip", fileSize: BigInt(bytes.length) },
    });
  }
  return { version, key, bytes, local };
}

/**
 * Adds a file (a variant, add-on, translation: `fields` as the admin form sends them) to a version
 * through the admin API, as the editor does, so its ZIP entries are read on upload. Answers its id.
 */
export async function addVersionFileVia(
  adminCookie: string,
  postId: string,
  versionId: string,
  fields: Record<string, string>,
  zip: Buffer,
  fileName = "file.zip",
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(zip)]), fileName);
  const response = await callRoute(addFileRoute, { method: "POST", params: { id: postId, versionId }, cookie: adminCookie, form });
  if (response.status !== 201) throw new Error(`adding a file answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { file: { fileId: string } }).file.fileId;
}
