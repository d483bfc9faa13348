// The layer rules of docs/decisions/001-stack-and-layers.md, read from the import lines alone (no
// database, no module loading): models and integrations import each other one way only (no
// cycles), app/utils, shared with the browser, never imports a model, and the rule of who sees a
// post is stated in one module.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");

/** Every source file under `dir` (relative to the project), tests left out. */
function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(ts|tsx|mjs)$/.test(file) && !/\.test\.tsx?$/.test(file))
    .map((file) => path.posix.join(dir, file.split(path.sep).join("/")));
}

/** What a file imports (static, `export … from`, side-effect and dynamic imports), as written. */
function importsOf(file: string): string[] {
  const source = readFileSync(path.join(root, file), "utf8");
  return [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm)].map((match) => match[1]!);
}

/** The project file an import names (`~/…` or relative), or null for a package or a file outside `known`. */
function resolve(from: string, specifier: string, known: Set<string>): string | null {
  const base = specifier.startsWith("~/")
    ? `app/${specifier.slice(2)}`
    : specifier.startsWith(".")
      ? path.posix.join(path.posix.dirname(from), specifier)
      : null;
  if (base === null) return null;
  return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((candidate) => known.has(candidate)) ?? null;
}

/** Who imports whom among `files` (imports of other files and packages left out). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file).flatMap((specifier) => resolve(file, specifier, known) ?? [])]));
}

/** One import cycle of the graph (the files around it, the first one repeated at the end), or null. */
function findCycle(edges: Map<string, string[]>): string[] | null {
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    const open = stack.indexOf(file);
    if (open >= 0) return [...stack.slice(open), file];
    if (done.has(file)) return null;
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    done.add(file);
    return null;
  };
  for (const file of edges.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return null;
}

describe("layers", () => {
  it("app/models and app/integrations import each other one way only", () => {
    const files = [...sourceFiles("app/models"), ...sourceFiles("app/integrations")];
    expect(files.length).toBeGreaterThan(40);
    expect(findCycle(importGraph(files))).toBeNull();
  });

  it("app/utils never imports from app/models", () => {
    const offenders = sourceFiles("app/utils").flatMap((file) =>
      importsOf(file)
        .filter((specifier) => /^~\/models(\/|$)/.test(specifier) || /^\.\.?\/(\.\.\/)*models(\/|$)/.test(specifier))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it("only the mail outbox sends mail: every other part of the app enqueues (docs/decisions/018)", () => {
    const senders = sourceFiles("app")
      .filter((file) => !file.startsWith("app/generated/"))
      .filter((file) => /\bsendMail\s*\(/.test(readFileSync(path.join(root, file), "utf8")));
    expect(senders.sort()).toEqual(["app/integrations/mail.server.ts", "app/models/mail-outbox.server.ts"]);
  });

  it("only app/utils/post-visibility.ts states who sees a post (docs/security-model.md#who-sees-a-post)", () => {
    // A post's `enabled` flag negated or in a conjunction, or a helper of the rule's own, anywhere
    // else is the rule restated: it must ask isPostVisible, isPostPublic or postHiddenFrom instead.
    // (The components' badges only show a flag; the rule as a Prisma filter sits next to it.)
    const restatement = /\bisShownAt\b|!\s*\(?\s*(?:post|row|p)\??\.enabled\b|\b(?:post|row|p)\??\.enabled\s*&&/;
    const offenders = sourceFiles("app")
      .filter((file) => !/^app\/(generated|components)\//.test(file) && file !== "app/utils/post-visibility.ts")
      .filter((file) => restatement.test(readFileSync(path.join(root, file), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("the checker sees imports and cycles", () => {
    expect(importsOf("app/integrations/storage.server.ts")).toContain("~/integrations/s3-storage.server");
    expect(resolve("app/models/a.server.ts", "./b.server", new Set(["app/models/b.server.ts"]))).toBe("app/models/b.server.ts");
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(findCycle(graph)).toEqual(["a", "b", "c", "a"]);
    expect(findCycle(new Map([...graph, ["c", []]]))).toBeNull();
  });
});
