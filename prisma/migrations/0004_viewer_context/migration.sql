-- Hand-written (Prisma does not model functions): everything about a viewer that the listing and
-- the downloads need, as JSON texts, in one call (see app/models/entitlement.server.ts).
--
-- Why a PL/pgSQL function: its statement's plan is cached per server connection, and server
-- connections outlive client sessions behind a transaction-mode pooler. The app used to keep
-- that plan in a named prepared statement, which poolers such as PgBouncer cannot carry; sent
-- as plain SQL, planning the five subqueries cost about 0.5 ms of database CPU per request.
CREATE FUNCTION "viewer_context"(p_user_id TEXT, p_with_downloads BOOLEAN, p_with_stamp BOOLEAN)
RETURNS TABLE ("unlocked" TEXT, "purchases" TEXT, "pledges" TEXT, "downloads" TEXT, "stamp" TEXT)
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
    CASE WHEN p_with_stamp THEN (SELECT lv.version::text FROM library_versions lv WHERE lv.id = 1) ELSE '' END;
END
$$;
