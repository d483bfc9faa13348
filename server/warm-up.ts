// A worker serves its busiest pages to itself once before it takes traffic. A fresh process's first
// render of the library costs about 0.4 s (modules' first run, the JIT, the first database
// connections) and the next few several times a warm one's; without this, the visitors who come
// first after a start or a deploy wait for it, and on a release day they all come at once.
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A guest's library and home page: the same loaders, components and encoders a reader's view runs. */
const WARM_UP_PATHS = ["/library", "/"] as const;
/** A worker that cannot warm up in this time (a database that does not answer) starts anyway. */
const WARM_UP_TIMEOUT_MS = 5_000;
const WARM_UP_USER_AGENT = "creator-library-warm-up";

/**
 * Sends WARM_UP_PATHS to `app` through a private loopback listener of this process (`exclusive`:
 * in a cluster worker it is not shared with the other workers, and the primary never hears of it).
 * Never throws: a page that fails here fails for a visitor too, and says so there.
 */
export async function warmUp(app: http.RequestListener, options: http.ServerOptions, appUrl: string): Promise<void> {
  const server = http.createServer(options, app);
  const deadline = AbortSignal.timeout(WARM_UP_TIMEOUT_MS);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host: "127.0.0.1", port: 0, exclusive: true }, resolve);
    });
    const { port } = server.address() as AddressInfo;
    const headers = { Host: new URL(appUrl).host, "User-Agent": WARM_UP_USER_AGENT, "Accept-Encoding": "br, gzip" };
    for (const path of WARM_UP_PATHS) await get({ host: "127.0.0.1", port, path, headers, agent: false, signal: deadline });
  } catch {
    // Not warm: the first visitors pay for it.
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

function get(options: http.RequestOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(options, (response) => {
        response.resume();
        response.once("end", resolve);
        response.once("error", reject);
      })
      .once("error", reject);
  });
}
