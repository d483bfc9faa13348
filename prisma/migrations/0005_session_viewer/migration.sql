-- Hand-written (Prisma does not model functions): the request's session user, and when asked
-- the viewer context of migration 0004, in one call (see app/models/session.server.ts).
--
-- Why a PL/pgSQL function: the session join was sent as plain SQL on every request, parsed and
-- planned each time, because a named prepared statement does not survive a transaction-mode
-- pooler (docs/decisions/006). The function's statements are planned once per server
-- connection; the caller's query over it has nothing left to plan. The user comes back as one
-- `users` row, so a column added to the table needs no change here.
CREATE FUNCTION "session_viewer"(p_session_id TEXT, p_with_viewer BOOLEAN, p_with_downloads BOOLEAN, p_with_stamp BOOLEAN)
RETURNS TABLE ("account" "users", "session_expires_at" TIMESTAMP(3), "unlocked" TEXT, "purchases" TEXT, "pledges" TEXT, "downloads" TEXT, "stamp" TEXT)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  IF p_with_viewer THEN
    RETURN QUERY SELECT su, s.expires_at, v.unlocked, v.purchases, v.pledges, v.downloads, v.stamp
      FROM sessions s JOIN users su ON su.id = s.user_id
      CROSS JOIN LATERAL viewer_context(su.id, p_with_downloads, p_with_stamp) v
     WHERE s.id = p_session_id;
  ELSE
    RETURN QUERY SELECT su, s.expires_at, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT
      FROM sessions s JOIN users su ON su.id = s.user_id
     WHERE s.id = p_session_id;
  END IF;
END
$$;
