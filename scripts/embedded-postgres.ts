// An embedded PostgreSQL for zero-setup runs: PGlite (PostgreSQL compiled to WebAssembly) kept
// in a folder, served on a local port over the PostgreSQL wire protocol.
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { citext } from "@electric-sql/pglite/contrib/citext";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

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
