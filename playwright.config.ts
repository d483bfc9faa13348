import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

// Each worker drives a server and database of its own (e2e/site.ts): specs on different workers
// never share data, so they can run at the same time. E2E_WORKERS sets how many (default 3: on a
// 2-core machine two workers leave the cores idle a quarter of the time, each waiting on its
// server and browser). The runner sets the base port and database name before workers start, so
// every worker (and the fixtures that read the database) sees the same values.
const workers = Number(process.env.E2E_WORKERS ?? 3);
// Ports from 3100 up, `workers` in a row that nothing listens on (a machine's own services, such
// as MariaDB on 3306, sit in this range), stepping past 3659, which is on Chromium's list of
// blocked ports (ERR_UNSAFE_PORT). Found by a child process: the config is read synchronously.
const FREE_PORTS = `
const net = require("node:net");
const free = (port) => new Promise((resolve) => {
  const server = net.createServer().once("error", () => resolve(false));
  server.listen(port, () => server.close(() => resolve(true)));
});
(async () => {
  for (let tries = 0; tries < 200; tries++) {
    const first = 3100 + Math.floor(Math.random() * 800);
    if (first <= 3659 && 3659 < first + ${workers}) continue;
    let all = true;
    for (let port = first; port < first + ${workers} && all; port++) all = await free(port);
    if (all) return console.log(first);
  }
  process.exit(1);
})();`;
process.env.E2E_PORT ??= execFileSync(process.execPath, ["-e", FREE_PORTS], { encoding: "utf8" }).trim();
process.env.E2E_DATABASE ??= `clib_e2e_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;

// Chromium's headless shell (Debian's chromium-headless-shell), the build Playwright itself runs
// for headless tests: the same Blink and V8 without the desktop browser's windowing and display
// compositor, for about 40% less CPU (docs/decisions/017-e2e-browser.md). The full browser runs
// the suite too: CHROMIUM_PATH=/usr/bin/chromium.
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const chromiumPath = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");

// Playwright runs spec files in name order. E2E_ORDER=reverse runs them last to first (one
// project per file, projects run in the order listed) to show that no spec relies on another
// having run before it; every spec must also pass alone (`npx playwright test e2e/FILE`).
const chromium = { ...devices["Desktop Chrome"] };
const specFiles = readdirSync(new URL("./e2e", import.meta.url))
  .filter((file) => file.endsWith(".spec.ts"))
  .sort();
const projects =
  process.env.E2E_ORDER === "reverse"
    ? specFiles.reverse().map((file) => ({ name: `chromium ${file}`, testMatch: new RegExp(`/${file.replace(/\./g, "\\.")}$`), use: chromium }))
    : [{ name: "chromium", use: chromium }];

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers,
  retries: process.env.CI ? 1 : 0,
  reporter: "list",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    // baseURL is each worker's own server (e2e/fixtures.ts).
    // Tracing every test (DOM snapshots and screenshots of each step) makes the suite about a
    // third slower, so only a retried test records one; `--trace on` records them all.
    trace: "on-first-retry",
    // The viewer's language and time zone are pinned: dates are written in them (app/utils/dates.ts).
    locale: "en-GB",
    timezoneId: "UTC",
    launchOptions: {
      executablePath: chromiumPath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects,
  // One process prepares and starts every worker's server (scripts/e2e-server.ts) and says when
  // all of them answer.
  webServer: {
    command: `node --import tsx scripts/e2e-server.ts ${workers}`,
    wait: { stdout: /e2e sites ready/ },
    timeout: 180_000,
    stdout: "ignore",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
