-- Every fact about a viewer that the entitlement rule reads, as JSON texts, in one call
-- (app/models/entitlement.server.ts): posts granted, shop items bought with a verified shop email,
-- the pledge history, the last version downloaded of each post, the library's version stamp, and
-- the posts whose linked idea the viewer voted for.
CREATE OR REPLACE FUNCTION "viewer_context"(p_user_id TEXT, p_with_downloads BOOLEAN, p_with_stamp BOOLEAN)
RETURNS TABLE ("unlocked" TEXT, "purchases" TEXT, "pledges" TEXT, "downloads" TEXT, "stamp" TEXT, "voted" TEXT)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY SELECT
    -- unlocked_content: granted by an admin or by the sync
    (SELECT json_agg(uc.post_id ORDER BY uc.post_id)::text FROM unlocked_content uc WHERE uc.user_id = p_user_id),
    -- shop item codes bought with any verified shop email of the user (guest purchases too)
    (SELECT json_agg(DISTINCT p.kofi_item_code)::text FROM verified_purchases(p_user_id) p),
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
    -- every post realizing an item the user voted for: whether its link gives voters access
    (SELECT json_object_agg(v.post_id, v.with_access ORDER BY v.post_id)::text FROM (
       SELECT ip.post_id, bool_or(ip.voters_get_access) AS with_access FROM inspiration_voters iv
         JOIN inspiration_panels ip ON ip.id = iv.panel_id
        WHERE iv.user_id = p_user_id AND ip.post_id IS NOT NULL
        GROUP BY ip.post_id) v);
END
$$;
