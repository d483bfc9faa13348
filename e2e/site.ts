// The site each Playwright worker drives. Every worker has a server, a database and a data folder
// of its own (scripts/e2e-server.ts starts one per worker), so specs running at the same time on
// different workers never see each other's writes, and a spec behaves as it does alone.
import os from "node:os";
import path from "node:path";

export type WorkerSite = {
  /** The worker's slot, 0 to workers - 1 (Playwright's TEST_PARALLEL_INDEX). */
  index: number;
  port: number;
  appUrl: string;
  database: string;
  /** DATA_DIR of the worker's server: its stored files (files/) and the mail it wrote (mail/). */
  dataDir: string;
};

/** The site of worker slot `index`; in a worker process, its own slot by default. */
export function workerSite(index = Number(process.env.TEST_PARALLEL_INDEX ?? 0)): WorkerSite {
  const port = Number(process.env.E2E_PORT ?? 3100) + index;
  const database = `${process.env.E2E_DATABASE ?? "clib_e2e"}_${index}`;
  return { index, port, appUrl: `http://127.0.0.1:${port}`, database, dataDir: path.join(os.tmpdir(), `clib-e2e-${database}`) };
}
