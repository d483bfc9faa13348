// `npm run backup` and `npm run restore` end to end: a seeded site on the embedded default is
// backed up while it runs, restored into a fresh DATA_DIR and served again (every page, every
// demo account's sign-in and download), with the same files byte for byte; the same archive
// restored into an empty database of the system PostgreSQL (DATABASE_URL) with S3 storage and
// backed up from there holds the same rows and files. A restore onto data that is not empty is refused.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAppBuilt, freePort, projectRoot } from "../scripts/app-server.ts";
import { adminQuery, databaseUrl, dropDatabase, uniqueName } from "./db";
import { startS3rver } from "./storage-s3rver";
import { errorLines, killGroup, newcomerEnv, pressCtrlC, startSite, START_TIMEOUT_MS, walk, type Site } from "./npm-start";

/** Runs `npm run backup|restore` (scripts/backup.ts) and answers its exit code and output. */
async function run(command: "backup" | "restore", archive: string, env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts/backup.ts"), command, archive], {
    cwd: projectRoot,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output };
}

/** Every file under `folder` with the SHA-256 of its bytes. */
function hashes(folder: string, prefix = ""): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of readdirSync(path.join(folder, prefix), { withFileTypes: true })) {
    const key = path.join(prefix, entry.name);
    if (entry.isDirectory()) Object.assign(found, hashes(folder, key));
    else
      found[key] = createHash("sha256")
        .update(readFileSync(path.join(folder, key)))
        .digest("hex");
  }
  return found;
}

/** An archive unpacked: each table's rows (sorted, since a heap's order is not kept) and its files' hashes. */
function contents(archive: string): { tables: Record<string, string[]>; files: Record<string, string> } {
  const folder = mkdtempSync(path.join(os.tmpdir(), "clib-archive-"));
  try {
    expect(spawnSync("tar", ["-xzf", archive, "-C", folder]).status).toBe(0);
    const tables: Record<string, string[]> = {};
    for (const file of readdirSync(path.join(folder, "database"))) {
      tables[file] = readFileSync(path.join(folder, "database", file), "utf8")
        .split("\n")
        .filter(Boolean)
        .sort();
    }
    return { tables, files: hashes(path.join(folder, "files")) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

beforeAll(() => ensureAppBuilt(), START_TIMEOUT_MS);

describe("npm run backup and npm run restore", () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "clib-backup-"));
  const seeded = path.join(scratch, "seeded");
  const restored = path.join(scratch, "restored");
  const archive = path.join(scratch, "site.tar.gz");
  const database = uniqueName("clib_restore");
  let site: Site | undefined;
  let s3: Awaited<ReturnType<typeof startS3rver>> | undefined;
  afterAll(async () => {
    killGroup(site);
    await site?.exited;
    await s3?.stop();
    await dropDatabase(database);
    rmSync(scratch, { recursive: true, force: true });
  });

  it(
    "backs up a running seeded site, restores it into a fresh DATA_DIR, and the restored site serves every page, sign-in and download",
    async () => {
      const port = await freePort();
      site = await startSite(newcomerEnv({ DATA_DIR: seeded, PORT: String(port), FAKE_PROVIDERS: "false" }));
      expect(site.output()).toContain("Demo content seeded.");

      const backup = await run("backup", archive, newcomerEnv({ DATA_DIR: seeded }));
      expect(backup.output).toMatch(/^Backup written to .*site\.tar\.gz: \d+ rows in \d+ tables, \d+ files\.\n$/);
      expect(backup.code).toBe(0);
      pressCtrlC(site);
      expect(await site.exited).toBe(0);

      const restore = await run("restore", archive, newcomerEnv({ DATA_DIR: restored }));
      expect(restore.output).toMatch(/Restored .*site\.tar\.gz: \d+ rows in \d+ tables, \d+ files\.\n$/);
      expect(restore.code).toBe(0);
      const files = hashes(path.join(seeded, "files"));
      expect(Object.keys(files).length).toBeGreaterThan(10);
      expect(hashes(path.join(restored, "files"))).toEqual(files);

      site = await startSite(newcomerEnv({ DATA_DIR: restored, PORT: String(port), FAKE_PROVIDERS: "false" }));
      expect(site.output()).not.toContain("Demo content seeded.");
      expect(await walk(site.base)).toEqual([]);
      // A slow-query note names columns (one is called "error"): a warning of load, not a failure.
      expect(errorLines(site.output()).filter((line) => !line.startsWith("slow query"))).toEqual([]);
      pressCtrlC(site);
      expect(await site.exited).toBe(0);

      // Onto data that is not empty: refused, and nothing changed.
      const again = await run("restore", archive, newcomerEnv({ DATA_DIR: restored }));
      expect(again.code).toBe(1);
      expect(again.output).toBe(`Restore failed: ${restored} is not empty; restore into an empty DATA_DIR (set DATA_DIR to a new folder).\n`);
    },
    4 * START_TIMEOUT_MS,
  );

  it(
    "restores the same archive into an empty database of DATABASE_URL and an S3 bucket, whose backup holds the same rows and files",
    async () => {
      await adminQuery(`CREATE DATABASE "${database}"`);
      s3 = await startS3rver("restored-files");
      const dataDir = path.join(scratch, "with-url");
      mkdirSync(dataDir);
      const env = newcomerEnv({
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl(database),
        STORAGE_DRIVER: "s3",
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: "restored-files",
        S3_ACCESS_KEY_ID: "S3RVER",
        S3_SECRET_ACCESS_KEY: "S3RVER",
        S3_FORCE_PATH_STYLE: "true",
      });
      const restore = await run("restore", archive, env);
      expect(restore.output).toMatch(/Restored .*: \d+ rows in \d+ tables, \d+ files\.\n$/);
      expect(restore.code).toBe(0);

      const again = await run("restore", archive, env);
      expect(again.code).toBe(1);
      expect(again.output).toMatch(/^Restore failed: the database of DATABASE_URL is not empty \(\d+ tables\); restore into an empty database\.\n$/);

      expect(readdirSync(dataDir)).toEqual([]);

      const second = path.join(scratch, "from-url.tar.gz");
      expect((await run("backup", second, env)).code).toBe(0);
      const before = contents(archive);
      expect(Object.keys(before.tables).length).toBeGreaterThan(10);
      expect(Object.keys(before.files).length).toBeGreaterThan(10);
      expect(contents(second)).toEqual(before);
    },
    2 * START_TIMEOUT_MS,
  );
});
