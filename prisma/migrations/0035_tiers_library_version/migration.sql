-- Hand-written: a change to the tiers (a title, a price, which are paid, a new tier from the
-- support platform) bumps the library version like a change to a post, so every app server
-- reads the tiers again with the library instead of on every page view (app/models/tier.server.ts).
CREATE CONSTRAINT TRIGGER "tiers_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "tiers"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

CREATE TRIGGER "tiers_truncate_bump_library_version"
  AFTER TRUNCATE ON "tiers" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
