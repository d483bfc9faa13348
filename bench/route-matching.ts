// What the `@remix-run/router` patch (docs/decisions/007-patches.md) saves: CPU time of one route
// match over the build's real routes, for the paths people load, with the installed (patched)
// router against the same file with the patch taken back out (`patch -R` on a copy). Remix
// matches each request's path about twice, so twice the difference is what a request saves.
// Target: the patch keeps its place while matching without it costs >= 5% of a signed-in page's
// CPU (about 0.4 ms per request in the page benchmark), so >= 10 µs per match.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AgnosticRouteObject } from "@remix-run/router";
import { ensureAppBuilt } from "../scripts/app-server.ts";
import type { TargetLine } from "./library.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const ROUTER_FILE = require.resolve("@remix-run/router/dist/router.cjs.js");
const PATCH_FILE = path.join(root, "patches/@remix-run+router+1.23.3.patch");
const PATHS = ["/", "/library", "/inspiration-vote", "/infos", "/login", "/account/updates", "/api/library/posts", "/api/download/post-1"];
const MATCHES = Number(process.env.BENCH_MATCHES ?? 20_000);
const TARGET_US = 10;

type Router = { matchRoutes: (routes: AgnosticRouteObject[], path: string) => unknown };
type BuiltRoute = { id: string; parentId?: string; path?: string; index?: boolean; caseSensitive?: boolean };

/** The build's routes as the nested objects Remix matches (as server/route-policy.ts builds them). */
function routeTree(routes: Record<string, BuiltRoute>, parentId: string | undefined): AgnosticRouteObject[] {
  return Object.values(routes)
    .filter((route) => route.parentId === parentId)
    .map((route) =>
      route.index
        ? { id: route.id, index: true, path: route.path, caseSensitive: route.caseSensitive }
        : { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children: routeTree(routes, route.id) },
    );
}

/** CPU microseconds per match, after a warm-up. */
function microsecondsPerMatch(router: Router, routes: AgnosticRouteObject[]): number {
  for (let i = 0; i < 2_000; i++) router.matchRoutes(routes, PATHS[i % PATHS.length]!);
  const start = process.cpuUsage();
  for (let i = 0; i < MATCHES; i++) router.matchRoutes(routes, PATHS[i % PATHS.length]!);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / MATCHES;
}

export async function benchRouteMatching(): Promise<TargetLine[]> {
  console.log(`\nRoute matching: ${MATCHES} matches of ${PATHS.length} paths, patched router against unpatched`);
  ensureAppBuilt();
  // The server build reads its configuration when loaded; nothing here connects to a database.
  process.env.DATABASE_URL ??= "postgresql://bench@127.0.0.1:9/none";
  process.env.SESSION_SECRET ??= "bench-session-secret-bench-session-secret";
  process.env.DISABLE_JOBS = "1";
  const build = (await import(pathToFileURL(path.join(root, process.env.REMIX_BUILD_DIR ?? "build", "server", "index.js")).href)) as {
    routes: Record<string, BuiltRoute>;
  };
  const routes = routeTree(build.routes, undefined);

  const scratch = mkdtempSync(path.join(os.tmpdir(), "clib-router-"));
  try {
    const unpatchedFile = path.join(scratch, "router.cjs.js");
    copyFileSync(ROUTER_FILE, unpatchedFile);
    execFileSync("patch", ["--reverse", "--silent", unpatchedFile], { input: readFileSync(PATCH_FILE) });
    const patched = require(ROUTER_FILE) as Router;
    const unpatched = require(unpatchedFile) as Router;
    // Alternating rounds; the median of each side counts.
    const patchedTimes: number[] = [];
    const unpatchedTimes: number[] = [];
    for (let round = 0; round < 3; round++) {
      patchedTimes.push(microsecondsPerMatch(patched, routes));
      unpatchedTimes.push(microsecondsPerMatch(unpatched, routes));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
    const saved = median(unpatchedTimes) - median(patchedTimes);
    console.log(
      `${Object.keys(build.routes).length} routes: ${median(patchedTimes).toFixed(1)} µs per match patched, ${median(unpatchedTimes).toFixed(1)} µs unpatched (rounds: ${patchedTimes.map((v) => v.toFixed(1)).join(", ")} / ${unpatchedTimes.map((v) => v.toFixed(1)).join(", ")})`,
    );
    const ok = saved >= TARGET_US;
    console.log(
      `${ok ? "PASS" : "MISS"}  the patch saves ${saved.toFixed(1)} µs per match, about ${(saved * 2).toFixed(0)} µs per request (target >= ${TARGET_US} µs per match)`,
    );
    return [{ name: "route matching patch", ok }];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchRouteMatching();
