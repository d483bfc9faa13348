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
