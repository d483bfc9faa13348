// REMIX_BUILD_DIR lets several builds live side by side (parallel test runs on one machine).
const buildDir = process.env.REMIX_BUILD_DIR ?? "build";

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}"],
  serverModuleFormat: "esm",
  serverPlatform: "node",
  serverBuildPath: `${buildDir}/index.js`,
  assetsBuildDirectory: buildDir === "build" ? "public/build" : `${buildDir}/public/build`,
  // Server-only dependencies stay external; the generated Prisma client is bundled from app/.
  serverDependenciesToBundle: [/^remix-auth/, /^remix-toast/],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: false,
  },
};
