-- The inspiration vote's panels as a visitor sees them, in their order, with their status, the
-- count of likes (both kinds together) and whether the visitor (NULL: a guest) liked each one
-- (app/models/inspiration.server.ts).
CREATE OR REPLACE FUNCTION "inspiration_panel_views"(p_user_id TEXT)
RETURNS TABLE ("id" TEXT, "imageUrl" TEXT, "title" TEXT, "likes" INTEGER, "userHasLiked" BOOLEAN, "userHasPatreonLiked" BOOLEAN, "status" "idea_status")
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT p.id, p.image_url, p.title,
    (SELECT count(*)::int FROM inspiration_likes l WHERE l.panel_id = p.id),
    EXISTS (SELECT 1 FROM inspiration_likes l WHERE l.panel_id = p.id AND l.user_id = p_user_id AND l.kind = 'LIKE'),
    EXISTS (SELECT 1 FROM inspiration_likes l WHERE l.panel_id = p.id AND l.user_id = p_user_id AND l.kind = 'PATREON'),
    p.status
    FROM inspiration_panels p
   ORDER BY p.created_at ASC, p.id ASC;
END
$$;
