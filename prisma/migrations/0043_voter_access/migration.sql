-- Voter access (docs/product.md#releases): an inspiration item linked to its post may give the
-- voters it kept the access of the post's first release step, whatever their tier.
ALTER TABLE "inspiration_panels" ADD COLUMN "voters_get_access" BOOLEAN NOT NULL DEFAULT false;

-- Hand-written: the viewer context (migration 0004) gains `voted`, the posts whose linked item
-- this viewer voted for with that option on. The entitlement rule decides from the instant
-- whether the first step has opened. A function's result type cannot change in place, so both
-- functions are created again (session_viewer of migration 0005 returns the context's columns).
DROP FUNCTION "session_viewer"(TEXT, BOOLEAN, BOOLEAN, BOOLEAN);
DROP FUNCTION "viewer_context"(TEXT, BOOLEAN, BOOLEAN);

CREATE FUNCTION "viewer_context"(p_user_id TEXT, p_with_downloads BOOLEAN, p_with_stamp BOOLEAN)
RETURNS TABLE ("unlocked" TEXT, "purchases" TEXT, "pledges" TEXT, "downloads" TEXT, "stamp" TEXT, "voted" TEXT)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY SELECT
    -- unlocked_content: granted by an admin or by the sync
    (SELECT json_agg(uc.post_id ORDER BY uc.post_id)::text FROM unlocked_content uc WHERE uc.user_id = p_user_id),
    -- shop item codes bought with any verified shop email of the user (guest purchases too)
    (SELECT json_agg(DISTINCT p.kofi_item_code)::text FROM purchases p
       JOIN shop_emails se ON se.verified_email = p.email
      WHERE se.user_id = p_user_id),
    -- pledge history, for the early-supporter rule
    (SELECT json_agg(json_build_object('type', e.type, 'date', to_char(e.date, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'tierId', e.tier_id, 'paymentStatus', e.payment_status) ORDER BY e.id)::text
       FROM pledge_events e WHERE e.user_id = p_user_id),
    -- the version of each post the user downloaded last
    CASE WHEN p_with_downloads THEN
      (SELECT json_object_agg(d.post_id, d.version ORDER BY d.post_id)::text FROM (
         SELECT DISTINCT ON (dl.post_id) dl.post_id, dl.version FROM downloads dl
          WHERE dl.user_id = p_user_id ORDER BY dl.post_id, dl.created_at DESC) d)
    END,
    -- the library's version stamp (migration 0002)
    CASE WHEN p_with_stamp THEN (SELECT lv.version::text FROM library_versions lv WHERE lv.id = 1) ELSE '' END,
    -- posts realizing an item the user voted for, linked with voter access
    (SELECT json_agg(DISTINCT ip.post_id)::text FROM inspiration_voters iv
       JOIN inspiration_panels ip ON ip.id = iv.panel_id
      WHERE iv.user_id = p_user_id AND ip.voters_get_access AND ip.post_id IS NOT NULL);
END
$$;

CREATE FUNCTION "session_viewer"(p_session_id TEXT, p_with_viewer BOOLEAN, p_with_downloads BOOLEAN, p_with_stamp BOOLEAN)
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
