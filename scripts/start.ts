// `npm start`: runs the site. It builds the app when the sources changed since the last build.
// `npm run dev` (--dev): the same start, but instead of a build it serves app/ through Vite's dev
// server with hot module replacement (scripts/dev-server.ts), in development mode.
// With no DATABASE_URL it starts an embedded PostgreSQL kept in DATA_DIR/postgres; either way it
// applies pending migrations, seeds demo content once, then serves the built app with
// server/index.ts. Ctrl-C (or SIGTERM/SIGINT/SIGHUP to this process) stops the app first, once the
// requests in flight are answered, and the embedded database after it. Killed outright, it leaves
// nothing running: both servers get a parent-death signal.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { appServerArgs, appServerEnv, ensureAppBuilt, portTaken } from "./app-server.ts";
import { isFreshSite } from "../prisma/fresh-site.ts";
import { migrationsUpToDate } from "./migration-state.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));
// A variable set to nothing (`HOST=` in a .env copied from .env.example) counts as unset.
for (const [name, value] of Object.entries(process.env)) if (value?.trim() === "") delete process.env[name];
// What the person asked for, before the default below: an explicit production never runs the demo.
const requestedNodeEnv = process.env.NODE_ENV;
const devMode = process.argv.includes("--dev");
process.env.NODE_ENV ??= devMode ? "development" : "production";

// The fake sign-in providers sign anyone in as any email: never beside an explicit production.
if (process.env.FAKE_PROVIDERS === "true" && requestedNodeEnv === "production") {
  console.error("FAKE_PROVIDERS=true is refused with NODE_ENV=production: the fake providers sign anyone in as any email.");
  process.exit(1);
}

const dataDir = path.resolve(root, process.env.DATA_DIR ?? "data");
process.env.DATA_DIR = dataDir;

let embedded: { url: string; stop: () => Promise<void> } | undefined;
let fakeProviders: { stop: () => Promise<void> } | undefined;
let server: ChildProcess | undefined;
let stopping = false;

/** Stops what this script started, the database last, and exits. */
async function shutdown(code: number): Promise<never> {
  stopping = true;
  await fakeProviders?.stop().catch(() => undefined);
  await embedded?.stop();
  process.exit(code);
}

// The terminal sends Ctrl-C to the app server too; it answers the requests in flight and exits,
// and only then does the database stop (see the server's exit handler below). SIGTERM or SIGINT
// sent to this process alone (systemd, Docker, a process manager) is passed on to the server;
// a closed terminal (SIGHUP) stops it the same way.
function stopOn(signal: NodeJS.Signals) {
  if (server && server.exitCode === null) server.kill(signal === "SIGHUP" ? "SIGTERM" : signal);
  else if (!stopping) void shutdown(130);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stopOn(signal));

// Whoever started this process (npm, a shell) killed with SIGKILL: stop as on SIGTERM rather
// than run on unowned.
{
  const parent = process.ppid;
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  };
  if (parent > 1) {
    const watch = setInterval(() => {
      if (alive(parent)) return;
      clearInterval(watch);
      stopOn("SIGTERM");
    }, 1000);
    watch.unref();
  }
}

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

/** A path as short as it can be said: relative inside the working folder, absolute outside it. */
const shown = (file: string) => {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") ? relative : file;
};

// A second start on the same data is refused before it touches anything (the build included);
// a database left running by a start that was killed is stopped, and this start owns the data.
if (!process.env.DATABASE_URL) {
  const { claimDataDir, releaseDataDir } = await import("./embedded-postgres.ts");
  try {
    await claimDataDir(dataDir);
    process.on("exit", () => releaseDataDir(dataDir));
  } catch (error) {
    console.error(`Could not start the embedded PostgreSQL: ${(error as Error).message}. To use a PostgreSQL server of your own instead, set DATABASE_URL.`);
    process.exit(1);
  }
}

// A port another program holds is said at once, not after the build and the database, as a stack trace.
{
  const port = Number(process.env.PORT ?? 3000);
  if (Number.isInteger(port) && port > 0 && port < 65_536 && (await portTaken(port, process.env.HOST))) {
    console.error(`Port ${port} is already in use by another program. Stop it, or set PORT to a free port (PORT=3001 npm start).`);
    process.exit(1);
  }
}

try {
  if (!devMode) ensureAppBuilt(process.env.REMIX_BUILD_DIR, (line) => console.log(line));
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

if (!process.env.DATABASE_URL) {
  const { startEmbeddedPostgres } = await import("./embedded-postgres.ts");
  if (existsSync(path.join(dataDir, "pglite"))) {
    console.log(
      `Note: ${shown(path.join(dataDir, "pglite"))} is the database of an earlier version (PGlite) and is no longer read; the demo now starts fresh in ${shown(path.join(dataDir, "postgres"))}, so delete the old folder when you no longer need it.`,
    );
  }
  try {
    embedded = await startEmbeddedPostgres(dataDir);
  } catch (error) {
    console.error(`Could not start the embedded PostgreSQL: ${(error as Error).message}. To use a PostgreSQL server of your own instead, set DATABASE_URL.`);
    process.exit(1);
  }
  process.env.DATABASE_URL = embedded.url;
  // Zero setup: a random session secret, created once and kept beside the embedded database.
  process.env.SESSION_SECRET ??= await localSecret(path.join(dataDir, "session-secret"));
  console.log(`Embedded PostgreSQL in ${shown(path.join(dataDir, "postgres"))}`);
  // The local demo has no mail server: codes are written to DATA_DIR/mail (0600 files) so that
  // sign-up and password reset work. Never when NODE_ENV=production was asked for.
  if (!process.env.SMTP_URL && requestedNodeEnv !== "production") {
    process.env.MAIL_TO_FILES ??= "true";
    console.log(`Mail is not sent (no SMTP_URL): each message is written to ${shown(path.join(dataDir, "mail"))}.`);
  }
}

// Local demo: providers without a client id sign in through the fake providers, so the
// "Continue With" buttons work without real OAuth apps. They sign anyone in as any email, so
// they run only for an explicit local demo: the embedded database or NODE_ENV=development or
// test, and never when NODE_ENV=production was asked for; FAKE_PROVIDERS=true|false overrides.
{
  const missing = (["PATREON", "GOOGLE", "DISCORD"] as const).filter((name) => !process.env[`${name}_CLIENT_ID`]);
  const flag = process.env.FAKE_PROVIDERS;
  const localDemo = flag === "true" || (flag !== "false" && requestedNodeEnv !== "production" && (embedded !== undefined || requestedNodeEnv !== undefined));
  if (missing.length > 0 && localDemo) {
    const { startFakeProviders, fakeProviderEnv } = await import("./fake-providers.ts");
    const fake = await startFakeProviders();
    fakeProviders = fake;
    for (const [key, value] of Object.entries(fakeProviderEnv(fake.url))) {
      const provider = key.split("_")[0]!;
      if ((missing as readonly string[]).includes(provider)) process.env[key] = value;
    }
    if (process.env.NODE_ENV !== "production") process.env.FAKE_PROVIDERS_URL = fake.url;
    console.log(
      `LOCAL DEMO: sign-in with ${missing.join(", ").toLowerCase()} goes to fake providers at ${fake.url}, which sign anyone in as any email. ` +
        "Do not expose this server; a real deployment sets NODE_ENV=production and the providers' client ids.",
    );
  }
}

const { parseEnv } = await import("../app/env.server.ts");
let config: ReturnType<typeof parseEnv> | undefined;
try {
  config = parseEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  await shutdown(1);
}

// The CLI runs only when a migration is missing or differs; it takes about ten seconds even with
// nothing to do. Asynchronous on purpose: this process keeps answering signals while it runs.
const upToDate = await migrationsUpToDate(process.env.DIRECT_DATABASE_URL ?? process.env.DATABASE_URL, path.join(root, "prisma/migrations"));
if (upToDate) console.log("Database is up to date.");
const migrated =
  upToDate ||
  (await new Promise<boolean>((resolve) => {
    const migrate = spawn(process.execPath, [path.join(root, "scripts/prisma.mjs"), "migrate", "deploy"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: process.env,
    });
    // The CLI's output is shown only when it fails.
    let output = "";
    migrate.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    migrate.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    migrate.on("exit", (code) => {
      if (code !== 0) process.stdout.write(output);
      else console.log(/No pending migrations/.test(output) ? "Database is up to date." : "Database migrations applied.");
      resolve(code === 0);
    });
  }));
if (!migrated) {
  console.error("Database migrations failed.");
  await shutdown(1);
}

// The seed's modules (Prisma, image work) load only for a fresh site: a restart does not wait for them.
if (process.env.SEED_DEMO !== "false" && (await isFreshSite(process.env.DIRECT_DATABASE_URL ?? process.env.DATABASE_URL))) {
  const { db } = await import("../app/db.server.ts");
  const { storage } = await import("../app/integrations/storage.server.ts");
  const { seedDemoContent, DEMO_ADMIN } = await import("../prisma/demo-content.ts");
  if (await seedDemoContent(db, await storage())) {
    console.log(`Demo content seeded. Demo admin: ${DEMO_ADMIN.email} / ${DEMO_ADMIN.password}`);
  }
  await db.$disconnect();
}

if (stopping) await new Promise(() => undefined);
// server/index.ts: remix-serve's duties plus security headers, CSRF and body-size checks; under
// --dev, scripts/dev-server.ts (the same checks, with Vite). It stops (SIGTERM, answering the requests in
// flight) should this process be killed with SIGKILL.
const { withParentDeathSignal } = await import("./embedded-postgres.ts");
const serverArgs = devMode ? ["--import", "tsx", path.join(root, "scripts/dev-server.ts")] : appServerArgs();
server = spawn(...withParentDeathSignal("SIGTERM", [process.execPath, serverArgs]), {
  stdio: ["ignore", "pipe", "inherit"],
  env: appServerEnv({ ...process.env, PORT: String(config!.PORT) }),
});
server.stdout!.on("data", (chunk: Buffer) => {
  const text = chunk.toString();
  const running = `Creator Library is running at ${config!.APP_URL}${devMode ? " (development: edits to app/ show at once)" : ""}\n`;
  process.stdout.write(text.includes("[server]") ? running : text);
});
server.on("exit", (code, signal) => void shutdown(code ?? (signal ? 0 : 1)));
