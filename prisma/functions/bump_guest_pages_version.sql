-- Trigger function: bumps row 2 of library_versions, the version of what guests' pages show besides
-- the library (home and vote panels, likes, voters, the vote's settings, bug reports and "me too"s).
-- The triggers (migration 0064) are deferred to commit time, as the library version's are.
CREATE OR REPLACE FUNCTION "bump_guest_pages_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "library_versions" SET "version" = "version" + 1 WHERE "id" = 2;
  RETURN NULL;
END
$$;
