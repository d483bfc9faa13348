-- What the words of "access explained" need beside the viewer context (app/models/access.server.ts):
-- the viewer's purchases with their dates and shop emails and the source of each unlocked post;
-- with p_for_check (the admins' access check) also the purchases made with shop emails not yet
-- verified and every tier's title.
CREATE OR REPLACE FUNCTION "viewer_access_details"(p_user_id TEXT, p_for_check BOOLEAN)
RETURNS TABLE ("purchases" TEXT, "unverified" TEXT, "grants" TEXT, "tiers" TEXT)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT
    -- purchases made with a verified shop email of the viewer, oldest first
    (SELECT json_agg(json_build_object('code', p.kofi_item_code, 'email', p.email, 'purchasedAt', to_char(p.purchased_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY p.purchased_at, p.id)::text
       FROM verified_purchases(p_user_id) p),
    -- purchases made with a shop email the viewer linked but has not verified
    CASE WHEN p_for_check THEN
      (SELECT json_agg(json_build_object('code', p.kofi_item_code, 'email', p.email, 'purchasedAt', to_char(p.purchased_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY p.purchased_at, p.id)::text
         FROM purchases p JOIN shop_emails se ON se.email = p.email AND se.verified_email IS NULL
        WHERE se.user_id = p_user_id)
    END,
    -- who unlocked each post for the viewer: an admin or the sync
    (SELECT json_object_agg(uc.post_id, uc.source)::text FROM unlocked_content uc WHERE uc.user_id = p_user_id),
    -- every tier's title, by id
    CASE WHEN p_for_check THEN (SELECT json_object_agg(t.id, t.title)::text FROM tiers t) END;
END
$$;
