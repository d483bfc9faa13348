#!/usr/bin/env node
// Runs the Prisma CLI offline. With the JavaScript schema engine and a driver adapter the native
// engines are never executed, but the CLI still looks for them and would try to download them
// unless these variables point at an existing file. They are set here only, never for the app.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const cli = require.resolve("prisma/build/index.js");
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
  PRISMA_QUERY_ENGINE_LIBRARY: process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  // No update check or usage report: the CLI would otherwise leave a child process trying to reach Prisma's servers.
  CHECKPOINT_DISABLE: "1",
};
// Migrations take a session-level advisory lock, which a transaction-mode pooler cannot keep:
// with a direct connection configured, the CLI uses it.
if (env.DIRECT_DATABASE_URL) env.DATABASE_URL = env.DIRECT_DATABASE_URL;
if (!env.DATABASE_URL) {
  // `generate` and `migrate diff --from-empty` need no database; the config still wants a URL.
  env.DATABASE_URL = "postgresql://unused@127.0.0.1:1/unused";
}
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: "inherit", env });
process.exit(result.status ?? 1);
