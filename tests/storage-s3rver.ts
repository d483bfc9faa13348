// A real S3-API server (s3rver) on a random 127.0.0.1 port, for tests of the S3 storage backend.
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { S3Storage } from "~/integrations/s3-storage.server";

type S3rverInstance = { run(): Promise<AddressInfo>; close(): Promise<void> };

export async function startS3rver(
  bucket = "library-test",
): Promise<{ storage: S3Storage; endpoint: string; directory: string; stopServer: () => Promise<void>; stop: () => Promise<void> }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), "clib-s3rver-"));
  // s3rver ships no types (tests/s3rver.d.ts).
  const { default: S3rver } = (await import("s3rver")) as { default: new (options: object) => S3rverInstance };
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const storage = await S3Storage.create({ endpoint, region: "us-east-1", bucket, accessKeyId: "S3RVER", secretAccessKey: "S3RVER", forcePathStyle: true });
  let running = true;
  /** Stops the S3 server only: the app's client stays, as when the real service goes down. */
  const stopServer = async () => {
    if (running) await server.close();
    running = false;
  };
  return {
    storage,
    endpoint,
    directory,
    stopServer,
    stop: async () => {
      storage.destroy();
      await stopServer();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
