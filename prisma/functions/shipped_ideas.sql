-- Ideas linked to the post that realizes them, newest first: for admins all, for everyone else
-- those whose post is visible at p_now (app/models/inspiration-shipped.server.ts).
CREATE OR REPLACE FUNCTION "shipped_ideas"(p_admin BOOLEAN, p_now TIMESTAMP(3))
RETURNS TABLE ("panelId" TEXT, "title" TEXT, "postId" TEXT, "postTitle" TEXT, "voters" INTEGER, "votersGetAccess" BOOLEAN)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT ip.id, ip.title, ip.post_id, p.title,
    (SELECT count(*)::int FROM inspiration_voters iv WHERE iv.panel_id = ip.id),
    ip.voters_get_access
    FROM inspiration_panels ip JOIN posts p ON p.id = ip.post_id
   WHERE p_admin OR (p.enabled AND (p.publish_at IS NULL OR p.publish_at <= p_now))
   ORDER BY ip.shipped_at DESC NULLS LAST, ip.id;
END
$$;
