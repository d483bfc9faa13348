// Servers that tests start take their port from freePort. A port from the kernel's ephemeral range
// can be taken by any outgoing connection between the choice and the server's bind (EADDRINUSE in
// CI), so freePort chooses below that range.
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "../scripts/app-server";

const [ephemeralLow] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);

describe("freePort", () => {
  it("chooses ports below the ephemeral range that a server can listen on", async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow!);
      const server = createServer().listen(port, "127.0.0.1");
      await once(server, "listening");
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
