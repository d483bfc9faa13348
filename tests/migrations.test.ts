// The migrations and schema.prisma must describe the same database: apply the migrations to one
// fresh database, the schema's own SQL (`migrate diff --from-empty`) to another, and compare
// their schema dumps.
import { execFileSync } from "node:child_process";
import pg from "pg";
import { createMigratedDatabase, adminQuery, databaseUrl, dropDatabase, prismaCli, uniqueName } from "./db";

function schemaDump(url: string): string {
  const dump = execFileSync("pg_dump", ["--schema-only", "--no-owner", "--no-privileges", "--exclude-table=public._prisma_migrations", url], { encoding: "utf8" });
  return dump
    .split("\n")
    .filter((line) => !line.startsWith("--") && !line.startsWith("\\restrict") && !line.startsWith("\\unrestrict"))
    .join("\n")
    .replace(/\n{2,}/g, "\n");
}

describe("migrations", () => {
  const fromMigrations = uniqueName("clib_mig");
  const fromSchema = uniqueName("clib_schema");

  afterAll(async () => {
    await dropDatabase(fromMigrations);
    await dropDatabase(fromSchema);
  });

  it("produce exactly the database that schema.prisma describes", async () => {
    const migratedUrl = await createMigratedDatabase(fromMigrations);
    await adminQuery(`CREATE DATABASE "${fromSchema}"`);
    const schemaUrl = databaseUrl(fromSchema);
    const sql = await prismaCli(
      ["migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
      schemaUrl,
    );
    const client = new pg.Client({ connectionString: schemaUrl });
    await client.connect();
    await client.query(sql.slice(sql.indexOf("-- CreateSchema")));
    await client.end();

    const migrated = schemaDump(migratedUrl);
    expect(migrated).toContain("CREATE TABLE public.users");
    expect(schemaDump(schemaUrl)).toBe(migrated);
  }, 120_000);
});
