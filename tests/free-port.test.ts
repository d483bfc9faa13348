// Servers that tests start take their port from freePort. A port from the kernel's ephemeral range
// can be taken by any outgoing connection between the choice and the server's bind (EADDRINUSE in
// CI), so freePort chooses below that range.
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it, vi } from "vitest";
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

  it("passes over a port that is taken and chooses another", async () => {
    const takenPort = await freePort();
    const taken = createServer().listen(takenPort, "127.0.0.1");
    await once(taken, "listening");
    // freePort's first choice falls on the taken port, its next one elsewhere in its range.
    const range = ephemeralLow! - 10_000;
    const random = vi
      .spyOn(Math, "random")
      .mockReturnValueOnce((takenPort - 10_000 + 0.5) / range)
      .mockReturnValueOnce(((takenPort - 10_000 + range / 2) % range) / range);
    try {
      const port = await freePort();
      expect(port).not.toBe(takenPort);
      expect(random).toHaveBeenCalledTimes(2);
    } finally {
      random.mockRestore();
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
