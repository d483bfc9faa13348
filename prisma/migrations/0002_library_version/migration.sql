-- CreateTable
CREATE TABLE "library_versions" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "library_versions_pkey" PRIMARY KEY ("id")
);

-- Hand-written (Prisma does not model triggers): the one row, and triggers that bump its version
-- whenever posts or their tier links change. They are deferred to commit time, so the row is
-- locked last and only for the instant of the commit: writers of posts never wait on each other
-- for it mid-transaction, and readers see the new version together with the new rows.
INSERT INTO "library_versions" ("id", "version") VALUES (1, 0);

CREATE FUNCTION "bump_library_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "library_versions" SET "version" = "version" + 1 WHERE "id" = 1;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER "posts_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "posts"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

CREATE CONSTRAINT TRIGGER "post_tiers_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "post_tiers"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

-- TRUNCATE has no row triggers; a statement trigger covers it.
CREATE TRIGGER "posts_truncate_bump_library_version"
  AFTER TRUNCATE ON "posts" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();

CREATE TRIGGER "post_tiers_truncate_bump_library_version"
  AFTER TRUNCATE ON "post_tiers" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
