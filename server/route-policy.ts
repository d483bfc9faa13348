// The request policy of the route that will answer a path (app/request-policy.server.ts), found
// with Remix's own route matching, so the edge and the app never disagree about which route runs.
import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import type { RequestPolicy } from "../app/request-policy.server.ts";

/** The build's routes as the nested route objects Remix matches (ids kept for the lookup). */
function routeTree(build: ServerBuild, parentId: string | undefined): AgnosticRouteObject[] {
  return Object.values(build.routes)
    .filter((route) => route.parentId === parentId)
    .map(({ id, index, path, caseSensitive }) => (index ? { id, index, path, caseSensitive } : { id, path, caseSensitive, children: routeTree(build, id) }));
}

/** The page a single fetch data request is for: `/library.data` is `/library`'s, `/_root.data` is `/`'s. */
export function pagePathOf(pathname: string): string {
  return pathname.endsWith(".data") ? pathname.replace(/\.data$/, "").replace(/^\/_root$/, "/") : pathname;
}

/**
 * The route that answers a path (its id) and the deepest match's `requestPolicy()`, else the
 * default. A function, so that the browser build drops it with the server code it names.
 */
export function routePolicies(build: ServerBuild): (pathname: string) => { routeId: string | null; policy: RequestPolicy } {
  const tree = routeTree(build, undefined);
  const policies = new Map(
    Object.entries(build.routes).map(([id, route]) => [id, (route.module as { requestPolicy?: () => RequestPolicy }).requestPolicy?.()]),
  );
  const singleFetch = Boolean(build.future.v3_singleFetch);
  return (pathname) => {
    const routeId = matchRoutes(tree, singleFetch ? pagePathOf(pathname) : pathname)?.at(-1)?.route.id ?? null;
    return { routeId, policy: (routeId && policies.get(routeId)) || {} };
  };
}
