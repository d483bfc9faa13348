-- Records a download unless the same user, post and version (and version row and file) has a record within
-- the window; answers whether it wrote one (app/models/download.server.ts, recordDownload). The
-- advisory lock is held to the end of the calling statement's transaction, so a concurrent call of
-- the same download waits and then finds the other's row.
CREATE OR REPLACE FUNCTION "record_download"(
  p_id TEXT, p_user_id TEXT, p_post_id TEXT, p_version TEXT, p_version_id TEXT,
  p_created_at TIMESTAMP(3), p_access_source "download_access", p_window_ms BIGINT, p_file_id TEXT DEFAULT NULL)
RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('download:' || p_user_id || ':' || p_post_id));
  IF EXISTS (
    SELECT 1 FROM downloads d
     WHERE d.user_id = p_user_id AND d.post_id = p_post_id AND d.version = p_version
       AND d.version_id IS NOT DISTINCT FROM p_version_id
       AND d.file_id IS NOT DISTINCT FROM p_file_id
       AND d.created_at > p_created_at - make_interval(secs => p_window_ms / 1000.0)
  ) THEN
    RETURN FALSE;
  END IF;
  INSERT INTO downloads (id, user_id, post_id, version, version_id, created_at, access_source, file_id)
  VALUES (p_id, p_user_id, p_post_id, p_version, p_version_id, p_created_at, p_access_source, p_file_id);
  RETURN TRUE;
END
$$;
