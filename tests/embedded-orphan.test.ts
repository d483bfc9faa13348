// A later start recovers from an embedded PostgreSQL left running by an npm start that died
// without its lock file (scripts/embedded-postgres.ts `assertDataDirFree`, `claimDataDir`): such a
// database is an orphan unless a live start, backup or restore is its parent, whatever adopted it
// (init or a subreaper, as under a container's or a test harness's init). A postmaster.pid whose
// PID now belongs to another program names no server.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { assertDataDirFree, claimDataDir, releaseDataDir } from "../scripts/embedded-postgres";

const started: ChildProcess[] = [];
const folders: string[] = [];

afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/**
 * A stand-in process whose parent is a shell with `label` in its command line; its PID. With
 * `clusterDir` it is a server of that cluster (its command names `-D <clusterDir>`, as a postmaster's
 * does), else any other program (`sleep`).
 */
async function serverUnder(label: string, clusterDir?: string): Promise<number> {
  const command = clusterDir ? '"$1" -e "process.on(\\"SIGINT\\", () => process.exit()); setTimeout(() => {}, 60000)" -- -D "$2"' : "sleep 60";
  const parent = spawn("sh", ["-c", `${command} & echo $!; wait`, label, process.execPath, clusterDir ?? ""], {
    stdio: ["ignore", "pipe", "ignore"],
    detached: true,
  });
  started.push(parent);
  const pid = await new Promise<number>((resolve) => parent.stdout.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
  started.push({ kill: () => existsSync(`/proc/${pid}`) && process.kill(pid, "SIGKILL") } as unknown as ChildProcess);
  // The shell names the PID before the program has replaced the forked shell, whose own command
  // line names the folder too (as an argument of the shell), but not after "-D".
  if (clusterDir) await vi.waitFor(() => expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).toContain(`-D\0${clusterDir}\0`));
  return pid;
}

/** A new DATA_DIR with a cluster folder and no lock file. */
function newDataDir(): string {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-orphan-"));
  folders.push(dataDir);
  mkdirSync(path.join(dataDir, "postgres"));
  return dataDir;
}

/** Writes the cluster's postmaster.pid naming `pid`. */
function namePid(dataDir: string, pid: number): string {
  writeFileSync(path.join(dataDir, "postgres", "postmaster.pid"), `${pid}\n${path.join(dataDir, "postgres")}\n`);
  return dataDir;
}

const alive = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] !== "Z";

describe("a database left running without a lock file", () => {
  it("is an orphan when its parent is not a start (a subreaper adopted it): the next start stops it and goes on", async () => {
    const dataDir = newDataDir();
    const pid = await serverUnder("some-subreaper", path.join(dataDir, "postgres"));
    namePid(dataDir, pid);
    expect(() => assertDataDirFree(dataDir)).not.toThrow();
    const said: string[] = [];
    await claimDataDir(dataDir, (line) => said.push(line));
    expect(said).toEqual([`Stopping the embedded PostgreSQL (PID ${pid}) left running by an npm start that ended.`]);
    await expect.poll(() => (existsSync(`/proc/${pid}`) ? alive(pid) : false)).toBe(false);
    expect(JSON.parse(readFileSync(path.join(dataDir, "npm-start.lock"), "utf8"))).toMatchObject({ pid: process.pid });
    releaseDataDir(dataDir);
  });

  it("is in use while a live npm start is its parent", async () => {
    const dataDir = newDataDir();
    const pid = await serverUnder("node scripts/start.ts", path.join(dataDir, "postgres"));
    expect(() => assertDataDirFree(namePid(dataDir, pid))).toThrow(/is in use by another running npm start/);
  });
});

describe("a postmaster.pid left by a server killed outright", () => {
  it("names no server when its PID now belongs to another program: that program is left alone and the file goes", async () => {
    // Even with a start as its parent: only a process of this cluster is its server.
    const other = await serverUnder("node scripts/start.ts");
    const dataDir = namePid(newDataDir(), other);
    expect(() => assertDataDirFree(dataDir)).not.toThrow();
    const said: string[] = [];
    await claimDataDir(dataDir, (line) => said.push(line));
    expect(said).toEqual([]);
    expect(alive(other)).toBe(true);
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    releaseDataDir(dataDir);
  });
});
