// The sync client (bin/creator-library-sync.mjs) as a child process against the real production
// server (a build: run `npm run build` first) through a release: a new post appears and is
// unpacked; a new version arrives as a delta and leaves exactly its files; an interrupted download
// resumes from its .part file; a dry run changes nothing; a lapse leaves the kept version in
// place; a file the client did not write is never touched.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { hashToken } from "~/models/session.server";
import { createTestUser, runUntilExit } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import type { ZipFileSpec } from "./zip-files";
import { addZipVersion, noise } from "./zip-versions";
import { appServerArgs, freePort } from "../scripts/app-server";

const root = path.resolve(import.meta.dirname, "..");
const serverArgs = appServerArgs();
const CLIENT = path.join(root, "bin/creator-library-sync.mjs");
const TOKEN = `sync-client-token-${Date.now()}`;

let server: ChildProcess;
let base: string;
let serverOutput = "";
let member: User;
const dir = mkdtempSync(path.join(tmpdir(), "library-sync-"));

/** Runs the client against the server; answers its exit code and what it printed. */
function sync(...extra: string[]) {
  return runUntilExit([CLIENT, "--site", base, "--token", TOKEN, "--dir", dir, ...extra], { ...process.env }, 60_000);
}

/** Every file under `folder`, relative path to bytes. */
function tree(folder: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (at: string) => {
    for (const name of readdirSync(path.join(folder, at))) {
      const relative = at ? `${at}/${name}` : name;
      if (statSync(path.join(folder, relative)).isDirectory()) walk(relative);
      else files.set(relative, readFileSync(path.join(folder, relative)));
    }
  };
  walk("");
  return files;
}

/** The files of a ZIP on disk as an independent reader (yauzl) unpacks them. */
function unpack(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error(`Cannot open ${file}`));
      const files = new Map<string, Buffer>();
      zip.on("entry", (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error(`Cannot read ${entry.fileName}`));
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("end", () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve(files));
      zip.readEntry();
    });
  });
}

function expectSameTree(actual: Map<string, Buffer>, expected: Map<string, Buffer>) {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [name, bytes] of expected) expect(actual.get(name)!.equals(bytes), name).toBe(true);
}

const COTTAGE_V1: ZipFileSpec[] = [
  { name: "Mods/cottage-walls.package", text: noise(11, 50_000) },
  { name: "Mods/cottage-roof.package", text: noise(12, 30_000) },
  { name: "Mods/old-name.package", text: noise(13, 10_000) },
  { name: "Tray/cottage.trayitem", text: noise(14, 5_000) },
];
const COTTAGE_V2: ZipFileSpec[] = [
  { name: "Mods/cottage-walls.package", text: noise(11, 50_000) },
  { name: "Mods/cottage-roof.package", text: noise(15, 32_000) },
  { name: "Mods/new-name.package", text: noise(13, 10_000) },
  { name: "Mods/garden/fence.package", text: noise(16, 8_000) },
];

beforeAll(async () => {
  for (const file of serverArgs.filter((arg) => !arg.startsWith("--")))
    if (!existsSync(file)) throw new Error(`No build at ${file}: run \`npm run build\` first.`);
  await createTiers();
  member = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  await db.apiToken.create({ data: { userId: member.id, tokenHash: hashToken(TOKEN), label: "sync client" } });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, serverArgs, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: base,
      DISABLE_JOBS: "1",
      REQUEST_LOG: "false",
      KEEP_DOWNLOADED_VERSIONS: "false",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (serverOutput += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (serverOutput += chunk.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited:\n${serverOutput}`);
    const ready = await fetch(`${base}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`server did not start:\n${serverOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
});

describe("creator-library-sync against a running site", () => {
  it("follows a release: a new post, a new version as a delta, a resumed download, a dry run, a lapse", { timeout: 180_000 }, async () => {
    // A file of the supporter's own, which the client must never touch.
    writeFileSync(path.join(dir, "my-own-mod.package"), "mine");

    // 1. A new post appears: downloaded, checked and unpacked into its own folder.
    const cottage = await createPost({ tiers: [TIER_2], title: "Sync Cottage", version: "V1.0" });
    const cottageV1 = await addZipVersion(cottage.id, "V1.0", COTTAGE_V1, true);
    const first = await sync();
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain("Downloaded Sync Cottage V1.0");
    expectSameTree(tree(path.join(dir, "Sync Cottage")), await unpack(cottageV1.local));
    const state = JSON.parse(readFileSync(path.join(dir, ".creator-library-sync.json"), "utf8"));
    expect(state.posts[cottage.id]).toMatchObject({ version: "V1.0", kind: "zip", folder: "Sync Cottage" });
    expect(Object.keys(state.posts[cottage.id].files).sort()).toEqual(COTTAGE_V1.map((file) => file.name).sort());

    // Run again: nothing to do.
    const again = await sync();
    expect(again.code).toBe(0);
    expect(again.output).not.toContain("Downloaded");

    // 2. A release: a new version of the cottage (changed, added, removed, renamed files) and a new post.
    const cottageV2 = await addZipVersion(cottage.id, "V2.0", COTTAGE_V2, true);
    const garden = await createPost({ tiers: [TIER_2], title: "Sync Garden", version: "V1.0" });
    const gardenV1 = await addZipVersion(garden.id, "V1.0", [{ name: "Mods/garden.package", text: noise(21, 400_000) }], true);

    // 3. An interrupted download of the new post: the first part of its bytes already in a .part file.
    const manifest = (await (await fetch(`${base}/api/library/manifest`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as {
      posts: { postId: string; version: string; files: { name: string; url: string }[] }[];
    };
    const gardenEntry = manifest.posts.find((post) => post.postId === garden.id)!;
    const full = await fetch(gardenEntry.files[0]!.url);
    const stamped = Buffer.from(await full.arrayBuffer());
    const parts = path.join(dir, ".creator-library-sync-parts");
    mkdirSync(parts, { recursive: true });
    const partName = `${garden.id}-V1.0-${gardenEntry.files[0]!.name}.part`.replace(/[^A-Za-z0-9._-]/g, "_");
    const half = Math.floor(stamped.length / 2);
    writeFileSync(path.join(parts, partName), stamped.subarray(0, half));
    writeFileSync(path.join(parts, `${partName}.etag`), full.headers.get("ETag")!);

    // 4. A dry run says what it would do and changes nothing.
    const before = tree(dir);
    const dry = await sync("--dry-run");
    expect(dry.code, dry.output).toBe(0);
    expect(dry.output).toContain("Would update Sync Cottage from V1.0 to V2.0 (changed files only)");
    expect(dry.output).toContain("Would download Sync Garden V1.0");
    expectSameTree(tree(dir), before);

    const second = await sync();
    expect(second.code, second.output).toBe(0);
    expect(second.output).toContain("Updated Sync Cottage to V2.0 (changed files only)");
    expect(second.output).toContain(`Sync Garden V1.0: resuming at`);
    expect(second.output).toContain("Downloaded Sync Garden V1.0");
    // The cottage's folder is exactly the new version's files, byte for byte.
    expectSameTree(tree(path.join(dir, "Sync Cottage")), await unpack(cottageV2.local));
    expectSameTree(tree(path.join(dir, "Sync Garden")), await unpack(gardenV1.local));
    // The delta and the resumed download are recorded as downloads of the versions they brought.
    const records = await db.download.findMany({ where: { userId: member.id }, select: { postId: true, version: true } });
    expect(records).toEqual(
      expect.arrayContaining([
        { postId: cottage.id, version: "V2.0" },
        { postId: garden.id, version: "V1.0" },
      ]),
    );
    expect(readdirSync(parts)).toEqual([]);

    // 5. The membership ends: the posts leave the manifest, their files stay.
    await db.user.update({ where: { id: member.id }, data: { currentTierId: null } });
    const lapsed = await sync();
    expect(lapsed.code, lapsed.output).toBe(0);
    expect(lapsed.output).toContain("Kept Sync Cottage V2.0 (no longer in your library; its files stay)");
    expectSameTree(tree(path.join(dir, "Sync Cottage")), await unpack(cottageV2.local));
    expect(JSON.parse(readFileSync(path.join(dir, ".creator-library-sync.json"), "utf8")).posts[cottage.id].version).toBe("V2.0");

    expect(readFileSync(path.join(dir, "my-own-mod.package"), "utf8")).toBe("mine");
  });

  it("refuses to write over a file it did not put there, and leaves it as it is", { timeout: 60_000 }, async () => {
    await db.user.update({ where: { id: member.id }, data: { currentTierId: TIER_2 } });
    const porch = await createPost({ tiers: [TIER_2], title: "Sync Porch", version: "V1.0" });
    await addZipVersion(porch.id, "V1.0", [{ name: "porch.package", text: noise(31, 2_000) }], true);
    // The folder name is taken by the supporter's own folder: the post goes to "Sync Porch (id)".
    mkdirSync(path.join(dir, "Sync Porch"), { recursive: true });
    writeFileSync(path.join(dir, "Sync Porch", "porch.package"), "the supporter's own");
    const run = await sync();
    expect(run.code, run.output).toBe(0);
    expect(readFileSync(path.join(dir, "Sync Porch", "porch.package"), "utf8")).toBe("the supporter's own");
    expect(existsSync(path.join(dir, `Sync Porch (${porch.id})`, "porch.package"))).toBe(true);
  });

  it("checks the hash of a resumed download: a damaged .part is refused and nothing is written; a complete one is used", { timeout: 60_000 }, async () => {
    const shed = await createPost({ tiers: [TIER_2], title: "Sync Shed", version: "V1.0" });
    const shedV1 = await addZipVersion(shed.id, "V1.0", [{ name: "shed.package", text: noise(41, 50_000) }], true);
    const manifest = (await (await fetch(`${base}/api/library/manifest`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as {
      posts: { postId: string; files: { name: string; url: string }[] }[];
    };
    const file = manifest.posts.find((post) => post.postId === shed.id)!.files[0]!;
    const answer = await fetch(file.url);
    const stamped = Buffer.from(await answer.arrayBuffer());
    const parts = path.join(dir, ".creator-library-sync-parts");
    mkdirSync(parts, { recursive: true });
    const part = path.join(parts, `${shed.id}-V1.0-${file.name}.part`.replace(/[^A-Za-z0-9._-]/g, "_"));
    // The first 1000 bytes, one of them flipped: the resumed file is whole but not the one described.
    const damaged = Buffer.from(stamped.subarray(0, 1000));
    damaged.writeUInt8(damaged.readUInt8(500) ^ 0xff, 500);
    writeFileSync(part, damaged);
    writeFileSync(`${part}.etag`, answer.headers.get("ETag")!);
    const refused = await sync();
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("Could not sync Sync Shed V1.0: Sync Shed V1.0: the file does not match its content hash.");
    expect(existsSync(path.join(dir, "Sync Shed"))).toBe(false);
    expect(existsSync(part)).toBe(false);

    // A .part that holds every byte already (a run stopped before its rename): the server answers 416 and it is used.
    writeFileSync(part, stamped);
    writeFileSync(`${part}.etag`, answer.headers.get("ETag")!);
    const whole = await sync();
    expect(whole.code, whole.output).toBe(0);
    expectSameTree(tree(path.join(dir, "Sync Shed")), await unpack(shedV1.local));
  });
});
