-- Ideas linked to the post that realizes them, newest first, each with what the visibility rule
-- reads about its post (enabled, publication time in epoch milliseconds):
-- app/models/inspiration-shipped.server.ts keeps those the viewer may see with the one rule of
-- app/models/post-visibility.server.ts.
CREATE OR REPLACE FUNCTION "shipped_ideas"()
RETURNS TABLE ("panelId" TEXT, "title" TEXT, "postId" TEXT, "postTitle" TEXT, "voters" INTEGER, "votersGetAccess" BOOLEAN,
               "postEnabled" BOOLEAN, "postPublishAtMs" DOUBLE PRECISION)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT ip.id, ip.title, ip.post_id, p.title,
    (SELECT count(*)::int FROM inspiration_voters iv WHERE iv.panel_id = ip.id),
    ip.voters_get_access,
    p.enabled,
    (extract(epoch FROM p.publish_at) * 1000)::double precision
    FROM inspiration_panels ip JOIN posts p ON p.id = ip.post_id
   ORDER BY ip.shipped_at DESC NULLS LAST, ip.id;
END
$$;
