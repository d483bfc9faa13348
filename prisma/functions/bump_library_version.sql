-- Trigger function: bumps the one row of library_versions whenever posts, their tier links, their
-- versions, release steps, tiers or inspiration links change. The triggers (migrations 0002, 0033,
-- 0035, 0040, 0043) are deferred to commit time, so the row is locked only for the instant of the
-- commit, and readers see the new version together with the new rows.
CREATE OR REPLACE FUNCTION "bump_library_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "library_versions" SET "version" = "version" + 1 WHERE "id" = 1;
  RETURN NULL;
END
$$;
