// `npm run backup [ARCHIVE]` and `npm run restore ARCHIVE`: one .tar.gz holding the database and
// the stored files, on the embedded default (DATA_DIR/postgres, while `npm start` runs or not) as
// with DATABASE_URL, and with local files (DATA_DIR/files) as with S3 storage.
//
// The database goes in as one JSON line per row and table, read in one snapshot, rather than as
// a pg_dump: the embedded distribution ships no pg_dump, and a system's older one refuses the
// embedded PostgreSQL 17. The schema is the migrations': a restore applies them as `npm start`
// does (so it needs this version's migrations to be the archive's), then loads the rows.
//
// Archive layout: manifest.json, database/<table>.jsonl, files/<storage key>.
import { spawnSync } from "node:child_process";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { migrationChecksums } from "./migration-state.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FORMAT = "creator-library-backup/1";
const BATCH = 500;

type Manifest = {
  format: typeof FORMAT;
  createdAt: string;
  migrations: string[];
  tables: { name: string; rows: number }[];
  sequences: { name: string; value: string | null }[];
  files: number;
};

/** A refusal or failure in words a person can act on: printed alone, exit code 1. */
class BackupError extends Error {}

type Files = { list: () => AsyncGenerator<string>; read: (key: string) => Promise<Readable>; put: (key: string, file: string) => Promise<void> };

function loadEnvironment() {
  if (existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));
  for (const [name, value] of Object.entries(process.env)) if (value?.trim() === "") delete process.env[name];
  process.env.DATA_DIR = path.resolve(root, process.env.DATA_DIR ?? "data");
}

/** The configured file storage: DATA_DIR/files, or the S3 bucket (STORAGE_DRIVER=s3). */
async function fileStorage(): Promise<Files> {
  if (process.env.STORAGE_DRIVER === "s3") {
    if (!process.env.S3_BUCKET) throw new BackupError("S3_BUCKET is required when STORAGE_DRIVER=s3");
    const { S3Storage } = await import("../app/integrations/s3-storage.server.ts");
    const s3 = await S3Storage.create({
      endpoint: process.env.S3_ENDPOINT,
      region: process.env.S3_REGION ?? "us-east-1",
      bucket: process.env.S3_BUCKET,
      accessKeyId: process.env.S3_ACCESS_KEY_ID,
      secretAccessKey: process.env.S3_SECRET_ACCESS_KEY,
      forcePathStyle: ["true", "1"].includes(process.env.S3_FORCE_PATH_STYLE ?? ""),
      timeoutMs: Number(process.env.S3_TIMEOUT_MS) || undefined,
    });
    return { list: () => s3.keys(), read: (key) => s3.read(key), put: async (key, file) => void (await s3.put(key, createReadStream(file))) };
  }
  const { LocalStorage } = await import("../app/integrations/storage.server.ts");
  const folder = path.join(process.env.DATA_DIR!, "files");
  const local = new LocalStorage(folder);
  return { list: () => filesIn(folder), read: (key) => local.read(key), put: async (key, file) => void (await local.put(key, createReadStream(file))) };
}

/** Every file under `folder` as a key relative to it (a half-written `.part` file excluded). */
async function* filesIn(folder: string, prefix = ""): AsyncGenerator<string> {
  let entries;
  try {
    entries = await readdir(path.join(folder, prefix), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const key = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) yield* filesIn(folder, key);
    else if (entry.isFile() && !entry.name.endsWith(".part")) yield key;
  }
}

/**
 * The database to read or fill: DATABASE_URL's (DIRECT_DATABASE_URL when set), else the embedded
 * one in DATA_DIR: the running `npm start`'s, or one started here for the time of the command.
 */
async function openDatabase(purpose: "backup" | "restore"): Promise<{ url: string; close: () => Promise<void> }> {
  const url = process.env.DIRECT_DATABASE_URL ?? process.env.DATABASE_URL;
  if (url) return { url, close: async () => undefined };
  const dataDir = process.env.DATA_DIR!;
  const embedded = await import("./embedded-postgres.ts");
  if (purpose === "backup") {
    const running = embedded.runningEmbeddedUrl(dataDir);
    if (running) return { url: running, close: async () => undefined };
    if (!existsSync(path.join(dataDir, "postgres", "PG_VERSION")))
      throw new BackupError(`there is no database in ${path.join(dataDir, "postgres")} to back up`);
  }
  try {
    const started = await embedded.startEmbeddedPostgres(dataDir);
    return { url: started.url, close: started.stop };
  } catch (error) {
    if (error instanceof embedded.EmbeddedDatabaseError) throw new BackupError(`the embedded PostgreSQL could not start: ${error.message}`);
    throw error;
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The tables of the public schema. */
async function tablesOf(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`,
  );
  return rows.map((row) => row.name);
}

async function backup(archiveArg: string | undefined): Promise<void> {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  const archive = path.resolve(process.cwd(), archiveArg ?? path.join(root, "backups", `creator-library-${stamp}.tar.gz`));
  if (existsSync(archive)) throw new BackupError(`${archive} already exists`);
  await mkdir(path.dirname(archive), { recursive: true });
  const staging = await mkdtemp(`${archive}.partial-`);
  const files = await fileStorage();
  const database = await openDatabase("backup");
  try {
    await mkdir(path.join(staging, "database"));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const manifest: Manifest = { format: FORMAT, createdAt: new Date().toISOString(), migrations: [], tables: [], sequences: [], files: 0 };
    try {
      // One snapshot for every table: the archive is consistent even while the site runs.
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const { rows: migrations } = await client.query<{ name: string }>(
        `SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
      );
      manifest.migrations = migrations.map((row) => row.name);
      for (const table of await tablesOf(client)) {
        const out = createWriteStream(path.join(staging, "database", `${table}.jsonl`));
        let rows = 0;
        await client.query(`DECLARE backup_rows NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS row FROM public.${quoted(table)} t`);
        for (;;) {
          const { rows: batch } = await client.query<{ row: string }>(`FETCH ${BATCH} FROM backup_rows`);
          if (batch.length === 0) break;
          rows += batch.length;
          if (!out.write(batch.map((row) => `${row.row}\n`).join(""))) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
        }
        await client.query("CLOSE backup_rows");
        await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
        manifest.tables.push({ name: table, rows });
      }
      const { rows: sequences } = await client.query<{ name: string; value: string | null }>(
        `SELECT sequencename AS name, last_value::text AS value FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`,
      );
      manifest.sequences = sequences;
      await client.query("COMMIT");
    } finally {
      await client.end();
    }
    for await (const key of files.list()) {
      const target = path.join(staging, "files", key);
      await mkdir(path.dirname(target), { recursive: true });
      await pipeline(await files.read(key), createWriteStream(target));
      manifest.files++;
    }
    await writeFile(path.join(staging, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const partial = `${staging}.tar.gz`;
    const tar = spawnSync("tar", ["-czf", partial, "-C", staging, "."], { encoding: "utf8" });
    if (tar.status !== 0) throw new BackupError(`tar failed: ${tar.stderr || tar.error?.message}`);
    // It holds password hashes and sessions: for its owner only.
    await chmod(partial, 0o600);
    await rename(partial, archive);
    const rows = manifest.tables.reduce((sum, table) => sum + table.rows, 0);
    console.log(`Backup written to ${archive}: ${rows} rows in ${manifest.tables.length} tables, ${manifest.files} files.`);
  } finally {
    await database.close();
    await rm(staging, { recursive: true, force: true });
    await rm(`${staging}.tar.gz`, { force: true });
  }
}

/** Applies this version's migrations to an empty database, as `npm start` does. */
function migrate(url: string): void {
  const result = spawnSync(process.execPath, [path.join(root, "scripts/prisma.mjs"), "migrate", "deploy"], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: url, DIRECT_DATABASE_URL: url },
  });
  if (result.status !== 0) throw new BackupError(`the migrations failed:\n${result.stdout}${result.stderr}`);
}

/** Whether a database holds tables of its own (anything in the public schema). */
async function tableCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')`,
    );
    return rows[0]!.count;
  } finally {
    await client.end();
  }
}

async function restore(archiveArg: string | undefined): Promise<void> {
  if (!archiveArg) throw new BackupError("name the archive to restore: npm run restore ARCHIVE");
  const archive = path.resolve(process.cwd(), archiveArg);
  if (!existsSync(archive)) throw new BackupError(`${archive} does not exist`);

  // Refused before anything is written: the target must be empty.
  const dataDir = process.env.DATA_DIR!;
  const embedded = !process.env.DATABASE_URL;
  if (embedded && existsSync(dataDir) && (await readdir(dataDir)).length > 0) {
    throw new BackupError(`${dataDir} is not empty; restore into an empty DATA_DIR (set DATA_DIR to a new folder)`);
  }
  if (!embedded) {
    const count = await tableCount(process.env.DIRECT_DATABASE_URL ?? process.env.DATABASE_URL!).catch((error: Error) => {
      throw new BackupError(`the database of DATABASE_URL cannot be reached: ${error.message}`);
    });
    if (count > 0) throw new BackupError(`the database of DATABASE_URL is not empty (${count} tables); restore into an empty database`);
  }
  const files = await fileStorage();
  if (!(await files.list().next()).done) {
    const where = process.env.STORAGE_DRIVER === "s3" ? `the bucket ${process.env.S3_BUCKET}` : path.join(dataDir, "files");
    throw new BackupError(`${where} is not empty; restore into empty file storage`);
  }

  const staging = await mkdtemp(`${archive}.restore-`);
  try {
    const tar = spawnSync("tar", ["-xzf", archive, "-C", staging], { encoding: "utf8" });
    if (tar.status !== 0) throw new BackupError(`${archive} cannot be read as a backup: ${tar.stderr.trim() || tar.error?.message}`);
    const manifest = JSON.parse(await readFile(path.join(staging, "manifest.json"), "utf8").catch(() => "{}")) as Manifest;
    if (manifest.format !== FORMAT) throw new BackupError(`${archive} is not a backup made by npm run backup`);
    const here = [...migrationChecksums(path.join(root, "prisma/migrations")).keys()].sort();
    if (here.join("\n") !== manifest.migrations.join("\n")) {
      throw new BackupError(
        `the archive was made at migration ${manifest.migrations.at(-1)}, this version is at ${here.at(-1)}: restore it with the version that made it, then start this one to migrate`,
      );
    }

    const database = await openDatabase("restore");
    try {
      migrate(database.url);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query("BEGIN");
        // The archive's rows replace whatever the migrations wrote, as they are: the tables'
        // triggers (library versions, insights) are off during the load. Foreign keys (some
        // tables point at each other) are dropped for it and added again after it, which checks
        // every row. Both need only the tables' owner, not a superuser.
        const tables = await tablesOf(client);
        for (const table of tables) await client.query(`ALTER TABLE public.${quoted(table)} DISABLE TRIGGER USER`);
        await client.query(`TRUNCATE ${tables.map((table) => `public.${quoted(table)}`).join(", ")} CASCADE`);
        const { rows: foreignKeys } = await client.query<{ table: string; name: string; definition: string }>(
          `SELECT c.relname AS table, k.conname AS name, pg_get_constraintdef(k.oid) AS definition FROM pg_constraint k
             JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE k.contype = 'f' AND n.nspname = 'public'`,
        );
        for (const key of foreignKeys) await client.query(`ALTER TABLE public.${quoted(key.table)} DROP CONSTRAINT ${quoted(key.name)}`);
        for (const { name, rows } of manifest.tables) {
          if (!tables.includes(name)) throw new BackupError(`the archive holds table ${name}, which this version does not have`);
          const { rows: columns } = await client.query<{ name: string }>(
            `SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
            [`public.${quoted(name)}`],
          );
          const list = columns.map((column) => quoted(column.name)).join(", ");
          const insert = `INSERT INTO public.${quoted(name)} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM json_populate_recordset(NULL::public.${quoted(name)}, $1::json)`;
          let loaded = 0;
          let batch: string[] = [];
          const flush = async () => {
            if (batch.length === 0) return;
            await client.query(insert, [`[${batch.join(",")}]`]);
            loaded += batch.length;
            batch = [];
          };
          const lines = readline.createInterface({ input: createReadStream(path.join(staging, "database", `${name}.jsonl`)), crlfDelay: Infinity });
          for await (const line of lines) {
            if (!line) continue;
            batch.push(line);
            if (batch.length >= BATCH) await flush();
          }
          await flush();
          if (loaded !== rows) throw new BackupError(`table ${name}: the archive lists ${rows} rows but holds ${loaded}`);
        }
        for (const table of tables) await client.query(`ALTER TABLE public.${quoted(table)} ENABLE TRIGGER USER`);
        for (const key of foreignKeys) await client.query(`ALTER TABLE public.${quoted(key.table)} ADD CONSTRAINT ${quoted(key.name)} ${key.definition}`);
        for (const sequence of manifest.sequences) {
          if (sequence.value !== null) await client.query("SELECT setval($1::regclass, $2::bigint, true)", [`public.${quoted(sequence.name)}`, sequence.value]);
        }
        await client.query("COMMIT");
        // Fresh statistics, so the first queries of the restored site are planned well.
        await client.query("ANALYZE");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        await client.end();
      }
    } finally {
      await database.close();
    }

    let restored = 0;
    for await (const key of filesIn(path.join(staging, "files"))) {
      await files.put(key, path.join(staging, "files", key));
      restored++;
    }
    const rows = manifest.tables.reduce((sum, table) => sum + table.rows, 0);
    console.log(`Restored ${archive}: ${rows} rows in ${manifest.tables.length} tables, ${restored} files.`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

loadEnvironment();
const [command, archive] = process.argv.slice(2);
try {
  if (command === "backup") await backup(archive);
  else if (command === "restore") await restore(archive);
  else throw new BackupError("usage: npm run backup [ARCHIVE] | npm run restore ARCHIVE");
  process.exit(0);
} catch (error) {
  if (!(error instanceof BackupError)) throw error;
  console.error(`${command === "restore" ? "Restore" : "Backup"} failed: ${error.message}.`);
  process.exit(1);
}
