-- Statement trigger function with transition tables (migration 0031): records the earliest date a
-- change to downloads or pledge_events touched, so the insights job rolls up again from there.
-- One small insert per statement, never a lock on a shared row.
CREATE OR REPLACE FUNCTION "insights_mark_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
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
