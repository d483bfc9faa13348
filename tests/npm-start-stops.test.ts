// How `npm start` ends, on the embedded default: SIGTERM to its PID (systemd, Docker), a kill -9
// of its whole process group (an OOM kill, a closed session) and of npm alone. Each time nothing
// may be left running: no app server, no PostgreSQL, no pid file; and a PostgreSQL left behind
// anyway (a platform without a parent-death signal) is stopped by the next start, while a second
// start beside a live one is still refused.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAppBuilt, freePort } from "../scripts/app-server.ts";
import { DEMO_FAN } from "../prisma/demo-content";
import { killGroup, launch, newcomerEnv, signIn, startSite, START_TIMEOUT_MS, type Site } from "./npm-start";

/** `npm start` itself (npm, then scripts/start.ts), as a process manager runs it. */
const npm = process.env.npm_execpath;
const npmStart: [string, string[]] = npm ? [process.execPath, [npm, "start"]] : ["npm", ["start"]];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function until(condition: () => boolean | Promise<boolean>, ms = 30_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
    if (await condition()) return true;
  }
  return condition();
}

const answers = (base: string) =>
  fetch(`${base}/healthz`).then(
    () => true,
    () => false,
  );

beforeAll(() => ensureAppBuilt(), START_TIMEOUT_MS);

describe("npm start on the embedded default, however it ends", () => {
  // Not private (0755): the PostgreSQL this test leaves orphaned itself runs without setpriv.
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), "clib-stops-")), "data");
  chmodSync(path.dirname(dataDir), 0o755);
  const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
  const lockFile = path.join(dataDir, "npm-start.lock");
  const postgresPid = () => Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  let port = 0;
  let env: Record<string, string | undefined> = {};
  let site: Site | undefined;
  const leftovers: number[] = [];
  afterAll(async () => {
    killGroup(site);
    await site?.exited;
    for (const pid of leftovers) if (alive(pid)) process.kill(pid, "SIGKILL");
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  it(
    "stops everything on SIGTERM to the npm start PID alone: app server, PostgreSQL and pid file gone",
    async () => {
      port = await freePort();
      env = newcomerEnv({ DATA_DIR: dataDir, PORT: String(port), FAKE_PROVIDERS: "false" });
      site = await startSite(env, { command: npmStart });
      const database = postgresPid();
      expect(existsSync(lockFile)).toBe(true);

      process.kill(site.child.pid!, "SIGTERM");
      expect([0, null]).toContain(await site.exited);
      expect(await until(() => !alive(database))).toBe(true);
      expect(existsSync(pidFile)).toBe(false);
      expect(existsSync(lockFile)).toBe(false);
      expect(await answers(site.base)).toBe(false);
    },
    START_TIMEOUT_MS,
  );

  it(
    "takes its PostgreSQL down with it when the whole group is killed with SIGKILL, and refuses a second start only while one runs",
    async () => {
      site = await startSite(env, { command: npmStart });
      const database = postgresPid();

      // A second start beside a live one is refused, naming the live one's database.
      const second = launch({ ...env, PORT: String(await freePort()) });
      try {
        expect(await second.exited).toBe(1);
        expect(second.output()).toContain(`is in use by another running npm start (its PostgreSQL has PID ${database})`);
      } finally {
        killGroup(second);
      }

      killGroup(site);
      await site.exited;
      expect(await until(() => !alive(database))).toBe(true);
      expect(await until(async () => !(await answers(site!.base)))).toBe(true);
    },
    START_TIMEOUT_MS,
  );

  it(
    "stops a PostgreSQL whose npm start was killed and starts again on the same data",
    async () => {
      // The orphan a killed start leaves where no parent-death signal exists: its PostgreSQL
      // started again by hand, as its owner, adopted by init; the dead start's lock file stays.
      expect(existsSync(lockFile)).toBe(true);
      const command = readFileSync(path.join(dataDir, "postgres", "postmaster.opts"), "utf8").trim();
      const owner = statSync(path.join(dataDir, "postgres"));
      spawn("sh", ["-c", `${command} >/dev/null 2>&1 &`], { uid: owner.uid, gid: owner.gid, detached: true, stdio: "ignore" }).unref();
      expect(await until(() => existsSync(pidFile) && alive(postgresPid()))).toBe(true);
      const orphan = postgresPid();
      leftovers.push(orphan);

      site = await startSite(env);
      expect(site.output()).toContain(`Stopping the embedded PostgreSQL (PID ${orphan}) left running by an npm start that ended.`);
      expect(alive(orphan)).toBe(false);
      expect((await signIn(site.base, DEMO_FAN)).status).toBe(200);

      // npm start's own process (scripts/start.ts here) killed alone: its servers stop after it.
      const database = postgresPid();
      process.kill(site.child.pid!, "SIGKILL");
      await site.exited;
      expect(await until(() => !alive(database))).toBe(true);
      expect(await until(async () => !(await answers(site!.base)))).toBe(true);
    },
    START_TIMEOUT_MS,
  );

  it(
    "stops everything when npm alone is killed with SIGKILL",
    async () => {
      site = await startSite(env, { command: npmStart });
      const database = postgresPid();
      process.kill(site.child.pid!, "SIGKILL");
      await site.exited;
      expect(await until(() => !alive(database))).toBe(true);
      expect(await until(async () => !(await answers(site!.base)))).toBe(true);
      expect(existsSync(pidFile)).toBe(false);
      expect(existsSync(lockFile)).toBe(false);
    },
    START_TIMEOUT_MS,
  );
});

describe("npm start killed while it makes the database (its first initdb)", () => {
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), "clib-initdb-killed-")), "data");
  chmodSync(path.dirname(dataDir), 0o755);
  const initialising = path.join(dataDir, "postgres.initialising");
  let site: Site | undefined;
  afterAll(async () => {
    killGroup(site);
    await site?.exited;
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  it(
    "leaves no half-made cluster behind: the next start makes the database afresh and serves",
    async () => {
      const env = newcomerEnv({ DATA_DIR: dataDir, PORT: String(await freePort()), FAKE_PROVIDERS: "false" });
      const first = launch(env, { command: npmStart });
      // initdb writes PG_VERSION first and the `postgres` database last: killed in between.
      let caught = false;
      for (const deadline = Date.now() + START_TIMEOUT_MS; !caught && first.child.exitCode === null && Date.now() < deadline;) {
        caught = existsSync(path.join(initialising, "PG_VERSION"));
        if (!caught) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      killGroup(first);
      await first.exited;
      expect(caught).toBe(true);
      expect(existsSync(path.join(dataDir, "postgres", "PG_VERSION"))).toBe(false);

      site = await startSite(env, { command: npmStart });
      expect(site.output()).toContain("Demo content seeded.");
      expect((await signIn(site.base, DEMO_FAN)).status).toBe(200);
      expect(existsSync(initialising)).toBe(false);
    },
    2 * START_TIMEOUT_MS,
  );
});
