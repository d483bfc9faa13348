-- Made by scripts/function-migration.ts from the sources in prisma/functions (the files named
-- below, as they stood). Change those files, not this one.

-- prisma/functions/verified_purchases.sql
-- The purchases that count for a viewer: those made with a shop email the viewer has verified
-- (guest purchases made before the email was linked included). The one place this join is
-- written: viewer_context and viewer_access_details read it. A single-SELECT SQL function, which
-- the planner inlines into the query that calls it.
CREATE OR REPLACE FUNCTION "verified_purchases"(p_user_id TEXT)
RETURNS SETOF "purchases"
LANGUAGE sql STABLE AS $$
  SELECT p.* FROM purchases p
    JOIN shop_emails se ON se.verified_email = p.email
   WHERE se.user_id = p_user_id
$$;

-- prisma/functions/viewer_access_details.sql
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

-- prisma/functions/viewer_context.sql
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
