// The servers the end-to-end suite drives, one per Playwright worker slot (e2e/site.ts); the
// argument is how many. Each slot gets a database on the machine's PostgreSQL, a data folder, fake
// sign-in providers and the built app on its port. The first slot's database is migrated and seeded
// with the demo content; every other slot gets a copy of that database (CREATE DATABASE ...
// TEMPLATE) and of its data folder, so the seed runs once. The servers then start side by side,
// and "e2e sites ready" on stdout tells Playwright that all of them answer. Everything is removed
// again on SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { workerSite, type WorkerSite } from "../e2e/site.ts";
import { adminQuery, createMigratedDatabase, databaseUrl, dropDatabase } from "../tests/db.ts";
import { appServerArgs, waitForHealth } from "./app-server.ts";
import { fakeProviderEnv, startFakeProviders, type FakeProviders } from "./fake-providers.ts";

const sites = Array.from({ length: Number(process.argv[2] ?? 1) }, (_, index) => workerSite(index));
const [first, ...copies] = sites as [WorkerSite, ...WorkerSite[]];

const servers: ChildProcess[] = [];
const fakeProviders: FakeProviders[] = [];
let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  for (const server of servers) server.kill("SIGTERM");
  await Promise.all(servers.filter((server) => server.exitCode === null).map((server) => new Promise((resolve) => server.once("exit", resolve))));
  await Promise.all(fakeProviders.map((providers) => providers.stop().catch(() => undefined)));
  for (const site of sites) {
    await dropDatabase(site.database).catch(() => undefined);
    rmSync(site.dataDir, { recursive: true, force: true });
  }
  process.exit(code);
}
process.on("SIGTERM", () => void stop(0));
process.on("SIGINT", () => void stop(0));

for (const site of sites) {
  rmSync(site.dataDir, { recursive: true, force: true });
  await dropDatabase(site.database);
}

// The first slot: migrations and the demo content, through the app's own modules.
mkdirSync(first.dataDir, { recursive: true });
Object.assign(process.env, e2eEnvironment(first));
await createMigratedDatabase(first.database);
const { db } = await import("../app/db.server.ts");
const { storage } = await import("../app/integrations/storage.server.ts");
const { seedDemoContent } = await import("../prisma/demo-content.ts");
await seedDemoContent(db, await storage());
// No connection may be left on a database PostgreSQL copies.
await db.$disconnect();

// The other slots: copies of the seeded database and of its stored files.
for (const site of copies) {
  await adminQuery(`CREATE DATABASE "${site.database}" TEMPLATE "${first.database}"`);
  cpSync(first.dataDir, site.dataDir, { recursive: true });
}

// Sign-in with every provider goes to fake providers (real OAuth redirects on localhost).
for (const site of sites) {
  const providers = await startFakeProviders();
  fakeProviders.push(providers);
  const { FAKE_PROVIDERS_URL: _fakeUrl, ...providerEnv } = fakeProviderEnv(providers.url);
  const server = spawn(process.execPath, appServerArgs(), { stdio: "inherit", env: { ...process.env, ...e2eEnvironment(site), ...providerEnv } });
  server.on("exit", (code) => void stop(code ?? 0));
  servers.push(server);
}

try {
  await Promise.all(sites.map((site, index) => waitForHealth(`${site.appUrl}/healthz`, servers[index]!)));
  console.log("e2e sites ready");
} catch (error) {
  console.error(error);
  await stop(1);
}

function e2eEnvironment(site: WorkerSite): Record<string, string> {
  return {
    NODE_ENV: "production",
    // The specs read the codes from DATA_DIR/mail (no SMTP server here).
    MAIL_TO_FILES: "true",
    PORT: String(site.port),
    APP_URL: site.appUrl,
    DATABASE_URL: databaseUrl(site.database),
    DATA_DIR: site.dataDir,
    SESSION_SECRET: "e2e-session-secret-e2e-session-secret-0123",
    DISABLE_JOBS: "1",
    // One process per server: each Playwright worker already has a server of its own, and a
    // cluster's extra workers would only add their start-up to the suite's CPU time
    // (tests/server-cluster.test.ts runs the default, one worker per core).
    WEB_CONCURRENCY: "1",
    // The browser, the server and PostgreSQL share two cores here: idle-only hashing threads
    // would make each spec's sign-in wait for a quiet moment. tests/server-cluster.test.ts runs
    // the production default (idle).
    PASSWORD_THREAD_PRIORITY: "low",
    CALLBACK_ORIGINS: site.appUrl,
    // Shared secrets of the shop and support-platform webhooks (e2e specs sign with them).
    KOFI_VERIFICATION_TOKEN: "e2e-kofi-token",
    PATREON_WEBHOOK_SECRET: "e2e-patreon-secret",
  };
}
