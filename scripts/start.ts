// `npm start`: runs the site. With no DATABASE_URL it starts an embedded PostgreSQL kept in
// DATA_DIR/pglite; either way it applies migrations, seeds demo content once, then serves the
// built app with server/index.ts.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { appServerArgs } from "./app-server.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));
process.env.NODE_ENV ??= "production";

const dataDir = path.resolve(root, process.env.DATA_DIR ?? "data");
process.env.DATA_DIR = dataDir;

async function localSecret(file: string): Promise<string> {
  const { readFile, writeFile, mkdir } = await import("node:fs/promises");
  const { randomBytes } = await import("node:crypto");
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    const secret = randomBytes(32).toString("hex");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, secret, { mode: 0o600 });
    return secret;
  }
}

let embedded: { url: string; stop: () => Promise<void> } | undefined;
if (!process.env.DATABASE_URL) {
  const { startEmbeddedPostgres } = await import("./embedded-postgres.ts");
  embedded = await startEmbeddedPostgres(path.join(dataDir, "pglite"));
  process.env.DATABASE_URL = embedded.url;
  // PGlite runs one query at a time; a small pool avoids queueing many idle connections.
  process.env.DATABASE_POOL_SIZE ??= "2";
  // Zero setup: a random session secret, created once and kept beside the embedded database.
  process.env.SESSION_SECRET ??= await localSecret(path.join(dataDir, "session-secret"));
  console.log(`Embedded PostgreSQL (PGlite) in ${path.relative(root, path.join(dataDir, "pglite"))}`);
}

// Local demo: providers without a client id sign in through the fake providers, so the
// "Continue With" buttons work without real OAuth apps. Only for a demo (NODE_ENV other than
// production, or the embedded database), never a real deployment; FAKE_PROVIDERS=false opts out.
let fakeProviders: { stop: () => Promise<void> } | undefined;
{
  const missing = (["PATREON", "GOOGLE", "DISCORD"] as const).filter((name) => !process.env[`${name}_CLIENT_ID`]);
  const demo = process.env.NODE_ENV !== "production" || embedded !== undefined;
  if (missing.length > 0 && demo && process.env.FAKE_PROVIDERS !== "false") {
    const { startFakeProviders, fakeProviderEnv } = await import("./fake-providers.ts");
    const fake = await startFakeProviders();
    fakeProviders = fake;
    for (const [key, value] of Object.entries(fakeProviderEnv(fake.url))) {
      const provider = key.split("_")[0]!;
      if ((missing as readonly string[]).includes(provider)) process.env[key] = value;
    }
    if (process.env.NODE_ENV !== "production") process.env.FAKE_PROVIDERS_URL = fake.url;
    console.log(`Fake sign-in providers for ${missing.join(", ").toLowerCase()} at ${fake.url} (local demo only).`);
  }
}

const { parseEnv } = await import("../app/env.server.ts");
let config;
try {
  config = parseEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  await embedded?.stop();
  process.exit(1);
}

// Asynchronous on purpose: the embedded database answers from this process's event loop.
const migrated = await new Promise<boolean>((resolve) => {
  const migrate = spawn(process.execPath, [path.join(root, "scripts/prisma.mjs"), "migrate", "deploy"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env,
  });
  let output = "";
  migrate.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  migrate.on("exit", (code) => {
    if (code !== 0) process.stdout.write(output);
    else console.log(/No pending migrations/.test(output) ? "Database is up to date." : "Database migrations applied.");
    resolve(code === 0);
  });
});
if (!migrated) {
  console.error("Database migrations failed.");
  await embedded?.stop();
  process.exit(1);
}

{
  const { db } = await import("../app/db.server.ts");
  const { storage } = await import("../app/integrations/storage.server.ts");
  const { seedDemoContent, DEMO_ADMIN } = await import("../prisma/demo-content.ts");
  if (process.env.SEED_DEMO !== "false" && (await seedDemoContent(db, await storage()))) {
    console.log(`Demo content seeded. Demo admin: ${DEMO_ADMIN.email} / ${DEMO_ADMIN.password}`);
  }
  await db.$disconnect();
}

// server/index.ts: remix-serve's duties plus security headers, CSRF and body-size checks.
const server = spawn(process.execPath, appServerArgs(), {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, PORT: String(config.PORT) },
});
server.stdout.on("data", (chunk: Buffer) => {
  const text = chunk.toString();
  process.stdout.write(text.includes("[server]") ? `Creator Library is running at ${config.APP_URL}\n` : text);
});

async function shutdown(code: number) {
  await fakeProviders?.stop();
  await embedded?.stop();
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => server.kill(signal));
}
server.on("exit", (code) => void shutdown(code ?? 0));
