// Runs before each test file: a fresh database copied from the migrated template, a private
// data folder, and a failure on any unexpected console.error.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, inject, vi } from "vitest";
import { adminQuery, databaseUrl, dropDatabase, uniqueName } from "./db";

const databaseName = uniqueName("clib_test");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-data-"));

process.env.NODE_ENV = "test";
process.env.DATABASE_URL = databaseUrl(databaseName);
// The pooler project (vitest.config.ts): the app's queries go through PgBouncer in
// transaction mode, with no DIRECT_DATABASE_URL (the app must work without one).
const poolerPort = inject("poolerPort");
if (poolerPort) {
  const pooled = new URL(process.env.DATABASE_URL);
  pooled.hostname = "127.0.0.1";
  pooled.port = String(poolerPort);
  process.env.DATABASE_URL = pooled.toString();
}
process.env.DATA_DIR = dataDir;
process.env.SESSION_SECRET = "test-session-secret-test-session-secret";
process.env.APP_URL = "http://localhost:3999";
process.env.DATABASE_POOL_SIZE = "4";
// Several test files at once keep both cores busy: idle-only hashing threads (the production default)
// would wait for a quiet moment on every sign-in. tests/password-pool.test.ts and
// tests/server-cluster.test.ts check the idle policy itself.
process.env.PASSWORD_THREAD_PRIORITY ??= "low";

// Two files may copy the template at the same moment; PostgreSQL refuses the second one briefly.
for (let attempt = 0; ; attempt++) {
  try {
    await adminQuery(`CREATE DATABASE "${databaseName}" TEMPLATE "${inject("templateDatabase")}"`);
    break;
  } catch (error) {
    if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
    await new Promise((resolve) => setTimeout(resolve, 100 + attempt * 50));
  }
}

let consoleErrors: unknown[][] = [];
beforeAll(() => {
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    consoleErrors.push(args);
  });
});

afterEach(() => {
  const errors = consoleErrors;
  consoleErrors = [];
  if (errors.length > 0 && !(globalThis as { __allowConsoleError?: boolean }).__allowConsoleError) {
    throw new Error(`Unexpected console.error:\n${errors.map((args) => args.map(String).join(" ")).join("\n")}`);
  }
});

afterAll(async () => {
  const { db } = await import("~/db.server");
  const { appDatabaseSettled } = await import("./helpers");
  // Work the app started without awaiting it (a download record) finishes first: a query after
  // the disconnect would open a new pool that nothing closes.
  await appDatabaseSettled().catch(() => undefined);
  await db.$disconnect();
  // The pool's connections close on their own in a moment; ending them by force raced their
  // closing (through PgBouncer the server connections are the pooler's, so no grace there).
  await dropDatabase(databaseName, poolerPort ? 0 : 3_000);
  rmSync(dataDir, { recursive: true, force: true });
});
