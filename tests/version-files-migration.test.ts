// Migration 0060_version_files on data: a database at the migration before it with a post, its
// version and download records, then 0060 applied the way the app applies migrations. The post's
// one file is its main file, unchanged (key, hashes, version row), its downloads keep counting as
// downloads of the main file, and a download recorded the old way still works.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminQuery, databaseUrl, dropDatabase, uniqueName } from "./db";

const name = uniqueName("clib_files_mig");
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
    .filter((entry) => /^\d{4}_/.test(entry) && entry < "0060")
    .sort())
    await adapter.executeScript(script(folder));
}, 180_000);

afterAll(async () => {
  await client?.end();
  await adapter?.dispose();
  await dropDatabase(name);
});

describe("migration 0060_version_files", () => {
  it("keeps each post's one file as its main file, with its downloads", async () => {
    await client.query(`INSERT INTO users (id, email, number, updated_at) VALUES ('u1', 'u1@example.com', 1, now())`);
    await client.query(`
      INSERT INTO posts (id, title, drive_file_id, file_name, file_size, version, updated_at)
      VALUES ('p1', 'With file', 'posts/p1/mod.zip', 'mod.zip', 1234, 'V2.1', now())`);
    await client.query(`
      INSERT INTO post_versions (id, post_id, label, storage_key, file_name, size, sha256, content_hash)
      VALUES ('v1', 'p1', 'V2.1', 'posts/p1/mod.zip', 'mod.zip', 1234, '${"a".repeat(64)}', '${"b".repeat(64)}')`);
    await client.query(`UPDATE posts SET current_version_id = 'v1' WHERE id = 'p1'`);
    await client.query(`SELECT record_download('d1', 'u1', 'p1', 'V2.1', 'v1', now()::timestamp(3), 'TIER', 86400000)`);
    const before = (await client.query(`SELECT * FROM post_versions`)).rows;

    await adapter.executeScript(script("0060_version_files"));

    expect((await client.query(`SELECT * FROM post_versions`)).rows).toEqual(before);
    expect((await client.query(`SELECT count(*)::int AS n FROM version_files`)).rows[0].n).toBe(0);
    expect((await client.query(`SELECT id, version_id, file_id FROM downloads`)).rows).toEqual([{ id: "d1", version_id: "v1", file_id: null }]);
    expect((await client.query(`SELECT drive_file_id, file_name, file_size, current_version_id FROM posts WHERE id = 'p1'`)).rows[0]).toEqual({
      drive_file_id: "posts/p1/mod.zip",
      file_name: "mod.zip",
      file_size: "1234",
      current_version_id: "v1",
    });
    // The old call (no file) still records, once per window, as the main file's download.
    const again = await client.query(`SELECT record_download('d2', 'u1', 'p1', 'V2.1', 'v1', now()::timestamp(3), 'TIER', 86400000) AS recorded`);
    expect(again.rows[0].recorded).toBe(false);
    await client.query(
      `INSERT INTO version_files (id, version_id, role, label, storage_key, file_name, size, sha256, content_hash) VALUES ('f1', 'v1', 'variant', 'Alpha', 'posts/p1/alpha.zip', 'alpha.zip', 10, 'x', 'x')`,
    );
    const variant = await client.query(`SELECT record_download('d3', 'u1', 'p1', 'V2.1', 'v1', now()::timestamp(3), 'TIER', 86400000, 'f1') AS recorded`);
    expect(variant.rows[0].recorded).toBe(true);
  });
});
