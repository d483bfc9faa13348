// An `npm start` killed with its whole process group under a parent that never reaps (a
// container's first process, some supervisors) stays a zombie. Its embedded PostgreSQL must still
// stop and be gone (reaped, not a zombie whose PID still answers `kill -0`), and the next start on
// the same data must not take the zombie for a live `npm start`.
// The parent here is a small Python program made a child subreaper, so the killed processes are
// adopted by it and never reaped. Whatever a look for the database by its command line finds must
// be gone too.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureAppBuilt, freePort } from "../scripts/app-server.ts";
import { newcomerEnv, START_TIMEOUT_MS } from "./npm-start";

const root = path.resolve(import.meta.dirname, "..");
const work = mkdtempSync(path.join(os.tmpdir(), "clib-zombie-"));

const HARNESS = `
import ctypes, json, os, signal, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
data_dir, port, second_port, log = sys.argv[1:5]
env = dict(os.environ, DATA_DIR=data_dir, PORT=port)
first = subprocess.Popen(["npm", "start"], cwd=${JSON.stringify(root)}, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
for _ in range(240):
    time.sleep(0.5)
    if "is running at" in open(log).read(): break
database = int(open(os.path.join(data_dir, "postgres", "postmaster.pid")).read().split()[0])
# What a look for the database by its command line (pgrep -f <cluster>) finds.
def naming_cluster():
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.path.join(data_dir, "postgres").encode() in open("/proc/%s/cmdline" % entry, "rb").read(): found.append(int(entry))
        except OSError:
            pass
    return found
named = naming_cluster()
os.killpg(first.pid, signal.SIGKILL)
def running(pid):
    try:
        stat = open("/proc/%d/stat" % pid).read()
        return stat[stat.rindex(")") + 2] != "Z"
    except FileNotFoundError:
        return False
for _ in range(20):
    if not os.path.exists("/proc/%d" % database): break
    time.sleep(0.5)
zombie = not running(first.pid) and os.path.exists("/proc/%d" % first.pid)
named_left = [pid for pid in named if os.path.exists("/proc/%d" % pid)]
second = subprocess.Popen(["npm", "start"], cwd=${JSON.stringify(root)}, env=dict(env, PORT=second_port), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
output = ""
for line in second.stdout:
    output += line
    if "is running at" in line or "Could not start" in line: break
os.killpg(second.pid, signal.SIGINT)
second.wait(timeout=60)
print(json.dumps({"databaseStopped": not running(database), "databaseReaped": not os.path.exists("/proc/%d" % database), "ownerWasZombie": zombie, "named": named, "namedLeft": named_left, "second": output}))
`;

beforeAll(() => ensureAppBuilt(), START_TIMEOUT_MS);
afterAll(() => rmSync(work, { recursive: true, force: true }));

it(
  "a start killed with its group and left a zombie: its database stops, and the next start goes on",
  async () => {
    const harness = path.join(work, "harness.py");
    writeFileSync(harness, HARNESS);
    const dataDir = path.join(work, "data");
    const env = newcomerEnv({ FAKE_PROVIDERS: "false" }) as NodeJS.ProcessEnv;
    // Not spawnSync: a test runner's worker whose event loop is blocked for over a minute loses its
    // link to the runner ("Timeout calling onTaskUpdate"), and this harness can take that long.
    const { stdout } = await promisify(execFile)(
      "python3",
      [harness, dataDir, String(await freePort()), String(await freePort()), path.join(work, "first.log")],
      { env, encoding: "utf8", timeout: 2 * START_TIMEOUT_MS },
    );
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      databaseStopped: boolean;
      databaseReaped: boolean;
      ownerWasZombie: boolean;
      named: number[];
      namedLeft: number[];
      second: string;
    };
    expect(result.ownerWasZombie).toBe(true);
    expect(result.databaseStopped).toBe(true);
    // Reaped by its supervisor, not left a zombie under the harness: its PID no longer answers `kill -0`.
    expect(result.databaseReaped).toBe(true);
    // Looked for by its command line, the database is PostgreSQL alone (its supervisor does not
    // carry that command line), and nothing found that way is left, not even a zombie.
    expect(result.named).toEqual([expect.any(Number)]);
    expect(result.namedLeft).toEqual([]);
    expect(result.second).not.toContain("in use by another running npm start");
    expect(result.second).toContain("is running at");
  },
  3 * START_TIMEOUT_MS,
);
