// PgBouncer in transaction mode in front of the test PostgreSQL, the way most hosted PostgreSQL
// offerings pool connections: consecutive transactions of one client may run on different server
// connections. Debian's `pgbouncer` package (.ci/run installs it); started on a free port, as
// the `postgres` OS user when we are root (it refuses root), and stopped by its PID.
import { spawn, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "../scripts/app-server.ts";
import { ADMIN_URL } from "./db";

export type Pooler = {
  /** The pooler's address for a database of the test PostgreSQL. */
  url: (database: string) => string;
  port: number;
  pid: number;
  stop: () => Promise<void>;
};

export function pgbouncerBinary(): string | null {
  for (const candidate of ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]) {
    if (spawnSync(candidate, ["--version"]).status === 0) return candidate;
  }
  return null;
}

/** Starts PgBouncer (transaction mode) forwarding every database to the test PostgreSQL. */
export async function startPgbouncer({ poolSize = 5 } = {}): Promise<Pooler> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error("PgBouncer is not installed (Debian package pgbouncer; .ci/run installs it)");
  const server = new URL(ADMIN_URL);
  const user = decodeURIComponent(server.username || "postgres");
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "clib-pgbouncer-"));
  const ini = path.join(dir, "pgbouncer.ini");
  writeFileSync(path.join(dir, "userlist.txt"), `"${user}" "${decodeURIComponent(server.password)}"\n`);
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${poolSize}`,
      "max_client_conn = 1000",
      "ignore_startup_parameters = extra_float_digits,options",
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  const asPostgres = process.getuid?.() === 0 ? osUser("postgres") : null;
  if (asPostgres) for (const file of [dir, ini, path.join(dir, "userlist.txt")]) chownSync(file, asPostgres.uid, asPostgres.gid);

  const child = spawn(binary, [ini], { stdio: "ignore", ...(asPostgres ?? {}) });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = (database: string) => `postgresql://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`;

  // Ready once it answers a query (forwarded to the real server).
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`PgBouncer exited at start:\n${readLog(dir)}`);
    const client = new pg.Client({ connectionString: url(server.pathname.slice(1) || "postgres") });
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`PgBouncer did not answer: ${(error as Error).message}\n${readLog(dir)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  return {
    url,
    port,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) {
        process.kill(child.pid!, "SIGINT");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function osUser(name: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync("id", [flag, name], { encoding: "utf8" }).stdout);
  return { uid: id("-u"), gid: id("-g") };
}

function readLog(dir: string): string {
  try {
    return readFileSync(path.join(dir, "pgbouncer.log"), "utf8").split("\n").slice(-10).join("\n");
  } catch {
    return "";
  }
}
