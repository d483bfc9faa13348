// The patch-package patches of patches/ (each explained in docs/decisions/007-patches.md): every
// line a patch adds must be in the installed file, so a failed or skipped `patch-package` run
// fails here instead of quietly bringing back the bug. And the stream patch's own behaviour.
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { PassThrough, Writable } from "node:stream";
import path from "node:path";
import { writeReadableStreamToWritable } from "@remix-run/node";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const patchFiles = readdirSync(path.join(root, "patches")).filter((file) => file.endsWith(".patch"));

/** The lines each patched file gains: "+" lines under each "+++ b/<file>" header. */
function addedLines(patch: string): Map<string, string[]> {
  const files = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of patch.split("\n")) {
    const header = /^\+\+\+ b\/(.+)$/.exec(line);
    if (header) files.set(header[1]!, (current = []));
    else if (current && line.startsWith("+") && line.slice(1).trim()) current.push(line.slice(1).trim());
  }
  return files;
}

describe("patches", () => {
  it("are there to check", () => {
    expect(patchFiles.length).toBeGreaterThanOrEqual(3);
  });

  for (const file of patchFiles) {
    it(`${file} is applied to node_modules`, () => {
      const files = addedLines(readFileSync(path.join(root, "patches", file), "utf8"));
      expect(files.size).toBeGreaterThan(0);
      for (const [target, lines] of files) {
        const installed = readFileSync(path.join(root, target), "utf8");
        const missing = lines.filter((line) => !installed.includes(line));
        expect(missing, `${target} lacks lines of ${file}`).toEqual([]);
      }
    });
  }
});

describe("prisma CLI patch", () => {
  // The schema engine leaves its 10-second lock timer behind. Unpatched, the CLI then ends only
  // when its event loop has emptied, which Node announces with "beforeExit"; patched, the wrapper's
  // commands end by process.exit as soon as they return, so "beforeExit" never comes.
  it("ends a migrate command as soon as it returns, without waiting for its event loop to empty", () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), "clib-prisma-exit-"));
    try {
      const probe = path.join(folder, "probe.cjs");
      writeFileSync(probe, `process.on("beforeExit", () => process.stderr.write("event loop emptied\\n"));\n`);
      const run = spawnSync(process.execPath, [path.join(root, "scripts/prisma.mjs"), "migrate", "status"], {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: `--require ${probe}` },
        encoding: "utf8",
      });
      const output = `${run.stdout}${run.stderr}`;
      expect(output).toContain("Database schema is up to date!");
      expect(run.status).toBe(0);
      expect(output).not.toContain("event loop emptied");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("@remix-run/node stream patch", () => {
  it("waits for a slow client instead of buffering the whole source (backpressure)", async () => {
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new Uint8Array(64 * 1024));
        if (pulls === 100) controller.close();
      },
    });
    // A client that takes one chunk and then nothing more.
    const client = new Writable({ highWaterMark: 16 * 1024, write: () => undefined });
    void writeReadableStreamToWritable(source, client);
    // The client's buffer is full (a positive signal that writing reached it); then the event
    // loop goes round many times. Without backpressure each turn pulls and writes more chunks,
    // so all 100 would be pulled long before; with it the source waits for a drain that never comes.
    await expect.poll(() => client.writableNeedDrain, { interval: 5, timeout: 15_000 }).toBe(true);
    for (let turn = 0; turn < 200; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(pulls).toBeLessThan(5);
    client.destroy();
  });

  it("cancels the source and returns when the client goes away while a read is pending", async () => {
    let cancelled = false;
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>({
      // The first chunk comes at once; the next read never completes (a stalled storage read).
      pull(controller) {
        pulls += 1;
        if (pulls === 1) controller.enqueue(new Uint8Array(16));
        return new Promise(() => undefined);
      },
      cancel() {
        cancelled = true;
      },
    });
    const client = new PassThrough();
    const firstChunk = once(client, "data");
    const finished = writeReadableStreamToWritable(source, client);
    // The first chunk arrived; a few event-loop turns later the writer waits on its next read
    // (the source's pull never settles). Now the client goes away.
    await firstChunk;
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(pulls).toBe(1);
    client.destroy();
    // A hang shows as "still pending" (generous: only a bug waits this long).
    const outcome = await Promise.race([finished.then(() => "returned"), new Promise((resolve) => setTimeout(() => resolve("still pending"), 15_000))]);
    expect(outcome).toBe("returned");
    expect(cancelled).toBe(true);
  });
});

describe("@remix-run/node stream patch behind compression", () => {
  // compression forwards a response's "drain" listeners to its zlib stream but not their removal,
  // so a writer that adds and removes one per wait leaves one behind per wait, and each later
  // drain calls them all. A long compressed response must keep one, however often it waits.
  it("waits for drains many times without piling up listeners", async () => {
    const { default: compression } = await import("compression");
    const { createServer, get } = await import("node:http");
    const { brotliDecompressSync } = await import("node:zlib");
    const chunk = new TextEncoder().encode("A line of a large page that compresses well.\n".repeat(1_500));
    const chunks = 120;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    let drainListeners: (() => number) | undefined;
    const server = createServer((req, res) => {
      compression({ threshold: 0 })(req as never, res as never, () => {
        // compression adds "drain" listeners to its zlib stream: count them through the same door.
        const on = res.on.bind(res);
        const added = new Set<unknown>();
        res.on = ((type: string, listener: (...args: unknown[]) => void) => {
          if (type === "drain") added.add(listener);
          return on(type, listener);
        }) as typeof res.on;
        drainListeners = () => added.size;
        let sent = 0;
        const source = new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(chunk);
            if (++sent === chunks) controller.close();
          },
        });
        res.setHeader("Content-Type", "text/html");
        void writeReadableStreamToWritable(source, res);
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as { port: number };
    try {
      const body = await new Promise<Buffer>((resolve, reject) => {
        get({ port, host: "127.0.0.1", headers: { "accept-encoding": "br" } }, (response) => {
          const parts: Buffer[] = [];
          response.on("data", (part: Buffer) => parts.push(part));
          response.on("end", () => resolve(Buffer.concat(parts)));
          response.on("error", reject);
        }).on("error", reject);
      });
      expect(brotliDecompressSync(body).length).toBe(chunk.length * chunks);
      expect(drainListeners?.()).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.includes("drain"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      server.close();
    }
  });
});
