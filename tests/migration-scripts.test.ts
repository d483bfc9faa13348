// How the patched driver adapter runs a migration script (docs/decisions/007-patches.md): a
// script is one implicit transaction, so a failing migration leaves nothing behind; a script
// with CONCURRENTLY runs statement by statement (PostgreSQL refuses it in a transaction), split
// where PostgreSQL would split it, never inside a dollar-quoted body, a string or a comment.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminQuery, databaseUrl, dropDatabase, uniqueName } from "./db";

const name = uniqueName("clib_scripts");
let adapter: Awaited<ReturnType<PrismaPg["connect"]>>;
let client: pg.Client;

beforeAll(async () => {
  await adminQuery(`CREATE DATABASE "${name}"`);
  adapter = await new PrismaPg({ connectionString: databaseUrl(name) }).connect();
  client = new pg.Client({ connectionString: databaseUrl(name) });
  await client.connect();
});

afterAll(async () => {
  await client.end();
  await adapter.dispose();
  await dropDatabase(name);
});

const exists = async (sql: string) => (await client.query(sql)).rowCount! > 0;

describe("migration scripts through the patched adapter", () => {
  it("run a script with a function body (semicolons inside dollar quotes) as written", async () => {
    await adapter.executeScript(`
      CREATE TABLE one (a int);
      CREATE FUNCTION one_count() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RETURN (SELECT count(*) FROM one); END $$;
    `);
    expect((await client.query("SELECT one_count() AS n")).rows[0].n).toBe("0");
  });

  it("leave nothing behind when a statement of the script fails", async () => {
    await expect(adapter.executeScript("CREATE TABLE two (a int); SELECT no_such_function();")).rejects.toThrow();
    expect(await exists("SELECT 1 FROM pg_class WHERE relname = 'two'")).toBe(false);
  });

  it("run CREATE INDEX CONCURRENTLY, statement by statement, with quotes, comments and bodies intact", async () => {
    await adapter.executeScript(`
      -- a comment; with a semicolon
      CREATE TABLE three (a int, note text DEFAULT 'x;y');
      /* block; comment /* nested; */ still comment; */
      CREATE INDEX CONCURRENTLY "three;a_idx" ON three (a);
      CREATE FUNCTION three_note() RETURNS text LANGUAGE plpgsql AS $body$ BEGIN RETURN 'a;b'; END $body$;
    `);
    expect(await exists(`SELECT 1 FROM pg_indexes WHERE indexname = 'three;a_idx'`)).toBe(true);
    expect((await client.query("SELECT three_note() AS note")).rows[0].note).toBe("a;b");
    await client.query("INSERT INTO three (a) VALUES (1)");
    expect((await client.query("SELECT note FROM three")).rows[0].note).toBe("x;y");
  });
});
