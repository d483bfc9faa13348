import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

// One database and one server per run. The runner sets these before workers start, so every
// worker (and the fixtures that read the database) sees the same values.
// 3659 is in the range but on Chromium's list of blocked ports (ERR_UNSAFE_PORT): step past it.
const pickedPort = 3100 + Math.floor(Math.random() * 800);
process.env.E2E_PORT ??= String(pickedPort === 3659 ? 3660 : pickedPort);
process.env.E2E_DATABASE ??= `clib_e2e_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
const port = Number(process.env.E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;

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
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
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
  webServer: {
    command: "node --import tsx scripts/e2e-server.ts",
    url: `${baseURL}/healthz`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "ignore",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
