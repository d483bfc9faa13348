// A worker serves a guest's library and home page to itself before it takes traffic: a fresh
// process's first render costs about 0.4 s (first runs of modules, the JIT, new database
// connections), which the first visitors after a start or deploy would otherwise wait for.
import http from "node:http";
import type { AddressInfo } from "node:net";

/** Through a private loopback listener (`exclusive`: no cluster primary hears of it); given up after 5 s (a database that does not answer), never throws. */
export async function warmUp(app: http.RequestListener, options: http.ServerOptions): Promise<void> {
  const server = http.createServer(options, app);
  const signal = AbortSignal.timeout(5_000);
  try {
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen({ host: "127.0.0.1", port: 0, exclusive: true }, resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = { "User-Agent": "creator-library-warm-up", "Accept-Encoding": "br, gzip" };
    for (const path of ["/library", "/"]) await (await fetch(base + path, { headers, signal })).arrayBuffer();
  } catch {
    // Not warm: the first visitors pay for it.
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
