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
// The CLI waits for its event loop to empty before it ends. The schema engine leaves a 10-second
// timer behind (its advisory lock timeout, never cleared), so every `migrate` would sit idle for
// 10 s after its work. With this variable the patched CLI (decision 007) exits as soon as its
// command returns; commands that keep serving (studio, dev) are left to end on their own.
if (!["studio", "dev"].includes(process.argv[2] ?? "")) env.PRISMA_CLI_EXIT_WHEN_DONE = "1";
// Migrations take a session-level advisory lock, which a transaction-mode pooler cannot keep:
// with a direct connection configured, the CLI uses it.
if (env.DIRECT_DATABASE_URL) env.DATABASE_URL = env.DIRECT_DATABASE_URL;
if (!env.DATABASE_URL) {
  // `generate` and `migrate diff --from-empty` need no database; the config still wants a URL.
  env.DATABASE_URL = "postgresql://unused@127.0.0.1:1/unused";
}
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: "inherit", env });
process.exit(result.status ?? 1);
