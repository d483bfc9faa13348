-- Issue 17, speed (docs/decisions/010, addendum): range sums of downloads per post from running
-- totals, supporters per day and tier rolled up by the insights job, and change marks that tell
-- the job (and the supporters chart) which rolled days a later write touched.

-- Running totals per post: the rollup rows that exist now get theirs from their own counts.
ALTER TABLE "download_post_days" ADD COLUMN "running_total" INTEGER NOT NULL DEFAULT 0;
UPDATE "download_post_days" AS d SET "running_total" = r.total
FROM (SELECT "day", "post_id", sum("downloads") OVER (PARTITION BY "post_id" ORDER BY "day")::int AS total FROM "download_post_days") r
WHERE d."day" = r."day" AND d."post_id" = r."post_id";
ALTER TABLE "download_post_days" ALTER COLUMN "running_total" DROP DEFAULT;

-- The moment the job last rolled the pledge events up to (events before it are rolled, today's
-- so far included); null until it first does: until then the chart reads the pledge events.
ALTER TABLE "insights_rollup_state" ADD COLUMN "supporters_through" TIMESTAMP(3);

CREATE TABLE "supporter_tier_days" (
    "day" DATE NOT NULL,
    "tier_id" TEXT NOT NULL,
    "started" INTEGER NOT NULL,
    "stopped" INTEGER NOT NULL,
    "title" TEXT,

    CONSTRAINT "supporter_tier_days_pkey" PRIMARY KEY ("day","tier_id")
);

CREATE TABLE "supporter_days" (
    "day" DATE NOT NULL,
    "gained" INTEGER NOT NULL,
    "lost" INTEGER NOT NULL,

    CONSTRAINT "supporter_days_pkey" PRIMARY KEY ("day")
);

CREATE TABLE "insights_changes" (
    "id" BIGSERIAL NOT NULL,
    "source" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "insights_changes_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "insights_changes_source_at_idx" ON "insights_changes"("source", "at");

-- Hand-written (Prisma does not model triggers). Statement triggers with transition tables: one
-- small insert per statement that changed something, never a lock on a shared row, so writers
-- never wait on each other. An event or download dated t changes what the rollups hold only
-- from t on (a pledge event ends its user's previous span on its own date), so the earliest
-- time is all the job and the supporters chart need. An upsert that rewrites an event unchanged
-- marks nothing.
CREATE FUNCTION "insights_mark_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO "insights_changes" ("source", "at") VALUES (TG_ARGV[0], '-infinity');
  ELSIF TG_TABLE_NAME = 'pledge_events' AND TG_OP = 'UPDATE' THEN
    INSERT INTO "insights_changes" ("source", "at")
    SELECT 'pledges', least(min(o."date"), min(n."date"))
      FROM old_rows o FULL JOIN new_rows n ON n."id" = o."id"
     WHERE o."id" IS NULL OR n."id" IS NULL
        OR (o."user_id", o."type", o."date", o."tier_id", o."tier_title", o."payment_status")
           IS DISTINCT FROM (n."user_id", n."type", n."date", n."tier_id", n."tier_title", n."payment_status")
    HAVING count(*) > 0;
  ELSIF TG_TABLE_NAME = 'pledge_events' THEN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO "insights_changes" ("source", "at") SELECT 'pledges', min("date") FROM new_rows HAVING count(*) > 0;
    ELSE
      INSERT INTO "insights_changes" ("source", "at") SELECT 'pledges', min("date") FROM old_rows HAVING count(*) > 0;
    END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    -- downloads: only the columns the rollups count.
    INSERT INTO "insights_changes" ("source", "at")
    SELECT 'downloads', least(min(o."created_at"), min(n."created_at"))
      FROM old_rows o FULL JOIN new_rows n ON n."id" = o."id"
     WHERE o."id" IS NULL OR n."id" IS NULL
        OR (o."user_id", o."post_id", o."version", o."created_at", o."access_source")
           IS DISTINCT FROM (n."user_id", n."post_id", n."version", n."created_at", n."access_source")
    HAVING count(*) > 0;
  ELSIF coalesce(current_setting('clib.retention_prune', true), '') <> 'on' THEN
    -- downloads deleted with their account or post. The hourly retention prune (which sets
    -- clib.retention_prune for its transaction) marks nothing: it deletes the oldest rows every
    -- hour, and the daily rebuild drops them from the rollups as before. New downloads need no
    -- mark: they are dated now, and the job rolls the last days again on every run.
    INSERT INTO "insights_changes" ("source", "at") SELECT 'downloads', min("created_at") FROM old_rows HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "pledge_events_insert_insights_changes" AFTER INSERT ON "pledge_events"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"();
CREATE TRIGGER "pledge_events_update_insights_changes" AFTER UPDATE ON "pledge_events"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"();
CREATE TRIGGER "pledge_events_delete_insights_changes" AFTER DELETE ON "pledge_events"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"();
CREATE TRIGGER "pledge_events_truncate_insights_changes" AFTER TRUNCATE ON "pledge_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"('pledges');

CREATE TRIGGER "downloads_update_insights_changes" AFTER UPDATE ON "downloads"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"();
CREATE TRIGGER "downloads_delete_insights_changes" AFTER DELETE ON "downloads"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"();
CREATE TRIGGER "downloads_truncate_insights_changes" AFTER TRUNCATE ON "downloads"
  FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"('downloads');
