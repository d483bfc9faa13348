-- Hand-written: a change to a post's versions (upload, hide, show, make current, the hashes the
-- job fills in) bumps the library version like a change to the post itself, so every app server
-- rebuilds the version histories it keeps in memory (app/models/post-version.server.ts).
CREATE CONSTRAINT TRIGGER "post_versions_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "post_versions"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

CREATE TRIGGER "post_versions_truncate_bump_library_version"
  AFTER TRUNCATE ON "post_versions" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
