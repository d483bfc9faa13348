import path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Tests of pure modules: they run without a database or the per-file setup. */
const UNIT_TESTS = [
  "app/utils/**/*.test.ts",
  "app/components/**/*.test.ts",
  "app/cache.server.test.ts",
  "app/content-coding.server.test.ts",
  "app/env.server.test.ts",
  "app/integrations/zip-delta.server.test.ts",
  "tests/layers.test.ts",
];

/**
 * Options every run shares. Three files at a time on these 2-core machines: an integration file
 * spends a fifth of its time waiting (on PostgreSQL, a server it started, a timer), which a third
 * file fills. Each file runs in a worker thread of its own, with its own modules and environment:
 * a process per file took about 8% more CPU for the same files (docs/benchmarks.md).
 */
const shared = {
  globals: true,
  pool: "threads",
  poolOptions: { threads: { maxThreads: 3, minThreads: 1, isolate: true }, forks: { maxForks: 1, minForks: 1, isolate: true } },
  testTimeout: 30_000,
  hookTimeout: 60_000,
} as const;

/**
 * The unit project runs every file in one worker thread: pure modules share no state, so a thread
 * per file would only repeat the start-up.
 */
const oneThreadForAll = { threads: { maxThreads: 1, minThreads: 1, isolate: false } };

/** Integration tests: one migrated template database per run, a fresh copy of it per test file. */
const integrationSetup = { globalSetup: ["tests/global-setup.ts"], setupFiles: ["tests/setup-file.ts"] };

/**
 * The pooler project: a representative part of the integration suite again, with the app's
 * queries going through PgBouncer in transaction mode (tests/pgbouncer.ts), as on most hosted
 * PostgreSQL. Migrations and test databases still use the direct connection.
 */
const POOLER_TESTS = [
  "tests/pooler-project.test.ts",
  "tests/auth.test.ts",
  "tests/session-lookup.test.ts",
  "tests/library-api.test.ts",
  "tests/download.test.ts",
  "tests/admin-api.test.ts",
  "tests/inspiration-api.test.ts",
  "tests/sync-interval.test.ts",
  "tests/library-version.test.ts",
  "tests/rate-limits.test.ts",
  // Login codes and migration 0006 run again through the pooler.
  "tests/login-codes.test.ts",
  // The update digest's run lock and mail ledger.
  "tests/update-notifications.test.ts",
  // The mail outbox's claims (FOR UPDATE SKIP LOCKED in one statement) and the one-transaction sign-up.
  "tests/mail-outbox.test.ts",
  // A query given up on is cancelled through the pooler (its CancelRequest) and its connection closed.
  "tests/db-unanswered.test.ts",
];

/**
 * Files that measure the resident memory of their own process (an upload that must stream): each
 * runs in a process of its own, since a worker thread shares its process's memory with the files
 * running beside it.
 */
const MEMORY_TESTS = ["tests/post-version-large-zip.test.ts", "tests/post-upload-memory.test.ts", "tests/leak-trace.test.ts"];

/**
 * The longest files, longest first (each over half a minute alone on CI; together about a third
 * of the workers' time). They start before every other file: one of them started late runs on
 * alone at the end while the other workers sit idle. Without this a fresh clone (no timings cached)
 * runs the largest files first, and a file's size says little about how long it runs
 * (first-run.test.ts was 29th).
 */
const LONGEST_FILES = [
  "tests/authorization-matrix.test.ts",
  "tests/backup-restore.test.ts",
  "tests/first-run-copy-user.test.ts",
  "tests/first-run-copy.test.ts",
  "tests/first-run.test.ts",
  "tests/npm-start-stops.test.ts",
  "tests/observability.test.ts",
];

/** Vitest's order (failed, then longest by cached timing, else largest, first) after LONGEST_FILES. */
class LongestFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FILES.indexOf(path.relative(__dirname, spec.moduleId).split(path.sep).join("/"));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    // Array.prototype.sort is stable: the rest keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  resolve: { alias: { "~": path.resolve(__dirname, "app") } },
  test: {
    ...shared,
    sequence: { sequencer: LongestFilesFirst },
    projects: [
      { extends: true, test: { name: "unit", include: UNIT_TESTS, poolOptions: oneThreadForAll } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["app/**/*.test.{ts,tsx}", "tests/**/*.test.{ts,tsx}"],
          exclude: [...UNIT_TESTS, ...MEMORY_TESTS, "tests/pooler-project.test.ts", "**/node_modules/**"],
          ...integrationSetup,
        },
      },
      // One file at a time, beside the integration project's threads.
      {
        extends: true,
        test: {
          name: "memory",
          include: MEMORY_TESTS,
          ...integrationSetup,
          pool: "forks",
        },
      },
      // In the same run as the others, so both workers stay busy until the last file.
      {
        extends: true,
        test: { name: "pooler", include: POOLER_TESTS, ...integrationSetup, globalSetup: [...integrationSetup.globalSetup, "tests/pooler-setup.ts"] },
      },
    ],
  },
});
