// Input robustness of every `/api` route (enumerated from app/routes, so new ones are covered):
// fast-check sends malformed JSON, wrong types, oversized strings and bodies, path traversal
// and SQL-ish values as guest, user and admin. Never a 5xx, never a stack trace, SQL or file
// path in a body, and every refusal is JSON with an `error` string.
import { readdirSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { db } from "~/db.server";
import { buildRequest, createTestUser, sessionCookie } from "./helpers";

globalThis.__allowConsoleError = true;

type Handler = (args: { request: Request; params: Record<string, string>; context: object }) => unknown;
type RouteModule = { loader?: Handler; action?: Handler };

const routesDir = path.resolve(import.meta.dirname, "../app/routes");
const apiFiles = readdirSync(routesDir).filter((file) => file.startsWith("api.") && /\.tsx?$/.test(file));

/** Calls that reach outside services (the support platform) answer 502 by design when none is set up. */
const SKIP: Record<string, string> = {
  "api.admin.force-interval.ts POST": "runs the support-platform sync; 502 without a configured platform",
};

function routeParams(file: string): string[] {
  return file
    .replace(/\.tsx?$/, "")
    .split(".")
    .filter((segment) => segment.startsWith("$"))
    .map((segment) => (segment === "$" ? "*" : segment.slice(1)));
}

function routePath(file: string, params: Record<string, string>): string {
  return (
    "/" +
    file
      .replace(/\.tsx?$/, "")
      .split(".")
      .map((segment) => (segment.startsWith("$") ? encodeURIComponent(params[segment === "$" ? "*" : segment.slice(1)] ?? "x") : segment))
      .join("/")
  );
}

// ---------------------------------------------------------------- hostile values

const HOSTILE_STRINGS = [
  "../../../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "' OR '1'='1",
  "1; DROP TABLE users; --",
  '"; SELECT pg_sleep(1); --',
  "<script>alert(1)</script>",
  "\u0000",
  "%00",
  "${7*7}",
  "__proto__",
  "constructor",
  "-1",
  "1e309",
  "NaN",
  "\uD800",
  "🙂".repeat(50),
  " ",
  "",
];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.nat({ max: 30_000 }).map((length) => "x".repeat(length + 1000)),
);

/** Keys the routes read, so values of the wrong type land where they are used. */
const FIELD_NAMES = [
  "email",
  "password",
  "newPassword",
  "currentPassword",
  "code",
  "username",
  "title",
  "link",
  "description",
  "index",
  "enabled",
  "orderDate",
  "like",
  "tosAccepted",
  "postIds",
  "userId",
  "keyword",
  "votingOpen",
  "votingEndTime",
  "mode",
  "imageUrl",
  "isAdmin",
  "canBeAdmin",
  "restricted",
  "unlocked_content",
  "kofiEmails",
  "kofi_id",
  "tiers",
  "first_tiers",
  "paid_content",
  "drive_file_id",
  "data",
  "id",
  "fullName",
  "__proto__",
];

const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...FIELD_NAMES), tie("value"), { maxKeys: 4 }),
  ),
})).value;

type Body =
  | { kind: "none" }
  | { kind: "raw"; text: string; contentType: string }
  | { kind: "json"; value: unknown }
  | { kind: "form"; fields: Record<string, string> }
  | { kind: "multipart"; field: string; bytes: Uint8Array; fileName: string; contentType: string };

const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  fc.constant<Body>({ kind: "none" }),
  fc.record({ kind: fc.constant("json" as const), value: fc.dictionary(fc.constantFrom(...FIELD_NAMES), anyValue, { maxKeys: 6 }) }),
  fc.record({ kind: fc.constant("json" as const), value: anyValue }),
  fc.record({
    kind: fc.constant("raw" as const),
    text: fc.oneof(fc.constantFrom("{", '{"email":', "[1,2", "null", '"str"', "{}}", "\u0000"), fc.string({ maxLength: 50 })),
    contentType: fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""),
  }),
  fc.record({
    kind: fc.constant("form" as const),
    fields: fc.dictionary(
      fc.constantFrom(...FIELD_NAMES, "intent"),
      hostileString.filter((s) => s.length < 5000),
      { maxKeys: 4 },
    ),
  }),
  fc.record({
    kind: fc.constant("multipart" as const),
    field: fc.constantFrom("image", "file", "other"),
    bytes: fc.uint8Array({ maxLength: 64 }),
    fileName: fc.constantFrom("a.png", "../../evil.png", "x.csv", "a\u0000.jpg", "."),
    contentType: fc.constantFrom("image/png", "text/csv", "application/octet-stream", "image/svg+xml"),
  }),
);

function requestFor(method: string, url: string, body: Body, cookie: string | undefined): Request {
  if (method === "GET" || body.kind === "none") return buildRequest({ method, path: url, cookie });
  switch (body.kind) {
    case "json":
      return buildRequest({ method, path: url, cookie, body: JSON.stringify(body.value) ?? "null", headers: { "Content-Type": "application/json" } });
    case "raw":
      return buildRequest({ method, path: url, cookie, body: body.text, headers: body.contentType ? { "Content-Type": body.contentType } : {} });
    case "form":
      return buildRequest({ method, path: url, cookie, form: body.fields });
    case "multipart": {
      const form = new FormData();
      form.append(body.field, new Blob([new Uint8Array(body.bytes).buffer], { type: body.contentType }), body.fileName);
      return buildRequest({ method, path: url, cookie, form });
    }
  }
}

// ---------------------------------------------------------------- checks

const LEAKS = [
  /\n\s+at\s/,
  /node_modules/,
  /\/work\//,
  /\bprisma\b.*invocation/i,
  /\bSELECT\s.+\sFROM\b/i,
  /\bINSERT INTO\b/i,
  /syntax error at/i,
  /invalid input syntax/i,
  /PrismaClient/,
  /TypeError|ReferenceError|SyntaxError/,
];

async function call(module: RouteModule, method: string, request: Request, params: Record<string, string>): Promise<Response> {
  const handler = method === "GET" ? module.loader : module.action;
  try {
    const result = await handler!({ request, params, context: {} });
    if (result instanceof Response) return result;
    return new Response(JSON.stringify(result), { headers: { "Content-Type": "application/json" } });
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    // Remix would answer an escaped exception with a 500.
    return new Response(`uncaught: ${String(thrown)}`, { status: 500 });
  }
}

/** The problems of one answer; empty when it is fine. */
async function problemsOf(response: Response): Promise<string[]> {
  const problems: string[] = [];
  const text = await response.text();
  if (response.status >= 500) problems.push(`status ${response.status}: ${text.slice(0, 300)}`);
  for (const leak of LEAKS) if (leak.test(text)) problems.push(`leak ${leak}: ${text.slice(0, 300)}`);
  if (response.status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      problems.push(`status ${response.status} without JSON: ${text.slice(0, 200)}`);
    }
    if (parsed !== undefined && typeof (parsed as { error?: unknown })?.error !== "string")
      problems.push(`status ${response.status} without an error string: ${text.slice(0, 200)}`);
  }
  return problems;
}

// ---------------------------------------------------------------- tests

let cookies: { guest: undefined; user: string; admin: string };

beforeAll(async () => {
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
  const member = await createTestUser();
  cookies = { guest: undefined, user: await sessionCookie(member.id), admin: await sessionCookie(admin.id) };
  await db.post.create({ data: { id: "robust-post", title: "Robust post", paidContent: false } });
});

// Each route module through a glob Vite can see (a computed import makes it warn at every run).
const routeModules = import.meta.glob<RouteModule>("../app/routes/*.{ts,tsx}");

async function methodsOf(file: string): Promise<{ module: RouteModule; methods: string[] }> {
  const module = await routeModules[`../app/routes/${file}`]!();
  const methods = [...(module.loader ? ["GET"] : []), ...(module.action ? ["POST", "PUT", "DELETE"] : [])];
  return { module, methods };
}

describe("the checks themselves", () => {
  it("catch a 5xx, a stack trace, SQL and a refusal that is not a JSON error", async () => {
    expect(await problemsOf(new Response("{}", { status: 500 }))).not.toEqual([]);
    expect(await problemsOf(new Response('{"error":"x\n    at foo (/work/main/app/x.ts:1:1)"}', { status: 400 }))).not.toEqual([]);
    expect(await problemsOf(new Response('{"error":"syntax error at or near SELECT"}', { status: 400 }))).not.toEqual([]);
    expect(await problemsOf(new Response("Bad Request", { status: 400 }))).not.toEqual([]);
    expect(await problemsOf(new Response('{"message":"no"}', { status: 403 }))).not.toEqual([]);
    expect(await problemsOf(new Response('{"error":"Not found."}', { status: 404 }))).toEqual([]);
  });
});

describe("every /api route survives hostile input", () => {
  it("finds the /api routes", () => {
    expect(apiFiles.length).toBeGreaterThan(40);
  });

  for (const file of apiFiles) {
    it(file, async () => {
      const { module, methods } = await methodsOf(file);
      const names = routeParams(file);
      const paramArb = fc.oneof(
        fc.constantFrom("robust-post", "x"),
        hostileString.filter((s) => s.length < 3000),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...methods.filter((method) => !SKIP[`${file} ${method}`])),
          fc.constantFrom("guest", "user", "admin" as const),
          fc.tuple(...names.map(() => paramArb)),
          bodyArb,
          fc.option(
            fc.dictionary(
              fc.constantFrom("q", "page", "limit", "sort", "search", "intent", "callback"),
              hostileString.filter((s) => s.length < 500),
              { maxKeys: 3 },
            ),
          ),
          async (method, role, paramValues, body, query) => {
            // Logout would end the session the next runs need.
            const cookie = file === "api.auth.logout.ts" ? undefined : cookies[role as keyof typeof cookies];
            // Remix decodes paths into well-formed strings (a lone surrogate becomes U+FFFD).
            const params = Object.fromEntries(names.map((name, index) => [name, Buffer.from(paramValues[index] as string).toString("utf8")]));
            const search = query ? `?${new URLSearchParams(query)}` : "";
            const response = await call(module, method, requestFor(method, routePath(file, params) + search, body, cookie), params);
            const problems = await problemsOf(response);
            if (problems.length) throw new Error(`${method} as ${role}: ${problems.join("; ")}`);
          },
        ),
        { numRuns: Number(process.env.FC_RUNS ?? 60), seed: Number(process.env.FC_SEED ?? 20261121) },
      );
    });
  }
});

describe("every /api route refuses oversized bodies", () => {
  const huge = JSON.stringify({ email: "a@example.com", title: "t", text: "x".repeat(1024 * 1024 + 100) });
  for (const file of apiFiles) {
    it(file, async () => {
      const { module, methods } = await methodsOf(file);
      const params = Object.fromEntries(routeParams(file).map((name) => [name, "robust-post"]));
      for (const method of methods.filter((m) => m !== "GET" && !SKIP[`${file} ${m}`])) {
        for (const cookie of [cookies.user, cookies.admin]) {
          const request = buildRequest({
            method,
            path: routePath(file, params),
            cookie: file === "api.auth.logout.ts" ? undefined : cookie,
            body: huge,
            headers: { "Content-Type": "application/json" },
          });
          const response = await call(module, method, request, params);
          // Routes that read the body answer 413 (readJson's cap); the server refuses it earlier.
          expect(await problemsOf(response), `${method} ${file}`).toEqual([]);
        }
      }
    });
  }
});
