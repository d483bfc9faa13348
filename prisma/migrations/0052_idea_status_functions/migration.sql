-- Made by scripts/function-migration.ts from the sources in prisma/functions (the files named
-- below, as they stood). Change those files, not this one.

-- prisma/functions/inspiration_panel_views.sql
DROP FUNCTION inspiration_panel_views(text);
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

-- prisma/functions/vote_page.sql
-- What /inspiration-vote shows, in one round trip (app/models/inspiration-page.server.ts): the
-- config, whether the visitor's tier may vote, the panels as the visitor sees them and the shipped
-- ideas as shipped_ideas() gives them.
CREATE OR REPLACE FUNCTION "vote_page"(p_user_id TEXT, p_tier_id TEXT)
RETURNS TABLE (
  "configId" INTEGER, "title" TEXT, "mode" "inspiration_mode", "votingOpen" BOOLEAN,
  "votingEndTime" TIMESTAMP(3), "updatedAt" TIMESTAMP(3), "tierCanVote" BOOLEAN, "panels" TEXT, "shipped" TEXT)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY SELECT c.id, c.title, c.mode, c.voting_open, c.voting_end_time, c.updated_at,
    (SELECT t.can_vote FROM tiers t WHERE t.id = p_tier_id),
    (SELECT json_agg(json_build_object('id', v.id, 'imageUrl', v."imageUrl", 'title', v.title, 'likes', v.likes,
              'userHasLiked', v."userHasLiked", 'userHasPatreonLiked', v."userHasPatreonLiked", 'status', v.status) ORDER BY v.n)::text
       FROM inspiration_panel_views(p_user_id) WITH ORDINALITY AS v(id, "imageUrl", title, likes, "userHasLiked", "userHasPatreonLiked", status, n)),
    (SELECT json_agg(json_build_object('panelId', s."panelId", 'title', s.title, 'postId', s."postId", 'postTitle', s."postTitle",
              'voters', s.voters, 'votersGetAccess', s."votersGetAccess", 'postEnabled', s."postEnabled",
              'postPublishAtMs', s."postPublishAtMs") ORDER BY s.n)::text
       FROM shipped_ideas() WITH ORDINALITY AS s("panelId", title, "postId", "postTitle", voters, "votersGetAccess", "postEnabled", "postPublishAtMs", n))
    FROM (SELECT 1) AS one LEFT JOIN inspiration_config c ON c.id = 1;
END
$$;
