// Benchmark: how long the README's first command takes to serve its first page. A copy of the
// project as `git clone` + `npm install` leave it (scripts/project-copy.ts) in a private folder,
// then `npm start` there on the embedded database: the first start (build, initdb, migrations,
// demo seed) and a restart on the same data with unchanged sources. Time from the command to the
// first 200 of GET /. `node --import tsx bench/start.ts` runs it alone.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../scripts/app-server.ts";
import { copyProject } from "../scripts/project-copy.ts";
import { reportTargets, runAsScript, type TargetLine } from "./child.ts";

/** Targets: a first start after `npm install`, and a restart, to the first page. */
const FIRST_START_TARGET_S = 40;
const RESTART_TARGET_S = 5;
const GIVE_UP_S = 180;

export type { TargetLine } from "./child.ts";

/** Runs `npm start` in `project` and answers the seconds until GET / answered 200, and how to stop it. */
async function timeToFirstPage(project: string, port: number): Promise<{ seconds: number; stop: () => Promise<void> }> {
  const { PATH, HOME, LANG, TMPDIR } = process.env;
  const npm = process.env.npm_execpath;
  const started = performance.now();
  const [program, args] = npm ? [process.execPath, [npm, "start"]] : ["npm", ["start"]];
  const env: Record<string, string | undefined> = { PATH, HOME, LANG, TMPDIR, PORT: String(port) };
  const child = spawn(program, args, {
    cwd: project,
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGINT");
    // npm ends on the signal at once; the site is down once its database's pid file is gone.
    const pidFile = path.join(project, "data", "postgres", "postmaster.pid");
    for (let waited = 0; existsSync(pidFile) && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  for (;;) {
    const answer = await fetch(`http://127.0.0.1:${port}/`).catch(() => null);
    if (answer?.status === 200) {
      await answer.arrayBuffer();
      return { seconds: (performance.now() - started) / 1000, stop };
    }
    if (child.exitCode !== null || (performance.now() - started) / 1000 > GIVE_UP_S) {
      await stop();
      throw new Error(`npm start did not serve its first page:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function benchStart(): Promise<TargetLine[]> {
  const privateFolder = mkdtempSync(path.join(os.tmpdir(), "clib-bench-start-"));
  const project = path.join(privateFolder, "app");
  try {
    copyProject(project);
    const port = await freePort();
    const first = await timeToFirstPage(project, port);
    await first.stop();
    const restart = await timeToFirstPage(project, port);
    await restart.stop();
    console.log("npm start in a fresh copy of the project (private folder, embedded database):");
    console.log(`  first start (build, initdb, migrations, demo seed)  ${first.seconds.toFixed(1).padStart(6)} s to the first page`);
    console.log(`  restart (sources and data unchanged)                ${restart.seconds.toFixed(1).padStart(6)} s to the first page`);
    const targets = [
      {
        name: "first start",
        ok: first.seconds <= FIRST_START_TARGET_S,
        text: `first start: ${first.seconds.toFixed(1)} s (target <= ${FIRST_START_TARGET_S} s)`,
      },
      { name: "restart", ok: restart.seconds <= RESTART_TARGET_S, text: `restart: ${restart.seconds.toFixed(1)} s (target <= ${RESTART_TARGET_S} s)` },
    ];
    reportTargets(targets);
    return targets;
  } finally {
    rmSync(privateFolder, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, async () => void (await benchStart()), benchStart);
