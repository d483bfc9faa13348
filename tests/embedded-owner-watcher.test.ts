// The embedded database's owner-watcher (scripts/embedded-postgres.ts `watchOwner`) stops the
// database when its npm start is gone, even where the pipe it reads stays open: here this test
// process holds the pipe, and a stand-in owner is killed. The stand-in server is `sleep` with
// "postgres" in its command line, as the watcher checks before it signals.
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { watchOwner } from "../scripts/embedded-postgres";

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function standIn(argv0: string): ChildProcess {
  const child = spawn("sleep", ["120"], { argv0, stdio: "ignore" });
  started.push(child);
  return child;
}

/** How `child` ended (its signal), or null when it still runs after `ms`. */
function endOf(child: ChildProcess, ms: number): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    child.once("exit", (_code, signal) => {
      clearTimeout(timer);
      resolve(signal);
    });
  });
}

describe.runIf(process.platform === "linux")("the embedded database's owner-watcher", () => {
  it("stops the database within seconds once its owner is killed, though the pipe it reads is still open", async () => {
    const server = standIn("postgres-stand-in");
    const owner = standIn("npm-start-stand-in");
    const watcher = watchOwner(server.pid, owner.pid);
    expect(watcher).not.toBeNull();
    started.push(watcher!);
    // The owner lives: the database runs on.
    expect(await endOf(server, 2500)).toBeNull();
    owner.kill("SIGKILL");
    // Immediate shutdown, as the parent-death signal would send. This process never closed the
    // pipe's other end: only the look at the owner can have acted.
    expect(await endOf(server, 5000)).toBe("SIGQUIT");
  });

  it("stops the database at once when the pipe closes, the owner alive", async () => {
    const server = standIn("postgres-stand-in");
    const owner = standIn("npm-start-stand-in");
    const watcher = watchOwner(server.pid, owner.pid);
    started.push(watcher!);
    watcher!.stdin?.end();
    expect(await endOf(server, 5000)).toBe("SIGQUIT");
    expect(owner.exitCode === null && owner.signalCode === null).toBe(true);
  });

  it("never signals a process that is not a database (a reused PID)", async () => {
    const notAServer = standIn("something-else");
    const owner = standIn("npm-start-stand-in");
    const watcher = watchOwner(notAServer.pid, owner.pid);
    started.push(watcher!);
    owner.kill("SIGKILL");
    expect(await endOf(notAServer, 3500)).toBeNull();
  });
});
