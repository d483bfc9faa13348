// The pooler run (`npm run test:pooler`): a representative part of the integration suite with
// the app's queries going through PgBouncer in transaction mode (tests/pgbouncer.ts), as on most
// hosted PostgreSQL. Migrations and test databases still use the direct connection.
import { defineConfig } from "vitest/config";
import base, { integrationSetup, shared } from "./vitest.config";

export default defineConfig({
  resolve: base.resolve,
  test: {
    ...shared,
    ...integrationSetup,
    include: [
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
    ],
    globalSetup: ["tests/global-setup.ts", "tests/pooler-setup.ts"],
  },
});
