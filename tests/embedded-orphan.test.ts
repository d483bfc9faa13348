// A later start recovers from an embedded PostgreSQL left running by an npm start that died
// without its lock file (scripts/embedded-postgres.ts `assertDataDirFree`): such a database is an
// orphan unless a live start, backup or restore is its parent, whatever adopted it (init or a
// subreaper, as under a container's or a test harness's init).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertDataDirFree } from "../scripts/embedded-postgres";

const started: ChildProcess[] = [];
const folders: string[] = [];

afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A stand-in server process (`sleep`) whose parent is a shell with `label` in its command line; its PID. */
async function serverUnder(label: string): Promise<number> {
  const parent = spawn("sh", ["-c", "sleep 60 & echo $!; wait", label], { stdio: ["ignore", "pipe", "ignore"], detached: true });
  started.push(parent);
  const pid = await new Promise<number>((resolve) => parent.stdout.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
  started.push({ kill: () => process.kill(pid, "SIGKILL") } as unknown as ChildProcess);
  return pid;
}

/** A DATA_DIR whose cluster's postmaster.pid names `pid`, with no lock file. */
function dataDirOf(pid: number): string {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-orphan-"));
  folders.push(dataDir);
  mkdirSync(path.join(dataDir, "postgres"));
  writeFileSync(path.join(dataDir, "postgres", "postmaster.pid"), `${pid}\n${dataDir}\n`);
  return dataDir;
}

describe("a database left running without a lock file", () => {
  it("is an orphan when its parent is not a start (a subreaper adopted it): the next start may stop it", async () => {
    const pid = await serverUnder("some-subreaper");
    expect(readFileSync(`/proc/${pid}/stat`, "utf8")).toBeTruthy();
    expect(() => assertDataDirFree(dataDirOf(pid))).not.toThrow();
  });

  it("is in use while a live npm start is its parent", async () => {
    const pid = await serverUnder("node scripts/start.ts");
    expect(() => assertDataDirFree(dataDirOf(pid))).toThrow(/is in use by another running npm start/);
  });
});
