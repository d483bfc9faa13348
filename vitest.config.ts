import path from "node:path";
import { defineConfig } from "vitest/config";

/** Tests of pure modules: they run without a database or the per-file setup. */
export const UNIT_TESTS = [
  "app/utils/**/*.test.ts",
  "app/components/**/*.test.ts",
  "app/cache.server.test.ts",
  "app/content-coding.server.test.ts",
  "app/env.server.test.ts",
  "tests/layers.test.ts",
];

/** Options every run shares. Two workers suit these 2-core machines. */
export const shared = {
  globals: true,
  pool: "forks",
  poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  testTimeout: 30_000,
  hookTimeout: 60_000,
} as const;

/** Integration tests: one migrated template database per run, a fresh copy of it per test file. */
export const integrationSetup = { globalSetup: ["tests/global-setup.ts"], setupFiles: ["tests/setup-file.ts"] };

export default defineConfig({
  resolve: { alias: { "~": path.resolve(__dirname, "app") } },
  test: {
    ...shared,
    projects: [
      { extends: true, test: { name: "unit", include: UNIT_TESTS } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["app/**/*.test.{ts,tsx}", "tests/**/*.test.{ts,tsx}"],
          exclude: [...UNIT_TESTS, "**/node_modules/**"],
          ...integrationSetup,
        },
      },
    ],
  },
});
