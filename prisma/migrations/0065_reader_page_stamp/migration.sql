-- Made by scripts/function-migration.ts from the sources in prisma/functions (the files named
-- below, as they stood). Change those files, not this one.

-- prisma/functions/reader_page_stamp.sql
-- One stamp over everything a signed-in reader's kept page may show that lives in the database
-- (app/models/reader-pages.server.ts): the account's users row, its viewer context with downloads
-- and the library version (viewer_context), the version of the rest guests see (row 2), the
-- details access words use (viewer_access_details), and every row of each table that belongs to
-- the account. It changes with any write to one of
-- them, whichever app server makes it. No row: the session is unknown or expired, or the account
-- is an admin (whose pages are never kept). Tables with a key to users that are left out, and why,
-- are listed in tests/signed-in-kept-pages.test.ts. A null session asks for a guest's pages: no
-- account, and a stamp over the library version and the version of the rest guests see (row 2,
-- bumped by bump_guest_pages_version).
CREATE OR REPLACE FUNCTION "reader_page_stamp"(p_session_id TEXT)
RETURNS TABLE ("account_id" TEXT, "library_stamp" TEXT, "stamp" TEXT)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  IF p_session_id IS NULL THEN
    RETURN QUERY SELECT NULL::text, l.version::text, l.version || '.' || g.version
      FROM library_versions l, library_versions g WHERE l.id = 1 AND g.id = 2;
    RETURN;
  END IF;
  RETURN QUERY SELECT u.id, v.stamp, md5(ROW(
      u.*, v.*, d.*,
      -- What guests see too (panels, likes, the vote's settings, reports): a reader's home, vote
      -- and info pages show it as well.
      (SELECT g.version FROM library_versions g WHERE g.id = 2),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM shop_emails t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM unlocked_content t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM downloads t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM pledge_events t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM inspiration_likes t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM inspiration_voters t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM update_subscriptions t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM bug_reports t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM bug_report_me_toos t WHERE t.user_id = u.id),
      (SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM patch_confirmations t WHERE t.user_id = u.id)
    )::text)
    FROM sessions s JOIN users u ON u.id = s.user_id
    -- One row each, and planned as one: a set-returning function is estimated at 1,000 rows, which
    -- made this statement look costly enough for JIT compilation (over a second per call).
    CROSS JOIN LATERAL (SELECT * FROM viewer_context(u.id, true, true) LIMIT 1) v
    CROSS JOIN LATERAL (SELECT * FROM viewer_access_details(u.id, false) LIMIT 1) d
   WHERE s.id = p_session_id AND s.expires_at > timezone('UTC', now()) AND NOT u.is_admin;
END
$$;
