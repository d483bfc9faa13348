// An embedded PostgreSQL for zero-setup runs: PGlite (PostgreSQL compiled to WebAssembly) kept
// in a folder, served on a local port over the PostgreSQL wire protocol.
import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { citext } from "@electric-sql/pglite/contrib/citext";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { freePort } from "./app-server.ts";

export async function startEmbeddedPostgres(dataDir: string) {
  await mkdir(dataDir, { recursive: true });
  const pglite = await PGlite.create({ dataDir, extensions: { citext } });
  const port = await freePort();
  const server = new PGLiteSocketServer({ db: pglite, port, host: "127.0.0.1", maxConnections: 16 });
  await server.start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await pglite.close();
    },
  };
}
