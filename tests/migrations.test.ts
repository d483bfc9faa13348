// The migrations and schema.prisma must describe the same database: apply the migrations to one
// fresh database, the schema's own SQL (`migrate diff --from-empty`) to another, and compare
// their schema dumps.
import { execFileSync } from "node:child_process";
import pg from "pg";
import { createMigratedDatabase, adminQuery, databaseUrl, dropDatabase, prismaCli, uniqueName } from "./db";

/** Hand-written in the migrations because Prisma does not model them: the triggers, and the functions whose sources are in prisma/functions. */
const HAND_WRITTEN = [
  "FUNCTION bump_library_version()",
  "FUNCTION insights_mark_changes()",
  "FUNCTION inspiration_panel_views(text)",
  "TRIGGER downloads downloads_delete_insights_changes",
  "TRIGGER downloads downloads_truncate_insights_changes",
  "TRIGGER downloads downloads_update_insights_changes",
  "TRIGGER guest_downloads guest_downloads_delete_insights_changes",
  "TRIGGER guest_downloads guest_downloads_truncate_insights_changes",
  "TRIGGER pledge_events pledge_events_delete_insights_changes",
  "TRIGGER pledge_events pledge_events_insert_insights_changes",
  "TRIGGER pledge_events pledge_events_truncate_insights_changes",
  "TRIGGER pledge_events pledge_events_update_insights_changes",
  "FUNCTION credit_download_bytes(text, text, bigint, bigint, bigint, timestamp without time zone)",
  "FUNCTION record_download(text, text, text, text, text, timestamp without time zone, public.download_access, bigint, text)",
  "FUNCTION reader_page_stamp(text)",
  "FUNCTION session_viewer(text, boolean, boolean, boolean)",
  "FUNCTION shipped_ideas()",
  "FUNCTION vote_page(text, text)",
  "FUNCTION viewer_access_details(text, boolean)",
  "FUNCTION viewer_context(text, boolean, boolean)",
  "FUNCTION verified_purchases(text)",
  "TRIGGER post_tiers post_tiers_bump_library_version",
  "TRIGGER post_versions post_versions_bump_library_version",
  "TRIGGER post_versions post_versions_truncate_bump_library_version",
  "TRIGGER post_tiers post_tiers_truncate_bump_library_version",
  "TRIGGER posts posts_bump_library_version",
  "TRIGGER posts posts_truncate_bump_library_version",
  "TRIGGER tiers tiers_bump_library_version",
  "TRIGGER release_steps release_steps_bump_library_version",
  "TRIGGER inspiration_panels inspiration_panels_bump_library_version",
  "TRIGGER inspiration_panels inspiration_panels_truncate_bump_library_version",
  "TRIGGER game_patches game_patches_bump_library_version",
  "TRIGGER game_patches game_patches_truncate_bump_library_version",
  "TRIGGER version_patch_marks version_patch_marks_bump_library_version",
  "TRIGGER version_patch_marks version_patch_marks_truncate_bump_library_version",
  "TRIGGER version_files version_files_bump_library_version",
  "TRIGGER version_files version_files_truncate_bump_library_version",
  "TRIGGER tags tags_bump_library_version",
  "TRIGGER tags tags_truncate_bump_library_version",
  "TRIGGER post_tags post_tags_bump_library_version",
  "TRIGGER post_tags post_tags_truncate_bump_library_version",
  "TRIGGER post_requirements post_requirements_bump_library_version",
  "TRIGGER post_requirements post_requirements_truncate_bump_library_version",
  "TRIGGER release_steps release_steps_truncate_bump_library_version",
  "TRIGGER tiers tiers_truncate_bump_library_version",
  "FUNCTION bump_guest_pages_version()",
  "TRIGGER panels panels_bump_guest_pages_version",
  "TRIGGER panels panels_truncate_bump_guest_pages_version",
  "TRIGGER inspiration_likes inspiration_likes_bump_guest_pages_version",
  "TRIGGER inspiration_likes inspiration_likes_truncate_bump_guest_pages_version",
  "TRIGGER inspiration_voters inspiration_voters_bump_guest_pages_version",
  "TRIGGER inspiration_voters inspiration_voters_truncate_bump_guest_pages_version",
  "TRIGGER inspiration_config inspiration_config_bump_guest_pages_version",
  "TRIGGER inspiration_config inspiration_config_truncate_bump_guest_pages_version",
  "TRIGGER bug_reports bug_reports_bump_guest_pages_version",
  "TRIGGER bug_reports bug_reports_truncate_bump_guest_pages_version",
  "TRIGGER bug_report_me_toos bug_report_me_toos_bump_guest_pages_version",
  "TRIGGER bug_report_me_toos bug_report_me_toos_truncate_bump_guest_pages_version",
];

/** The schema dump, without the hand-written objects, and the names of those it had. */
function schemaDump(url: string): { sql: string; handWritten: string[] } {
  const dump = execFileSync("pg_dump", ["--schema-only", "--no-owner", "--no-privileges", "--exclude-table=public._prisma_migrations", url], {
    encoding: "utf8",
  });
  const handWritten: string[] = [];
  // pg_dump heads every object with "-- Name: <name>; Type: <type>; ...".
  const objects = dump.split(/\n(?=--\n-- Name: )/).filter((object) => {
    const header = /^--\n-- Name: (.+?); Type: (FUNCTION|TRIGGER);/.exec(object);
    if (!header) return true;
    handWritten.push(`${header[2]} ${header[1]}`);
    return false;
  });
  // Objects in a fixed order: pg_dump orders by dependencies, and a hand-written function over
  // the users row type moves that table up.
  const sql = objects
    .map((object) =>
      object
        .split("\n")
        // Comments and pg_dump's own session settings (where they fall depends on the objects dropped).
        .filter((line) => !/^(--|SET |SELECT pg_catalog\.set_config|\\restrict|\\unrestrict)/.test(line))
        .join("\n")
        .replace(/\n{2,}/g, "\n")
        .trim(),
    )
    .filter(Boolean)
    .sort()
    .join("\n");
  return { sql, handWritten: handWritten.sort() };
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
    const sql = await prismaCli(["migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema.prisma", "--script"], schemaUrl);
    const client = new pg.Client({ connectionString: schemaUrl });
    await client.connect();
    await client.query(sql.slice(sql.indexOf("-- CreateSchema")));
    await client.end();

    const migrated = schemaDump(migratedUrl);
    const fromSchemaDump = schemaDump(schemaUrl);
    expect(migrated.sql).toContain("CREATE TABLE public.users");
    expect(fromSchemaDump.sql).toBe(migrated.sql);
    expect(fromSchemaDump.handWritten).toEqual([]);
    expect(migrated.handWritten).toEqual([...HAND_WRITTEN].sort());
  }, 120_000);
});
