// The database functions' one current source: prisma/functions/<name>.sql, one function a file,
// written as CREATE OR REPLACE. Migrations carry copies of these files, made by
// scripts/function-migration.ts; tests/database-functions.test.ts fails when the migrated database
// and the sources differ (docs/decisions/019-database-functions.md).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";

export const FUNCTIONS_DIR = path.resolve(import.meta.dirname, "../prisma/functions");

export type FunctionSource = { name: string; file: string; sql: string };

/** Every source file, in name order (the order a migration made from them runs them in). */
export function functionSources(): FunctionSource[] {
  return readdirSync(FUNCTIONS_DIR)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((file) => {
      const sql = readFileSync(path.join(FUNCTIONS_DIR, file), "utf8");
      const name = path.basename(file, ".sql");
      const defines = [...sql.matchAll(/CREATE OR REPLACE FUNCTION "([a-z0-9_]+)"\(/g)].map((match) => match[1]);
      if (defines.length !== 1 || defines[0] !== name) {
        throw new Error(`prisma/functions/${file} must define exactly one function, "${name}", with CREATE OR REPLACE FUNCTION.`);
      }
      return { name, file: `prisma/functions/${file}`, sql };
    });
}

/** The functions of the public schema that no extension brought, by signature, with their definitions. */
export async function functionDefinitions(client: pg.ClientBase): Promise<Map<string, { name: string; definition: string }>> {
  const { rows } = await client.query<{ signature: string; name: string; definition: string }>(
    `SELECT p.oid::regprocedure::text AS signature, p.proname AS name, pg_get_functiondef(p.oid) AS definition
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`,
  );
  return new Map(rows.map((row) => [row.signature, { name: row.name, definition: row.definition }]));
}

/** A source to run again; `drop` names the old signatures it cannot replace in place (a changed result type). */
export type ChangedFunction = FunctionSource & { drop: string[] };

export type FunctionDrift = {
  /** Source files whose function the database does not hold as written (new, or changed since the latest migration). */
  changed: ChangedFunction[];
  /** Functions in the database with no source file. */
  withoutSource: string[];
};

/**
 * Compares the sources with the database `client` is connected to (a database migrated to the
 * latest migration): each file is run in a transaction that is rolled back, and it differs when
 * running it changed any function's definition. A file that cannot replace its function in place
 * (its result type changed) differs too, and the old signature is dropped first.
 */
export async function functionDrift(client: pg.ClientBase): Promise<FunctionDrift> {
  const sources = functionSources();
  const current = await functionDefinitions(client);
  const changed: ChangedFunction[] = [];
  for (const source of sources) {
    const existing = [...current].filter(([, fn]) => fn.name === source.name).map(([signature]) => signature);
    for (const drop of [[], existing]) {
      await client.query("BEGIN");
      try {
        for (const signature of drop) await client.query(`DROP FUNCTION ${signature}`);
        await client.query(source.sql);
        const after = await functionDefinitions(client);
        const differs = after.size !== current.size || [...after].some(([signature, { definition }]) => current.get(signature)?.definition !== definition);
        if (differs) changed.push({ ...source, drop });
        break;
      } catch (error) {
        // 42P13: "cannot change return type of existing function"; anything else is the file's own error.
        if ((error as { code?: string }).code !== "42P13" || drop.length > 0) throw new Error(`${source.file}: ${String(error)}`);
      } finally {
        await client.query("ROLLBACK");
      }
    }
  }
  const names = new Set(sources.map((source) => source.name));
  const withoutSource = [...new Set([...current.values()].map((fn) => fn.name))].filter((name) => !names.has(name)).sort();
  return { changed, withoutSource };
}

/** The text of a migration that brings a database to the sources: the changed files, in name order. */
export function functionMigrationSql(changed: ChangedFunction[]): string {
  const header = [
    "-- Made by scripts/function-migration.ts from the sources in prisma/functions (the files named",
    "-- below, as they stood). Change those files, not this one.",
  ].join("\n");
  const statements = changed.map((source) =>
    [`-- ${source.file}`, ...source.drop.map((signature) => `DROP FUNCTION ${signature};`), source.sql.trimEnd()].join("\n"),
  );
  return [header, ...statements].join("\n\n") + "\n";
}
