// Whether a database already has every migration of prisma/migrations, read from Prisma's own
// `_prisma_migrations` table. `npm start` asks this first and runs `prisma migrate deploy` only
// when something is missing or differs: the CLI takes about ten seconds even when it has nothing
// to do, most of a restart.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";

/** Each migration folder's name with the SHA-256 of its migration.sql, as Prisma records it. */
export function migrationChecksums(migrationsDir: string): Map<string, string> {
  const checksums = new Map<string, string>();
  for (const entry of readdirSync(migrationsDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sql = readFileSync(path.join(migrationsDir, entry.name, "migration.sql"));
    checksums.set(entry.name, createHash("sha256").update(sql).digest("hex"));
  }
  return checksums;
}

/**
 * True when every migration is applied, finished, not rolled back, with the checksum of its file,
 * and the database holds none that the folder lacks. Anything else (a fresh database, a pending
 * or failed migration, a database that cannot be read) answers false, and the CLI decides.
 */
export async function migrationsUpToDate(connectionString: string, migrationsDir: string): Promise<boolean> {
  const expected = migrationChecksums(migrationsDir);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished: boolean; rolled_back: boolean }>(
      `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back
         FROM _prisma_migrations`,
    );
    const applied = rows.filter((row) => !row.rolled_back);
    if (applied.length !== expected.size || applied.some((row) => !row.finished)) return false;
    return applied.every((row) => expected.get(row.migration_name) === row.checksum);
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
