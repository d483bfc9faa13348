// The first run in a fresh clone: the whole project (its installed packages included) copied into
// a 0700 folder and started with `npm start` from there, as a clone under /root is. As root the
// database's OS user must still reach the PostgreSQL binaries inside it; as an ordinary user who
// owns the copy, the build must not trip over files of this checkout's user. Each runner has a
// test file of its own (tests/first-run-copy*.test.ts) so that the two builds and starts run
// beside the other files instead of one after the other.
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../scripts/app-server.ts";
import { copyProject } from "../scripts/project-copy.ts";
import { errorLines, killGroup, launch, newcomerEnv, pressCtrlC, startSite, START_TIMEOUT_MS, walk, type Site } from "./npm-start";

/** Who runs `npm start` in the copy: this process's user, or `nobody` when the tests run as root. */
export type Runner = "root" | "an ordinary user" | "this user";

/** `root` when the tests run as root, else this user: the runner of tests/first-run-copy.test.ts. */
export const SELF_RUNNER: Runner = process.getuid?.() === 0 ? "root" : "this user";

/**
 * Ctrl-C on `npm start`: npm itself ends on the signal (no exit code) while scripts/start.ts
 * stops the app and then the database; done when the database's pid file is gone.
 */
async function stopNpmStart(site: Site, project: string): Promise<void> {
  pressCtrlC(site);
  expect([0, null]).toContain(await site.exited);
  const pidFile = path.join(project, "data", "postgres", "postmaster.pid");
  for (let waited = 0; existsSync(pidFile) && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(existsSync(pidFile)).toBe(false);
  expect(errorLines(site.output())).toEqual([]);
}

/** Is this PID a live (not zombie) PostgreSQL server? */
function runningPostmaster(pid: number): boolean {
  try {
    return runningProcess(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
  } catch {
    return false;
  }
}

/** Is this PID a live process (not a zombie)? */
function runningProcess(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Live (not zombie) processes whose command line names `folder`, with their command lines. */
function processesNaming(folder: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (args.includes(folder) && runningProcess(Number(pid))) found.push(`${pid} ${args}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Polls `check` until it holds or `ms` have passed; answers whether it held. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) if (check()) return true;
  return check();
}

/** An ordinary OS user for the newcomer who is not root: `nobody`, present on every Debian-like system. */
function ordinaryUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync("id", [flag, "nobody"], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

/**
 * The first run in a fresh copy of the project as `runner`: build, start, every page, restart, a
 * refused second start, a hard kill that takes the database with it, and a start after that.
 */
export function describeFirstRunInPrivateCopy(runner: Runner): void {
  describe(`npm start in a copy of the project in a private folder, as ${runner}`, () => {
    const privateFolder = mkdtempSync(path.join(os.tmpdir(), "clib-private-project-"));
    const project = path.join(privateFolder, "app");
    const home = path.join(privateFolder, "home");
    const user = runner === "an ordinary user" ? ordinaryUser() : undefined;
    let site: Site | undefined;
    afterAll(async () => {
      killGroup(site);
      await site?.exited;
      rmSync(privateFolder, { recursive: true, force: true });
    });

    it(
      "builds, starts on the embedded database, serves every page to guests and every demo account, and a hard kill takes its database with it",
      async () => {
        copyProject(project, user);
        mkdirSync(home);
        if (user) {
          chownSync(privateFolder, user.uid, user.gid);
          chownSync(home, user.uid, user.gid);
        }
        expect(statSync(privateFolder).mode & 0o777).toBe(0o700);
        const port = await freePort();
        const npm = process.env.npm_execpath;
        const command: [string, string[]] = npm ? [process.execPath, [npm, "start"]] : ["npm", ["start"]];
        const env = newcomerEnv({ PORT: String(port), HOME: home, REMIX_BUILD_DIR: undefined });
        site = await startSite(env, { cwd: project, command, user });
        expect(site.output()).toContain("Building the app into build/");
        expect(site.output()).toContain("Demo content seeded.");
        expect(existsSync(path.join(project, "data", "postgres", "PG_VERSION"))).toBe(true);
        expect(await walk(site.base)).toEqual([]);
        expect(errorLines(site.output())).toEqual([]);

        // A restart with unchanged sources neither builds nor migrates again.
        await stopNpmStart(site, project);
        site = await startSite(env, { cwd: project, command, user });
        expect(site.output()).not.toContain("Building the app");
        expect(site.output()).toContain("Database is up to date.");
        expect((await fetch(`${site.base}/library`)).status).toBe(200);

        // A second start on the same data is refused before it builds anything.
        writeFileSync(path.join(project, "app", "touched.ts"), "export {};\n");
        const second = launch({ ...env, PORT: String(await freePort()) }, { cwd: project, command, user });
        try {
          expect(await second.exited).toBe(1);
          expect(second.output()).toMatch(/is in use by another running npm start/);
          expect(second.output()).not.toContain("Building the app");
        } finally {
          killGroup(second);
        }

        // Killed outright (SIGKILL to npm start's whole process group): its PostgreSQL ends with
        // it, and the next start on the same data goes on without being refused.
        const database = Number(readFileSync(path.join(project, "data", "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
        killGroup(site);
        await site.exited;
        expect(await within(10_000, () => !runningPostmaster(database))).toBe(true);
        // Nor any other process that names the data folder (a database process, its supervisor).
        expect(await within(10_000, () => processesNaming(path.join(project, "data")).length === 0)).toBe(true);
        site = await startSite(env, { cwd: project, command, user });
        expect(site.output()).not.toMatch(/is in use by another running npm start|left running by an npm start/);
        expect((await fetch(`${site.base}/library`)).status).toBe(200);
        await stopNpmStart(site, project);
      },
      4 * START_TIMEOUT_MS,
    );
  });
}
