// The HTTP server's half of the shared guest pages (server/app.ts): when a change forgets them.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reuseSharedPages } from "../server/app.ts";

describe("kept guest pages and changes", () => {
  const forgets: string[] = [];
  const relays: string[] = [];
  let current = "";
  let base = "";
  let server: ReturnType<express.Express["listen"]>;

  beforeAll(async () => {
    const app = express();
    app.use(
      reuseSharedPages(
        {
          forgetSharedPages: () => forgets.push(current),
          sharedPageAnswer: (url) => (url === "/kept" ? { status: 200, headers: [["Content-Type", "text/html"]], body: Buffer.from("kept copy") } : null),
        },
        () => relays.push(current),
      ),
    );
    // Stands in for Remix: answers with the status the test asks for.
    app.all("*", (req, res) => {
      current = `${req.method} ${req.path} answered`;
      res.status(Number(req.path.slice(1)) || 200).send("done");
    });
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  async function send(method: string, path: string): Promise<{ forgets: string[]; relays: string[] }> {
    forgets.length = 0;
    relays.length = 0;
    current = `${method} ${path} started`;
    const response = await fetch(base + path, { method });
    await response.text();
    // The second forget runs on the response's close, just after the client has it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { forgets: [...forgets], relays: [...relays] };
  }

  it("a successful change forgets the kept pages on every worker when it starts and again once answered", async () => {
    for (const path of ["/200", "/201", "/303"]) {
      const seen = await send("POST", path);
      expect(seen.forgets).toEqual([`POST ${path} started`, `POST ${path} answered`]);
      expect(seen.relays).toEqual(seen.forgets);
    }
    expect((await send("DELETE", "/204")).forgets).toHaveLength(2);
  });

  it("a refused change forgets them only when it starts: it wrote nothing", async () => {
    for (const path of ["/400", "/401", "/403", "/429", "/500"]) {
      const seen = await send("POST", path);
      expect(seen.forgets).toEqual([`POST ${path} started`]);
      expect(seen.relays).toEqual(seen.forgets);
    }
  });

  it("a GET forgets nothing, and a guest page kept moments ago answers without reaching the app", async () => {
    expect(await send("GET", "/200")).toEqual({ forgets: [], relays: [] });
    current = "untouched";
    const kept = await fetch(`${base}/kept`);
    expect(await kept.text()).toBe("kept copy");
    expect(kept.headers.get("content-length")).toBe(String("kept copy".length));
    expect(current).toBe("untouched");
  });
});
