// Migration 0028_post_versions on data: a database at the migration before it, with a
// post that has a file, one without, and download records, then 0028 applied the way the app
// applies migrations (the patched driver adapter's script runner): each existing file becomes
// its post's first (and current) version, and the downloads of that version point at it.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminQuery, databaseUrl, dropDatabase, uniqueName } from "./db";

const name = uniqueName("clib_versions_mig");
const migrations = path.resolve(import.meta.dirname, "../prisma/migrations");
let adapter: Awaited<ReturnType<PrismaPg["connect"]>>;
let client: pg.Client;

const script = (folder: string) => readFileSync(path.join(migrations, folder, "migration.sql"), "utf8");

beforeAll(async () => {
  await adminQuery(`CREATE DATABASE "${name}"`);
  adapter = await new PrismaPg({ connectionString: databaseUrl(name) }).connect();
  client = new pg.Client({ connectionString: databaseUrl(name) });
  await client.connect();
  for (const folder of readdirSync(migrations)
    .filter((entry) => /^\d{4}_/.test(entry) && entry < "0028")
    .sort())
    await adapter.executeScript(script(folder));
}, 120_000);

afterAll(async () => {
  await client?.end();
  await adapter?.dispose();
  await dropDatabase(name);
});

describe("migration 0028_post_versions", () => {
  it("turns each existing post file into its first, current version and links its downloads", async () => {
    await client.query(`INSERT INTO users (id, email, number, updated_at) VALUES ('u1', 'u1@example.com', 1, now())`);
    await client.query(`
      INSERT INTO posts (id, title, drive_file_id, file_name, file_size, version, last_updated, updated_at)
      VALUES ('p1', 'With file', 'posts/p1/mod.zip', 'mod.zip', 1234, 'V2.1', '2025-03-04T05:06:07Z', now()),
             ('p2', 'No file', NULL, NULL, NULL, 'V1.0', NULL, now())`);
    await client.query(`
      INSERT INTO downloads (id, user_id, post_id, version, created_at)
      VALUES ('d1', 'u1', 'p1', 'V2.1', now()), ('d0', 'u1', 'p1', 'V2.0', now() - interval '30 days')`);

    await adapter.executeScript(script("0028_post_versions"));

    const versions = (await client.query(`SELECT * FROM post_versions ORDER BY post_id`)).rows;
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({
      post_id: "p1",
      label: "V2.1",
      notes: "",
      storage_key: "posts/p1/mod.zip",
      file_name: "mod.zip",
      size: "1234",
      sha256: null,
      content_hash: null,
      zip_entries: null,
      hidden: false,
    });
    expect((versions[0].created_at as Date).toISOString()).toBe("2025-03-04T05:06:07.000Z");
    const posts = (await client.query(`SELECT id, current_version_id FROM posts ORDER BY id`)).rows;
    expect(posts).toEqual([
      { id: "p1", current_version_id: versions[0].id },
      { id: "p2", current_version_id: null },
    ]);
    const downloads = (await client.query(`SELECT id, version_id FROM downloads ORDER BY id`)).rows;
    // Only the download of the version that became a row is linked; an older label stays unlinked.
    expect(downloads).toEqual([
      { id: "d0", version_id: null },
      { id: "d1", version_id: versions[0].id },
    ]);
  });
});
