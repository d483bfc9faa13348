// Lighthouse (mobile emulation, its default simulated throttling) on /, /library and /login of
// the production build with the demo content, in Debian's Chromium with the e2e suite's flags.
// Prints performance, accessibility, best-practices and SEO scores and the JavaScript
// transferred; targets: performance >= 90 and accessibility 100 on each page.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "@playwright/test";
import lighthouse from "lighthouse";
import { startSeededApp } from "./load.ts";
import type { TargetLine } from "./library.ts";
import { freePort } from "../scripts/app-server.ts";

const PAGES = process.env.LIGHTHOUSE_PAGES?.split(",") ?? ["/", "/library", "/login"];
/** Where each page's whole Lighthouse result (JSON) is written, when set: what the score is made of. */
const REPORT_DIR = process.env.LIGHTHOUSE_REPORT_DIR;
// The library is measured at catalogue size: the demo's posts plus this many.
const EXTRA_POSTS = 1000;
// The same flags as playwright.config.ts: without them Chromium's calls to the outside hang here.
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--headless=new",
];

/** Trace errors Lighthouse reports when a busy machine dropped the trace's first events; the page itself loaded. */
const TRACE_ERRORS = new Set(["NO_NAVSTART", "NO_FCP"]);

/** One Lighthouse run of `url`, run once more when its trace came back incomplete. */
async function audited(url: string, port: number) {
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(url, {
      port,
      output: "json",
      logLevel: "error",
      onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
    });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const code = result.lhr.runtimeError?.code;
    if (attempt >= 2 || !code || !TRACE_ERRORS.has(code)) return result;
    console.log(`            ${code} (an incomplete trace); measuring again`);
  }
}

export async function runLighthouseBenchmark(): Promise<TargetLine[]> {
  console.log(`\nLighthouse (mobile emulation, simulated throttling) on ${PAGES.join(", ")}, demo content plus ${EXTRA_POSTS} posts`);
  const debuggingPort = await freePort();
  // Debian's Chromium, else its headless shell (what the end-to-end suite installs).
  const installed = ["/usr/bin/chromium", "/usr/bin/chromium-headless-shell"].find((file) => existsSync(file)) ?? "/usr/bin/chromium";
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH ?? process.env.CHROMIUM_PATH ?? installed,
    args: [...CHROMIUM_FLAGS, `--remote-debugging-port=${debuggingPort}`],
  });
  const app = await startSeededApp({ extraPosts: EXTRA_POSTS }).catch(async (error: unknown) => {
    await browser.close();
    throw error;
  });
  const lines: (TargetLine & { text: string })[] = [];
  try {
    console.log("page        perf  a11y  best-pr  seo  JS transferred  LCP      TBT     CLS");
    for (const pathname of PAGES) {
      const { lhr } = await audited(`${app.base}${pathname}`, debuggingPort);
      if (lhr.runtimeError) throw new Error(`Lighthouse failed on ${pathname}: ${lhr.runtimeError.message}`);
      if (REPORT_DIR) writeFileSync(path.join(REPORT_DIR, `${pathname.replace(/\W+/g, "_") || "_"}.json`), JSON.stringify(lhr));
      const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
      const summary = lhr.audits["resource-summary"]?.details as { items?: { resourceType: string; transferSize: number }[] } | undefined;
      const scriptBytes = summary?.items?.find((item) => item.resourceType === "script")?.transferSize ?? 0;
      const audit = (id: string) => lhr.audits[id]?.displayValue ?? "-";
      const failedA11y = Object.values(lhr.audits)
        .filter((entry) => entry.score === 0 && lhr.categories.accessibility?.auditRefs.some((ref) => ref.id === entry.id))
        .map((entry) => entry.id);
      console.log(
        `${pathname.padEnd(11)} ${String(score("performance")).padStart(4)}  ${String(score("accessibility")).padStart(4)}  ${String(score("best-practices")).padStart(7)}  ${String(score("seo")).padStart(3)}  ${`${(scriptBytes / 1024).toFixed(1)} KiB`.padStart(14)}  ${audit("largest-contentful-paint").padEnd(7)}  ${audit("total-blocking-time").padEnd(6)}  ${audit("cumulative-layout-shift")}`,
      );
      if (failedA11y.length > 0) console.log(`            accessibility audits failed: ${failedA11y.join(", ")}`);
      lines.push({
        name: `lighthouse performance ${pathname}`,
        ok: score("performance") >= 90,
        text: `${pathname} performance ${score("performance")} (target >= 90)`,
      });
      lines.push({
        name: `lighthouse accessibility ${pathname}`,
        ok: score("accessibility") === 100,
        text: `${pathname} accessibility ${score("accessibility")} (target 100)`,
      });
    }
  } finally {
    await browser.close();
    await app.stop();
  }
  for (const line of lines) console.log(`${line.ok ? "PASS" : "MISS"}  ${line.text}`);
  return lines.map(({ name, ok }) => ({ name, ok }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && fileURLToPath(import.meta.url)) {
  await runLighthouseBenchmark();
}
