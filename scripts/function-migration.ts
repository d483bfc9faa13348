// `npm run db:function-migration -- <name>`: writes prisma/migrations/<next number>_<name> with the
// database functions whose source in prisma/functions differs from what the migrations define.
// It migrates a scratch database on the PostgreSQL of TEST_DATABASE_ADMIN_URL (the tests' default:
// postgresql://postgres@127.0.0.1:5432/postgres), compares, writes the migration, applies it to the
// scratch database and checks that nothing differs any more, then drops the database.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { functionDrift, functionMigrationSql } from "./database-functions";

const root = path.resolve(import.meta.dirname, "..");
const migrationsDir = path.join(root, "prisma/migrations");
const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("Usage: npm run db:function-migration -- <name in lower_snake_case>");
  process.exit(2);
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function migrate(url: string): void {
  const result = spawnSync(process.execPath, [path.join(root, "scripts/prisma.mjs"), "migrate", "deploy"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, DIRECT_DATABASE_URL: url },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`prisma migrate deploy failed:\n${result.stdout}${result.stderr}`);
}

const scratch = `clib_functions_${randomBytes(4).toString("hex")}`;
const scratchUrl = new URL(adminUrl);
scratchUrl.pathname = `/${scratch}`;

await admin(`CREATE DATABASE "${scratch}"`);
try {
  migrate(scratchUrl.toString());
  const client = new pg.Client({ connectionString: scratchUrl.toString() });
  await client.connect();
  let written: string | null = null;
  try {
    const drift = await functionDrift(client);
    if (drift.withoutSource.length > 0) {
      console.error(`These functions have no source in prisma/functions: ${drift.withoutSource.join(", ")}. Add one file for each first.`);
      process.exitCode = 1;
    } else if (drift.changed.length === 0) {
      console.log("Every function in prisma/functions is as the migrations define it: no migration needed.");
    } else {
      const last = readdirSync(migrationsDir)
        .map((entry) => /^(\d{4})_/.exec(entry)?.[1])
        .filter((number): number is string => number !== undefined)
        .sort()
        .at(-1);
      const folder = `${String(Number(last ?? "0") + 1).padStart(4, "0")}_${name}`;
      const sql = functionMigrationSql(drift.changed);
      mkdirSync(path.join(migrationsDir, folder));
      writeFileSync(path.join(migrationsDir, folder, "migration.sql"), sql);
      written = folder;
      await client.query(sql);
      const after = await functionDrift(client);
      if (after.changed.length > 0) throw new Error(`after ${folder}, these still differ: ${after.changed.map((fn) => fn.file).join(", ")}`);
      console.log(`Wrote prisma/migrations/${folder}/migration.sql: ${drift.changed.map((fn) => fn.name).join(", ")}.`);
    }
  } finally {
    await client.end();
  }
  if (written) console.log("Apply it with `npm run db:migrate` (npm start applies it on its next start).");
} finally {
  await admin(`DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`);
}
