// Benchmark: the compressed JavaScript a visitor's browser loads before it can act on /, /library
// and /login (issue 47, item 8): every script the page's HTML names (the entry, the routes'
// modules and the chunks they import, all as modulepreload links or the inline module script),
// fetched from the production server as Chrome asks (Brotli) and counted as sent. Guest pages,
// demo content. Target: 100 KiB or less per page. `node --import tsx bench/first-load-js.ts`.
import http from "node:http";
import { pathToFileURL } from "node:url";
import type { TargetLine } from "./library.ts";
import { startSeededApp } from "./load.ts";

const PAGES = ["/", "/library", "/login"];
const TARGET_KIB = 100;
const ACCEPT_ENCODING = "gzip, deflate, br, zstd";

/** The bytes as sent (no decoding): fetch() would decompress them. */
function sentBytes(url: string): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { "Accept-Encoding": ACCEPT_ENCODING } }, (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => (bytes += chunk.length));
        response.on("end", () => resolve({ bytes, encoding: String(response.headers["content-encoding"] ?? "none") }));
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

/**
 * The built scripts a page's HTML loads at once: Remix names each one (the entry, the matched
 * routes' modules and every chunk they import) as a modulepreload link. Other /assets/ addresses
 * in the page (the route manifest's, for later navigations) are not loaded now.
 */
export function pageScripts(html: string): string[] {
  return [...new Set([...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((match) => match[1]!))];
}

export async function benchFirstLoadJs(): Promise<TargetLine[]> {
  console.log(`\nFirst-load JavaScript (compressed as sent, Brotli) of ${PAGES.join(", ")} as a guest; target <= ${TARGET_KIB} KiB`);
  const app = await startSeededApp();
  const lines: TargetLine[] = [];
  try {
    for (const pathname of PAGES) {
      const html = await (await fetch(`${app.base}${pathname}`)).text();
      const scripts = pageScripts(html);
      const sizes = await Promise.all(scripts.map(async (script) => ({ script, ...(await sentBytes(`${app.base}${script}`)) })));
      const total = sizes.reduce((sum, size) => sum + size.bytes, 0) / 1024;
      const ok = total <= TARGET_KIB;
      console.log(`${ok ? "PASS" : "MISS"}  ${pathname.padEnd(9)} ${total.toFixed(1)} KiB in ${scripts.length} scripts`);
      for (const size of sizes.sort((a, b) => b.bytes - a.bytes)) {
        console.log(`        ${(size.bytes / 1024).toFixed(1).padStart(6)} KiB  ${size.encoding.padEnd(4)}  ${size.script}`);
      }
      lines.push({ name: `first-load JavaScript ${pathname}`, ok });
    }
  } finally {
    await app.stop();
  }
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const targets = await benchFirstLoadJs();
  if (targets.some((target) => !target.ok)) process.exitCode = 1;
}
