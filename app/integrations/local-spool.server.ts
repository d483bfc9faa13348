// A small durable queue on the local disk (DATA_DIR/spool/<name>) for writes that must not be
// lost while the database is down: each record is one JSON line, appended at once, and written
// to the database by `record` as soon as it answers again (tried every few seconds). On disk
// rather than in memory so that a restart during the outage (a deploy, a crash) loses nothing:
// whichever worker or later process of this server finds a file replays it.
import { randomBytes } from "node:crypto";
import { appendFile, mkdir, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { env } from "~/env.server";
import { isDatabaseUnavailable } from "~/utils/errors";
import { errorFields, log } from "~/logger.server";
import { outsideRequest } from "~/request-context.server";

/** How often a spool with records tries the database again. */
export const SPOOL_RETRY_MS = 5_000;

export type LocalSpool<T> = {
  /** Keeps a record until the database takes it. */
  add(record: T): Promise<void>;
  /** Writes what the spool holds; answers how many records are left (the database is still down). */
  replay(): Promise<number>;
  /** Starts the retries when records are left from before (a restart during an outage). */
  resume(): void;
};

const CLAIMED = /\.replaying-(\d+)$/;

/** Whether a process still runs (a claimed file of a dead one is taken over). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A spool named `name` whose records `record` writes. A record that fails for another reason
 * than the database being down (its post deleted meanwhile) is logged and dropped; `record`
 * must be safe to run twice for one record (a crash mid-replay runs it again).
 */
export function localSpool<T>(name: string, record: (item: T) => Promise<void>): LocalSpool<T> {
  const folder = () => path.join(env().DATA_DIR, "spool", name);
  // This process's file; a file is claimed for a replay by renaming it, so two processes never replay one file.
  const own = `${process.pid}-${randomBytes(4).toString("hex")}`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<number> | undefined;

  const schedule = () => {
    if (timer) return;
    // Outside the request whose write first armed it: the replays serve the whole process.
    timer = setTimeout(
      outsideRequest(() => {
        timer = undefined;
        replay().then(
          (left) => left > 0 && schedule(),
          (error: unknown) => {
            log().error(errorFields(error), `spool ${name}: replay failed`);
            schedule();
          },
        );
      }),
      SPOOL_RETRY_MS,
    );
    timer.unref();
  };

  async function replayFiles(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(folder());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
      throw error;
    }
    let left = 0;
    for (const file of names.sort()) {
      const dead = CLAIMED.exec(file);
      if (!file.endsWith(".jsonl") && !(dead && !isAlive(Number(dead[1])))) continue;
      const claimed = path.join(folder(), `${file.replace(CLAIMED, "")}.replaying-${process.pid}`);
      try {
        await rename(path.join(folder(), file), claimed);
      } catch {
        continue; // Another process took it.
      }
      const lines = (await readFile(claimed, "utf8")).split("\n").filter(Boolean);
      let index = 0;
      for (; index < lines.length; index++) {
        let item: T;
        try {
          item = JSON.parse(lines[index]!) as T;
        } catch {
          continue; // A line cut short by a crash while it was written.
        }
        try {
          await record(item);
        } catch (error) {
          if (isDatabaseUnavailable(error)) break;
          log().error(errorFields(error), `spool ${name}: a record could not be written and is dropped`);
        }
      }
      if (index < lines.length) {
        await writeFile(path.join(folder(), `${own}-${Date.now()}.jsonl`), `${lines.slice(index).join("\n")}\n`, { mode: 0o600 });
        left += lines.length - index;
      }
      await unlink(claimed);
      // Still down: the other files wait for the next try.
      if (left > 0) break;
    }
    return left;
  }

  function replay(): Promise<number> {
    running ??= replayFiles().finally(() => (running = undefined));
    return running;
  }

  return {
    async add(item) {
      await mkdir(folder(), { recursive: true, mode: 0o700 });
      await appendFile(path.join(folder(), `${own}.jsonl`), `${JSON.stringify(item)}\n`, { mode: 0o600 });
      log().warn(`spool ${name}: kept a record until the database is back`);
      schedule();
    },
    replay,
    resume() {
      readdir(folder()).then(
        (files) => files.length > 0 && schedule(),
        () => undefined,
      );
    },
  };
}
