-- The request's session user and, when asked, the viewer context (viewer_context), in one call
-- (app/models/session.server.ts). The user comes back as one `users` row, so a column added to the
-- table needs no change here.
CREATE OR REPLACE FUNCTION "session_viewer"(p_session_id TEXT, p_with_viewer BOOLEAN, p_with_downloads BOOLEAN, p_with_stamp BOOLEAN)
RETURNS TABLE ("account" "users", "session_expires_at" TIMESTAMP(3), "unlocked" TEXT, "purchases" TEXT, "pledges" TEXT, "downloads" TEXT, "stamp" TEXT, "voted" TEXT)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  IF p_with_viewer THEN
    RETURN QUERY SELECT su, s.expires_at, v.unlocked, v.purchases, v.pledges, v.downloads, v.stamp, v.voted
      FROM sessions s JOIN users su ON su.id = s.user_id
      CROSS JOIN LATERAL viewer_context(su.id, p_with_downloads, p_with_stamp) v
     WHERE s.id = p_session_id;
  ELSE
    RETURN QUERY SELECT su, s.expires_at, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT
      FROM sessions s JOIN users su ON su.id = s.user_id
     WHERE s.id = p_session_id;
  END IF;
END
$$;
