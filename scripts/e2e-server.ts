// A server the end-to-end suite drives, for the worker slot given as the argument (e2e/site.ts):
// a fresh database on the machine's PostgreSQL, demo content, and the built app on the slot's
// port. Everything is removed again on SIGTERM.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createMigratedDatabase, databaseUrl, dropDatabase } from "../tests/db.ts";
import { workerSite } from "../e2e/site.ts";
import { appServerArgs } from "./app-server.ts";

const site = workerSite(Number(process.argv[2] ?? 0));
const port = String(site.port);
const databaseName = site.database;
// The specs of this slot read the mail written to DATA_DIR/mail and the files in DATA_DIR/files.
const dataDir = site.dataDir;
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

await dropDatabase(databaseName);
const url = await createMigratedDatabase(databaseName);
Object.assign(process.env, e2eEnvironment(url, dataDir));

const { db } = await import("../app/db.server.ts");
const { storage } = await import("../app/integrations/storage.server.ts");
const { seedDemoContent } = await import("../prisma/demo-content.ts");
await seedDemoContent(db, await storage());
await db.$disconnect();

// Sign-in with every provider goes to the fake providers (real OAuth redirects on localhost).
const { startFakeProviders, fakeProviderEnv } = await import("./fake-providers.ts");
const fakeProviders = await startFakeProviders();
const { FAKE_PROVIDERS_URL: _fakeUrl, ...providerEnv } = fakeProviderEnv(fakeProviders.url);
Object.assign(process.env, providerEnv);

const server = spawn(process.execPath, appServerArgs(), {
  stdio: "inherit",
  env: process.env,
});

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  server.kill("SIGTERM");
  await fakeProviders.stop().catch(() => undefined);
  await dropDatabase(databaseName).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}
process.on("SIGTERM", () => void stop(0));
process.on("SIGINT", () => void stop(0));
server.on("exit", (code) => void stop(code ?? 0));

function e2eEnvironment(databaseUrlValue: string, data: string): Record<string, string> {
  return {
    NODE_ENV: "production",
    // The specs read the codes from DATA_DIR/mail (no SMTP server here).
    MAIL_TO_FILES: "true",
    PORT: port,
    APP_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: databaseUrlValue,
    DATA_DIR: data,
    SESSION_SECRET: "e2e-session-secret-e2e-session-secret-0123",
    DISABLE_JOBS: "1",
    // The browser, the server and PostgreSQL share two cores here: idle-only hashing threads
    // would make each spec's sign-in wait for a quiet moment. tests/server-cluster.test.ts runs
    // the production default (idle).
    PASSWORD_THREAD_PRIORITY: "low",
    CALLBACK_ORIGINS: `http://127.0.0.1:${port}`,
    // Shared secrets of the shop and support-platform webhooks (e2e specs sign with them).
    KOFI_VERIFICATION_TOKEN: "e2e-kofi-token",
    PATREON_WEBHOOK_SECRET: "e2e-patreon-secret",
  };
}

export { databaseUrl };
