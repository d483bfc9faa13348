// The request policy of the route that will answer a path (app/request-policy.server.ts), found
// with Remix's own route matching over the build's routes, so the edge and the app can never
// disagree about which route runs.
import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import type { RequestPolicy } from "../app/request-policy.server.ts";

const DEFAULT_POLICY: RequestPolicy = {};

/** The build's routes as the nested route objects Remix matches (ids kept for the lookup). */
function routeTree(build: ServerBuild, parentId: string | undefined): AgnosticRouteObject[] {
  return Object.values(build.routes)
    .filter((route) => route.parentId === parentId)
    .map((route) =>
      route.index
        ? { id: route.id, index: true, path: route.path, caseSensitive: route.caseSensitive }
        : { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children: routeTree(build, route.id) },
    );
}

/**
 * The page a single fetch data request is for, as Remix reads it: `/library.data` asks for
 * `/library`'s loaders (or posts to its action), `/_root.data` for `/`'s. Other paths are themselves.
 */
export function pagePathOf(pathname: string): string {
  if (!pathname.endsWith(".data")) return pathname;
  return pathname.replace(/\.data$/, "").replace(/^\/_root$/, "/");
}

/**
 * Answers the route that answers a path (its id) and its policy: the deepest match's
 * `requestPolicy()`, else the default. A route exports its policy as a function so that the browser build, which
 * keeps only a route's client exports, drops it together with the server code it names.
 */
export function routePolicies(build: ServerBuild): (pathname: string) => { routeId: string | null; policy: RequestPolicy } {
  const tree = routeTree(build, undefined);
  const policies = new Map<string, RequestPolicy>();
  for (const [id, route] of Object.entries(build.routes)) {
    const declared = (route.module as { requestPolicy?: () => RequestPolicy }).requestPolicy;
    if (declared) policies.set(id, declared());
  }
  const singleFetch = Boolean(build.future.v3_singleFetch);
  return (pathname) => {
    const routeId = matchRoutes(tree, singleFetch ? pagePathOf(pathname) : pathname)?.at(-1)?.route.id ?? null;
    return { routeId, policy: (routeId && policies.get(routeId)) || DEFAULT_POLICY };
  };
}
