// Test databases on the machine's PostgreSQL: one template built from the migrations per run,
// then one fresh copy per test file.
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";

export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
}

/** Runs the Prisma CLI (offline wrapper) with the given database. */
export function prismaCli(args: string[], url: string): Promise<string> {
  const root = path.resolve(import.meta.dirname, "..");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "scripts/prisma.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => (code === 0 ? resolve(output) : reject(new Error(`prisma ${args.join(" ")} failed:\n${output}`))));
  });
}

/** Creates a database from the migrations. */
export async function createMigratedDatabase(name: string): Promise<string> {
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = databaseUrl(name);
  await prismaCli(["migrate", "deploy"], url);
  return url;
}

/**
 * Drops a database. With `graceMs`, it first gives the database's connections that long to close
 * on their own: a forced drop ends each one with a FATAL error, and a connection of this very
 * process that is still closing may then report it where no one listens (an uncaught 57P01 that
 * fails the whole vitest run). Whatever is still connected after the grace is ended by force.
 */
export async function dropDatabase(name: string, graceMs = 0): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    try {
      await adminQuery(`DROP DATABASE IF EXISTS "${name}"`);
      return;
    } catch (error) {
      if (!/being accessed by other users/.test(String(error))) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
