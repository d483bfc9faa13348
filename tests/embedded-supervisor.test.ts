// The embedded database's supervisor (scripts/embedded-postgres.ts `superviseServer`): the parent
// of PostgreSQL, outside npm start's process group. It passes a stop on, stops the server when
// its npm start is gone (even where the pipe it reads stays open: here this test process holds
// the pipe, and a stand-in owner is killed), and reaps the server, so that its PID is gone rather
// than left a zombie. The stand-in server is a Node program that says which signal ended it.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { superviseServer } from "../scripts/embedded-postgres";

const work = mkdtempSync(path.join(os.tmpdir(), "clib-supervisor-"));
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Exits 10 on SIGINT, 11 on SIGTERM, 12 on SIGQUIT (or ignores SIGQUIT, a shutdown that hangs, with
 * a third argument `hang`); `ready <its PID>` in its output once it listens for them.
 */
const STAND_IN = `
for (const [signal, code] of [["SIGINT", 10], ["SIGTERM", 11], ["SIGQUIT", 12]])
  process.on(signal, () => (signal === "SIGQUIT" && process.argv[3] === "hang" ? undefined : process.exit(code)));
console.log("ready " + process.pid);
setTimeout(() => process.exit(Number(process.argv[1] ?? 0)), Number(process.argv[2] ?? 120000));
`;

let runs = 0;

/** A supervised stand-in server (which ends by itself with `exitCode` after `lifetimeMs`), owned by `owner`. */
async function supervised(owner: number, exitCode = 0, lifetimeMs = 120_000, quit: "exit" | "hang" = "exit", ...more: string[]) {
  const output = path.join(work, `server-${runs++}.log`);
  const fd = openSync(output, "a");
  const supervisor = superviseServer([process.execPath, ["-e", STAND_IN, String(exitCode), String(lifetimeMs), quit, ...more]], { stdio: fd }, owner);
  closeSync(fd);
  started.push(supervisor);
  for (let waited = 0; !/ready \d+/.test(readFileSync(output, "utf8")) && waited < 10_000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const pid = Number(/ready (\d+)/.exec(readFileSync(output, "utf8"))?.[1]);
  expect(pid).toBeGreaterThan(0);
  return { supervisor, pid };
}

function standInOwner(): ChildProcess {
  const child = spawn("sleep", ["120"], { stdio: "ignore" });
  started.push(child);
  return child;
}

/** The exit code of `child`, or null when it still runs after `ms`. */
function exitCodeOf(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** The PIDs of a process's children, as /proc lists them ("" for none, or once it is gone). */
function childrenOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  } catch {
    return "gone";
  }
}

/** Whether a process of this PID runs, a zombie not counted. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Whether a process of this PID exists at all: a zombie does. */
const exists = (pid: number) => existsSync(`/proc/${pid}`);

describe.runIf(process.platform === "linux")("the embedded database's supervisor", () => {
  it("passes a stop on to the server, reaps it, and exits with its status", async () => {
    const owner = standInOwner();
    const { supervisor, pid } = await supervised(owner.pid!);
    expect(exists(pid)).toBe(true);
    supervisor.kill("SIGINT");
    expect(await exitCodeOf(supervisor, 5000)).toBe(10);
    expect(exists(pid)).toBe(false);

    const second = await supervised(owner.pid!);
    second.supervisor.kill("SIGTERM");
    expect(await exitCodeOf(second.supervisor, 5000)).toBe(11);
    expect(exists(second.pid)).toBe(false);
  });

  it("is the only process whose command line is the server's: the supervisor and its helpers do not carry it", async () => {
    // Whoever looks for the database by its command line (pgrep -f <cluster>) finds the server
    // alone. A supervisor that carried it would be found too, and where nobody reaps orphans it
    // outlives the server as a zombie, whose PID still answers.
    const owner = standInOwner();
    const marker = `-D /clusters/${randomUUID()}`;
    // A variable of the supervisor's kind that this process happens to have is not taken for an argument.
    process.env.SUPERVISED_40 = "stray";
    const { supervisor, pid } = await supervised(owner.pid!, 0, 120_000, "exit", marker, "a b", 'it\'s "quoted" $HOME').finally(
      () => delete process.env.SUPERVISED_40,
    );
    const naming = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .filter((entry) => {
        try {
          return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker);
        } catch {
          return false;
        }
      });
    expect(naming).toEqual([String(pid)]);
    // The server got its arguments as they were, and none of the supervisor's variables.
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(-4, -1)).toEqual([marker, "a b", 'it\'s "quoted" $HOME']);
    expect(readFileSync(`/proc/${pid}/environ`, "utf8")).not.toContain("SUPERVISED_");
    supervisor.kill("SIGINT");
    expect(await exitCodeOf(supervisor, 5000)).toBe(10);
  });

  it("stops the server within seconds once its owner is killed, though the pipe it reads is still open", async () => {
    const owner = standInOwner();
    const { supervisor, pid } = await supervised(owner.pid!);
    // The owner lives: the server runs on.
    expect(await exitCodeOf(supervisor, 2500)).toBeNull();
    owner.kill("SIGKILL");
    // Immediate shutdown (SIGQUIT). This process never closed the pipe's other end: only the
    // look at the owner can have acted. The server is reaped: its PID is gone, not a zombie.
    expect(await exitCodeOf(supervisor, 5000)).toBe(12);
    expect(exists(pid)).toBe(false);
  });

  it("kills a server that has not ended 5 s after its owner died", async () => {
    const owner = standInOwner();
    const { supervisor, pid } = await supervised(owner.pid!, 0, 120_000, "hang");
    owner.kill("SIGKILL");
    // SIGQUIT is ignored: the server ends by SIGKILL, and is reaped.
    expect(await exitCodeOf(supervisor, 15_000)).toBe(137);
    expect(exists(pid)).toBe(false);
  }, 30_000);

  it("stops the server when the pipe closes, the owner alive", async () => {
    const owner = standInOwner();
    const { supervisor, pid } = await supervised(owner.pid!);
    supervisor.stdin?.end();
    expect(await exitCodeOf(supervisor, 5000)).toBe(12);
    expect(exists(pid)).toBe(false);
    expect(owner.exitCode === null && owner.signalCode === null).toBe(true);
  });

  it("stops a server whose stop came while it was being started", async () => {
    // A stop just after the shell has started the server, before the server can have set its own
    // handlers: SIGQUIT (npm start's death), or SIGINT followed by SIGQUIT (a stop that got no
    // answer in time, as the embedded database's stop does). sh starts a background command with
    // SIGINT and SIGQUIT ignored, so the stand-in here (sleep) takes neither: only the 5 s SIGKILL
    // ends it. Twenty tries, each signalled the moment the shell has a child; no server may be
    // left running.
    const tries = Array.from({ length: 20 }, (_, index) => {
      const pidFile = path.join(work, `early-${runs++}.pid`);
      const supervisor = superviseServer(["sh", ["-c", `echo $$ > ${pidFile}; exec sleep 60`]], { stdio: "ignore" }, process.pid);
      started.push(supervisor);
      const ended = exitCodeOf(supervisor, 15_000);
      for (let look = 0; look < 1_000_000 && childrenOf(supervisor.pid!) === ""; look++);
      if (index % 2) {
        supervisor.kill("SIGQUIT");
      } else {
        supervisor.kill("SIGINT");
        setTimeout(() => supervisor.kill("SIGQUIT"), 500);
      }
      return { pidFile, ended };
    });
    for (const { pidFile, ended } of tries) {
      await ended;
      // No PID file: the shell was ended before it started the server.
      const server = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : 0;
      expect(server > 0 && isRunning(server), `server ${server} still running`).toBe(false);
    }
  }, 30_000);

  it("ends with the server's own status when the server ends by itself", async () => {
    const owner = standInOwner();
    const { supervisor, pid } = await supervised(owner.pid!, 3, 300);
    expect(await exitCodeOf(supervisor, 5000)).toBe(3);
    expect(exists(pid)).toBe(false);
  });
});
