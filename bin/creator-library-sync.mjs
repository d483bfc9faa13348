#!/usr/bin/env node
// creator-library-sync: keeps a folder current with the posts of a Creator Library account
// (docs/api.md#sync-client). It reads the account's library manifest with a personal API token,
// downloads new posts, fetches only the changed files of a new version (delta updates) where it
// has the older one, resumes interrupted downloads from a .part file, checks every hash, and
// never touches a file it did not put there. ZIPs are unpacked, each post into its own folder;
// other files are saved as they are. What it wrote is kept in `.creator-library-sync.json` in
// the folder. Plain Node (20.15 or later), no dependencies.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { createInflateRaw, crc32 } from "node:zlib";

const STATE_FILE = ".creator-library-sync.json";
const PARTS_FOLDER = ".creator-library-sync-parts";
const REMOVED_LIST = ".delta/removed.txt";
const USAGE = "Usage: creator-library-sync --site URL --token TOKEN --dir FOLDER [--dry-run]";

class SyncError extends Error {}

// ------------------------------------------------------------------------------ the command line

function parseOptions() {
  const { values } = parseArgs({
    options: {
      site: { type: "string" },
      token: { type: "string" },
      dir: { type: "string" },
      "dry-run": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const token = values.token ?? process.env.CREATOR_LIBRARY_TOKEN;
  if (!values.site || !token || !values.dir) {
    console.error(USAGE);
    process.exit(2);
  }
  return { site: values.site.replace(/\/+$/, ""), token, dir: path.resolve(values.dir), dryRun: values["dry-run"] };
}

// ------------------------------------------------------------------------------------ the state

/** { site, posts: { [postId]: { title, version, kind: "zip" | "file", folder?, file?, files: { [path]: { size, sha256 } } } } } */
async function loadState(dir, site) {
  try {
    const state = JSON.parse(await readFile(path.join(dir, STATE_FILE), "utf8"));
    if (state.site && state.site !== site) throw new SyncError(`${dir} is kept in sync with ${state.site}, not ${site}.`);
    return { site, posts: state.posts ?? {} };
  } catch (error) {
    if (error.code === "ENOENT") return { site, posts: {} };
    throw error;
  }
}

async function saveState(dir, state) {
  const file = path.join(dir, STATE_FILE);
  await writeFile(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}

// ---------------------------------------------------------------------------------- the network

function authHeaders(token) {
  return { Authorization: `Bearer ${token}` };
}

async function errorOf(response) {
  const text = await response.text().catch(() => "");
  try {
    return JSON.parse(text).error ?? text;
  } catch {
    return text || response.statusText;
  }
}

async function fetchManifest(site, token) {
  const response = await fetch(`${site}/api/library/manifest`, { headers: authHeaders(token) });
  if (!response.ok) throw new SyncError(`The library manifest was refused (${response.status}): ${await errorOf(response)}`);
  return response.json();
}

function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

/** Progress on one line of a terminal, or every quarter in a log. */
function progress(label) {
  const tty = process.stderr.isTTY;
  let shown = -1;
  return {
    update(done, total) {
      const percent = total ? Math.floor((done / total) * 100) : null;
      if (tty) process.stderr.write(`\r${label}: ${percent === null ? formatBytes(done) : `${percent}% (${formatBytes(done)} of ${formatBytes(total)})`}   `);
      else if (percent !== null && Math.floor(percent / 25) > shown) {
        shown = Math.floor(percent / 25);
        console.error(`${label}: ${percent}% (${formatBytes(done)} of ${formatBytes(total)})`);
      }
    },
    end() {
      if (tty) process.stderr.write("\n");
    },
  };
}

/**
 * Downloads `url` into `part` (a .part file), resuming what an earlier run left there with Range
 * and If-Range (the ETag kept beside it), and answers the finished file's path (the .part name
 * without `.part`). Null when the server answers `skipStatuses`.
 */
async function download(url, headers, part, label, skipStatuses = []) {
  await mkdir(path.dirname(part), { recursive: true });
  const etagFile = `${part}.etag`;
  const have = await stat(part).then(
    (info) => info.size,
    () => 0,
  );
  const etag = have > 0 ? await readFile(etagFile, "utf8").catch(() => null) : null;
  const request = { ...headers };
  if (have > 0 && etag) Object.assign(request, { Range: `bytes=${have}-`, "If-Range": etag });
  const response = await fetch(url, { headers: request });
  if (skipStatuses.includes(response.status)) {
    await response.body?.cancel();
    return null;
  }
  const finished = part.replace(/\.part$/, "");
  // Everything was there already (a run stopped between the last byte and the rename).
  if (response.status === 416 && have > 0 && response.headers.get("Content-Range") === `bytes */${have}`) {
    await response.body?.cancel();
    await rename(part, finished);
    await rm(etagFile, { force: true });
    return finished;
  }
  if (response.status !== 200 && response.status !== 206) throw new SyncError(`${label} was refused (${response.status}): ${await errorOf(response)}`);
  const resumed = response.status === 206;
  if (!resumed) await rm(part, { force: true });
  const newEtag = response.headers.get("ETag");
  if (newEtag) await writeFile(etagFile, newEtag);
  const start = resumed ? have : 0;
  const total = resumed ? Number(/\/(\d+)$/.exec(response.headers.get("Content-Range") ?? "")?.[1] ?? 0) : Number(response.headers.get("Content-Length") ?? 0);
  if (resumed) console.error(`${label}: resuming at ${formatBytes(start)}`);
  const shown = progress(label);
  let done = start;
  const counter = new Transform({
    transform(chunk, _encoding, callback) {
      done += chunk.length;
      shown.update(done, total);
      callback(null, chunk);
    },
  });
  await pipeline(response.body, counter, createWriteStream(part, { flags: resumed ? "a" : "w" }));
  shown.end();
  await rename(part, finished);
  await rm(etagFile, { force: true });
  return finished;
}

// ---------------------------------------------------------------------------------------- hashes

async function sha256Of(file) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest("hex");
}

/** Where a ZIP's end record sits, from its last bytes, or null when the file does not end with one. */
async function endRecordOf(file) {
  const { size } = await stat(file);
  const tailLength = Math.min(size, 22 + 0xffff);
  const handle = await open(file, "r");
  try {
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    for (let at = tail.length - 22; at >= 0; at--) {
      if (tail.readUInt32LE(at) !== 0x06054b50) continue;
      if (at + 22 + tail.readUInt16LE(at + 20) !== tail.length) continue;
      return { offset: size - tailLength + at, record: tail.subarray(at, at + 22), tail, tailAt: at, size };
    }
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * The content hash (docs/glossary.md): SHA-256 of a ZIP without its comment (its length zeroed),
 * which a stamped copy shares with the stored file; of anything else, its SHA-256.
 */
async function contentHashOf(file) {
  const end = await endRecordOf(file);
  if (!end) return sha256Of(file);
  const hash = createHash("sha256");
  if (end.offset > 0) for await (const chunk of createReadStream(file, { start: 0, end: end.offset - 1 })) hash.update(chunk);
  const record = Buffer.from(end.record);
  record.writeUInt16LE(0, 20);
  hash.update(record);
  return hash.digest("hex");
}

/**
 * Checks a downloaded manifest file as the manifest documents: a ZIP by `content_hash` (a stamped
 * copy differs from the stored file in its comment only), any other file by `sha256` and `size`.
 * A hash the manifest does not have yet (null) is not checked.
 */
async function checkHashes(file, described, label, isZip) {
  if (isZip) {
    if (described.content_hash && (await contentHashOf(file)) !== described.content_hash)
      throw new SyncError(`${label}: the file does not match its content hash.`);
    return;
  }
  if (described.size !== null && (await stat(file)).size !== described.size) throw new SyncError(`${label}: the file does not have its size.`);
  if (described.sha256 && (await sha256Of(file)) !== described.sha256) throw new SyncError(`${label}: the file does not match its SHA-256.`);
}

// ------------------------------------------------------------------------------- reading ZIPs

/** The files of a ZIP (central directory, ZIP64 understood): name, method, sizes, CRC-32, local header offset. */
async function zipEntries(file) {
  const end = await endRecordOf(file);
  if (!end) throw new SyncError(`${path.basename(file)} is not a readable ZIP.`);
  let count = end.record.readUInt16LE(10);
  let directorySize = end.record.readUInt32LE(12);
  let directoryOffset = end.record.readUInt32LE(16);
  const handle = await open(file, "r");
  try {
    if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
      const locator = Buffer.alloc(20);
      await handle.read(locator, 0, 20, end.offset - 20);
      if (locator.readUInt32LE(0) !== 0x07064b50) throw new SyncError(`${path.basename(file)} is a broken ZIP64 archive.`);
      const record = Buffer.alloc(56);
      await handle.read(record, 0, 56, Number(locator.readBigUInt64LE(8)));
      count = Number(record.readBigUInt64LE(32));
      directorySize = Number(record.readBigUInt64LE(40));
      directoryOffset = Number(record.readBigUInt64LE(48));
    }
    const directory = Buffer.alloc(directorySize);
    await handle.read(directory, 0, directorySize, directoryOffset);
    const entries = [];
    let at = 0;
    for (let index = 0; index < count; index++) {
      if (directory.readUInt32LE(at) !== 0x02014b50) throw new SyncError(`${path.basename(file)} has a broken central directory.`);
      const flags = directory.readUInt16LE(at + 8);
      const nameLength = directory.readUInt16LE(at + 28);
      const extraLength = directory.readUInt16LE(at + 30);
      const commentLength = directory.readUInt16LE(at + 32);
      const nameBytes = directory.subarray(at + 46, at + 46 + nameLength);
      const entry = {
        name: nameBytes.toString(flags & 0x0800 ? "utf8" : "latin1"),
        flags,
        method: directory.readUInt16LE(at + 10),
        crc32: directory.readUInt32LE(at + 16),
        compressedSize: directory.readUInt32LE(at + 20),
        size: directory.readUInt32LE(at + 24),
        offset: directory.readUInt32LE(at + 42),
      };
      // ZIP64 extra field: the 64-bit values of the saturated fields, in this order.
      const extra = directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
      for (let e = 0; e + 4 <= extra.length; e += 4 + extra.readUInt16LE(e + 2)) {
        if (extra.readUInt16LE(e) !== 0x0001) continue;
        let field = e + 4;
        for (const key of ["size", "compressedSize", "offset"]) {
          if (entry[key] === 0xffffffff) {
            entry[key] = Number(extra.readBigUInt64LE(field));
            field += 8;
          }
        }
      }
      entries.push(entry);
      at += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/** A relative path inside a post's folder, or an error for one that would leave it. */
function safeRelative(name) {
  const normal = path.posix.normalize(name);
  if (name.includes("\\") || name.includes("\0") || path.posix.isAbsolute(normal) || /^[A-Za-z]:/.test(normal) || normal.split("/").includes("..")) {
    throw new SyncError(`The archive names an unsafe path: ${name}`);
  }
  return normal;
}

/** Unpacks one entry of `zip` to `target` (through a temporary file), checking its size and CRC-32; answers its SHA-256. */
async function extractEntry(zip, entry, target) {
  if (entry.flags & 0x0001) throw new SyncError(`${entry.name} is encrypted.`);
  if (entry.method !== 0 && entry.method !== 8) throw new SyncError(`${entry.name} uses a compression this client cannot read.`);
  const handle = await open(zip, "r");
  const header = Buffer.alloc(30);
  try {
    await handle.read(header, 0, 30, entry.offset);
  } finally {
    await handle.close();
  }
  if (header.readUInt32LE(0) !== 0x04034b50) throw new SyncError(`${entry.name}: no local header where the directory says.`);
  const dataStart = entry.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.creator-library-sync.tmp`;
  let crc = 0;
  let size = 0;
  const hash = createHash("sha256");
  const check = new Transform({
    transform(chunk, _encoding, callback) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  const source = entry.compressedSize > 0 ? createReadStream(zip, { start: dataStart, end: dataStart + entry.compressedSize - 1 }) : Readable.from([]);
  const stages = entry.method === 8 ? [source, createInflateRaw(), check] : [source, check];
  try {
    await pipeline(...stages, createWriteStream(temporary));
    if (size !== entry.size || crc >>> 0 !== entry.crc32 >>> 0) throw new SyncError(`${entry.name} does not match its CRC-32: the download is damaged.`);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return hash.digest("hex");
}

// ------------------------------------------------------------------------------- the folder

const exists = (file) =>
  stat(file).then(
    () => true,
    () => false,
  );

/** A folder name from a post's title, safe on every system. */
function folderName(title) {
  const printable = [...title].map((char) => (char.charCodeAt(0) < 0x20 ? "-" : char)).join("");
  return (
    printable
      .replace(/[<>:"/\\|?*]+/g, "-")
      .replace(/^[.\s-]+|[.\s]+$/g, "")
      .slice(0, 100) || "post"
  );
}

/** Paths written by any post in the state, relative to the sync folder. */
function ownedPaths(state) {
  const owned = new Set();
  for (const post of Object.values(state.posts)) {
    if (post.kind === "file") owned.add(post.file);
    else for (const file of Object.keys(post.files ?? {})) owned.add(path.posix.join(post.folder, file));
  }
  return owned;
}

/** A folder for a new ZIP post: its title, or the title and id when that name is someone else's. */
async function chooseFolder(dir, state, entry) {
  const taken = new Set(Object.values(state.posts).map((post) => post.folder ?? post.file));
  for (const name of [folderName(entry.title), `${folderName(entry.title)} (${entry.postId})`]) {
    if (!taken.has(name) && !(await exists(path.join(dir, name)))) return name;
  }
  throw new SyncError(`No free folder for ${entry.title}: ${folderName(entry.title)} exists and is not this client's.`);
}

/**
 * Writes entries of `zip` into the post's folder and removes `removed` paths (only those the post
 * wrote). Refuses before changing anything when an entry would replace a file it did not write.
 */
async function applyZip(dir, state, record, zip, { removed, replaceAll }) {
  const entries = (await zipEntries(zip)).filter((entry) => !entry.name.endsWith("/") && entry.name !== REMOVED_LIST);
  const folder = path.join(dir, record.folder);
  const names = entries.map((entry) => safeRelative(entry.name));
  for (const name of names) {
    if (!record.files[name] && (await exists(path.join(folder, name)))) {
      throw new SyncError(`${path.join(record.folder, name)} exists and was not written by this client: left as it is, ${record.title} not updated.`);
    }
  }
  const files = { ...record.files };
  // A whole new version replaces the post's files: those it no longer holds go.
  const gone = replaceAll ? Object.keys(files).filter((name) => !names.includes(name)) : removed.map(safeRelative);
  for (const [index, entry] of entries.entries()) {
    files[names[index]] = { size: entry.size, sha256: await extractEntry(zip, entry, path.join(folder, names[index])) };
  }
  for (const name of gone) {
    if (!files[name]) continue;
    await rm(path.join(folder, name), { force: true });
    delete files[name];
  }
  return files;
}

// ------------------------------------------------------------------------------- one post

function describe(entry) {
  return `${entry.title} ${entry.version}`;
}

/** Brings one manifest post into the folder: a delta over the version kept, else the whole file. */
async function syncPost(options, state, entry) {
  const { dir, site, token, dryRun } = options;
  const file = entry.files.find((candidate) => candidate.role === "main") ?? entry.files[0];
  if (!file) return;
  const record = state.posts[entry.postId];
  if (record && record.version === entry.version) return;
  const isZip = /\.zip$/i.test(file.name);
  const parts = path.join(dir, PARTS_FOLDER);
  if (dryRun) {
    console.log(
      record
        ? `Would update ${entry.title} from ${record.version} to ${entry.version}${isZip && record.kind === "zip" ? " (changed files only)" : ""}`
        : `Would download ${describe(entry)}`,
    );
    return;
  }

  if (record && record.kind === "zip" && isZip) {
    const label = `${describe(entry)} (update from ${record.version})`;
    const deltaUrl = `${site}/api/library/posts/${encodeURIComponent(entry.postId)}/delta?from=${encodeURIComponent(record.version)}`;
    // 404/409/422: no delta from this version; 403: not the current version (a kept one, say). The whole file follows.
    const delta = await download(
      deltaUrl,
      authHeaders(token),
      path.join(parts, `${entry.postId}-${entry.version}-from-${record.version}.delta.zip.part`.replace(/[^A-Za-z0-9._-]/g, "_")),
      label,
      [403, 404, 409, 422],
    );
    if (delta) {
      const removed = (await readRemovedList(delta)).filter(Boolean);
      const files = await applyZip(dir, state, record, delta, { removed, replaceAll: false });
      state.posts[entry.postId] = { ...record, title: entry.title, version: entry.version, files };
      await rm(delta, { force: true });
      console.log(`Updated ${entry.title} to ${entry.version} (changed files only)`);
      return;
    }
  }

  const label = describe(entry);
  const partName = `${entry.postId}-${entry.version}-${file.name}.part`.replace(/[^A-Za-z0-9._-]/g, "_");
  const whole = await download(file.url, {}, path.join(parts, partName), label);
  try {
    await checkHashes(whole, file, label, isZip);
  } catch (error) {
    await rm(whole, { force: true });
    throw error;
  }
  if (isZip) {
    const current = record?.kind === "zip" ? record : { kind: "zip", folder: await chooseFolder(dir, state, entry), files: {} };
    const next = { ...current, kind: "zip", title: entry.title, version: entry.version };
    next.files = await applyZip(dir, state, next, whole, { removed: [], replaceAll: true });
    if (record?.kind === "file") await removeOwnedFile(dir, record);
    state.posts[entry.postId] = next;
    await rm(whole, { force: true });
  } else {
    const target = file.name;
    if (!ownedPaths(state).has(target) && (await exists(path.join(dir, target)))) {
      await rm(whole, { force: true });
      throw new SyncError(`${target} exists and was not written by this client: left as it is.`);
    }
    await rename(whole, path.join(dir, target));
    if (record?.kind === "file" && record.file !== target) await removeOwnedFile(dir, record);
    if (record?.kind === "zip") for (const name of Object.keys(record.files)) await rm(path.join(dir, record.folder, name), { force: true });
    state.posts[entry.postId] = { kind: "file", title: entry.title, version: entry.version, file: target, files: {} };
  }
  console.log(`${record ? "Updated" : "Downloaded"} ${label}`);
}

async function removeOwnedFile(dir, record) {
  await rm(path.join(dir, record.file), { force: true });
}

async function readRemovedList(delta) {
  const entry = (await zipEntries(delta)).find((candidate) => candidate.name === REMOVED_LIST);
  if (!entry) throw new SyncError("The update has no list of removed files.");
  const target = `${delta}.removed.txt`;
  await extractEntry(delta, entry, target);
  const text = await readFile(target, "utf8");
  await rm(target, { force: true });
  return text.split("\n");
}

// ---------------------------------------------------------------------------------------- main

async function main() {
  const options = parseOptions();
  const { dir, dryRun } = options;
  if (!dryRun) await mkdir(dir, { recursive: true });
  const state = await loadState(dir, options.site);
  const manifest = await fetchManifest(options.site, options.token);
  const listed = new Set(manifest.posts.map((entry) => entry.postId));
  let failures = 0;
  for (const entry of manifest.posts) {
    try {
      await syncPost(options, state, entry);
      if (!dryRun) await saveState(dir, state);
    } catch (error) {
      if (!(error instanceof SyncError)) throw error;
      failures += 1;
      console.error(`Could not sync ${describe(entry)}: ${error.message}`);
    }
  }
  // A post no longer listed (a membership ended, a post withdrawn): its files stay as they are.
  for (const [postId, record] of Object.entries(state.posts)) {
    if (!listed.has(postId)) console.log(`Kept ${record.title} ${record.version} (no longer in your library; its files stay)`);
  }
  if (!dryRun) await saveState(dir, state);
  const upToDate = manifest.posts.length - failures;
  console.log(`${dryRun ? "Dry run: nothing was changed. " : ""}${upToDate} of ${manifest.posts.length} posts ${dryRun ? "checked" : "up to date"}.`);
  process.exitCode = failures > 0 ? 1 : 0;
}

main().catch((error) => {
  console.error(error instanceof SyncError ? error.message : error);
  process.exitCode = 1;
});
