// Whole pages as a browser gets them: Remix's own request handler with app/entry.server.tsx and
// the page route modules as vitest loads them, so route `headers` exports, the document cache and
// error boundaries all take part, without a build. Resource routes (.ts) are not included.
import { readdirSync } from "node:fs";
import path from "node:path";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import * as entry from "~/entry.server";
import { runAsViewer } from "~/request-context.server";
import * as root from "~/root";
import { buildRequest } from "./helpers";

type PageModule = ServerBuild["routes"][string]["module"];

const routesDir = path.resolve(import.meta.dirname, "../app/routes");

/** The page route files' names without `.tsx` (`account.delete`), each with its module. */
const pageModules: Promise<[string, PageModule][]> = Promise.all(
  readdirSync(routesDir)
    .filter((file) => file.endsWith(".tsx") && !file.includes(".test."))
    .map(async (file) => [file.slice(0, -".tsx".length), (await import(path.join(routesDir, file))) as PageModule] as [string, PageModule]),
);

/** The address pattern of a flat-routes page file: `unsubscribe.$token` is `unsubscribe/:token`. */
function pagePath(name: string): { path?: string; index?: true } {
  if (name === "_index") return { index: true };
  const segments = name.split(".").map((segment) => {
    const plain = segment.replace(/_$/, "");
    if (plain === "$") return "*";
    return plain.startsWith("$") ? `:${plain.slice(1)}` : plain;
  });
  return { path: segments.join("/") };
}

async function pageBuild(): Promise<ServerBuild> {
  const routes: ServerBuild["routes"] = { root: { id: "root", path: "", module: root } };
  for (const [name, module] of await pageModules) {
    const id = `routes/${name}`;
    routes[id] = { id, parentId: "root", ...pagePath(name), module };
  }
  const manifestRoutes = Object.fromEntries(
    Object.values(routes).map((route) => [
      route.id,
      {
        id: route.id,
        parentId: route.parentId,
        path: route.path,
        index: route.index,
        hasAction: Boolean(route.module.action),
        hasLoader: Boolean(route.module.loader),
        hasClientAction: false,
        hasClientLoader: false,
        hasErrorBoundary: Boolean(route.module.ErrorBoundary),
        module: `/assets/${route.id}.js`,
        imports: [],
        css: [],
      },
    ]),
  );
  return {
    mode: "production",
    entry: { module: entry },
    routes,
    assets: { entry: { imports: [], module: "/assets/entry.client.js" }, routes: manifestRoutes, url: "/assets/manifest.js", version: "test" },
    publicPath: "/",
    assetsBuildDirectory: "build/client",
    future: {
      v3_fetcherPersist: true,
      v3_relativeSplatPath: true,
      v3_throwAbortReason: true,
      v3_lazyRouteDiscovery: true,
      v3_singleFetch: true,
    },
    isSpaMode: false,
  };
}

let handler: Promise<ReturnType<typeof createRequestHandler>> | undefined;

/** Requests a page (GET) or posts to its action, as the HTTP server would hand it to Remix. */
export async function requestDocument(options: Parameters<typeof buildRequest>[0]): Promise<Response> {
  handler ??= pageBuild().then((build) => createRequestHandler(build, "production"));
  const request = buildRequest(options);
  const handle = await handler;
  return runAsViewer(request.headers, () => handle(request, { clientAddress: "127.0.0.1" }));
}

/** Every page route file that exports an action, as `[file name, address pattern]` (an index route's posts carry `?index`). */
export async function pagesWithActions(): Promise<[string, string][]> {
  return (await pageModules)
    .filter(([, module]) => Boolean(module.action))
    .map(([name]) => {
      const { path: pattern, index } = pagePath(name);
      return [`${name}.tsx`, index ? "/?index" : `/${pattern}`];
    });
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|quot|lt|gt|apos);/gi, (_, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return ({ amp: "&", quot: '"', lt: "<", gt: ">", apos: "'" } as Record<string, string>)[lower]!;
  });
}

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, value] of tag.matchAll(/\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?/g))
    attributes.set(name!.toLowerCase(), decodeEntities(value ?? ""));
  return attributes;
}

/**
 * The fields a browser would post for the first form of `html` that has every `wanted` field
 * (text inputs, hidden inputs, checked boxes, text areas, selected options; no buttons or files),
 * in document order.
 */
export function formFieldsOf(html: string, wanted: Record<string, string>): URLSearchParams {
  for (const [, body] of html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/g)) {
    const fields = new URLSearchParams();
    for (const [control] of body!.matchAll(/<input\b[^>]*>|<textarea\b[^>]*>[\s\S]*?<\/textarea>|<select\b[^>]*>[\s\S]*?<\/select>/g)) {
      const attributes = attributesOf(control.slice(0, control.indexOf(">") + 1));
      const name = attributes.get("name");
      if (!name || attributes.has("disabled")) continue;
      if (control.startsWith("<textarea")) {
        fields.append(name, decodeEntities(control.replace(/^<textarea\b[^>]*>/, "").replace(/<\/textarea>$/, "")));
      } else if (control.startsWith("<select")) {
        const options = [...control.matchAll(/<option\b[^>]*>/g)].map(([option]) => attributesOf(option));
        const picked = options.find((option) => option.has("selected")) ?? options[0];
        if (picked) fields.append(name, picked.get("value") ?? "");
      } else {
        const type = attributes.get("type") ?? "text";
        if (["submit", "button", "reset", "file", "image"].includes(type)) continue;
        if ((type === "checkbox" || type === "radio") && !attributes.has("checked")) continue;
        fields.append(name, attributes.get("value") ?? (type === "checkbox" || type === "radio" ? "on" : ""));
      }
    }
    if (Object.entries(wanted).every(([name, value]) => fields.getAll(name).includes(value))) return fields;
  }
  throw new Error(`no form with ${JSON.stringify(wanted)}`);
}
