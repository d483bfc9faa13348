-- Hand-written (Prisma does not model functions): what /inspiration-vote shows, read in one round
-- trip (app/models/inspiration-page.server.ts).
--
-- Why: every view of the vote page read the config, the panels, the visitor's tier and the
-- shipped ideas as four statements, each a round trip of its own and most of the page's work.
-- PL/pgSQL functions keep their statements' plans per server connection and work through a
-- transaction-mode pooler (docs/decisions/006).

-- Ideas linked to the post that realizes them, newest first: for admins all, for everyone else
-- those whose post is enabled and published at p_now. listShippedIdeas reads this too.
CREATE FUNCTION "shipped_ideas"(p_admin BOOLEAN, p_now TIMESTAMP(3))
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

-- The vote page in one row: the config (NULL columns while its row does not exist yet), whether
-- the visitor's tier may vote, the panels as the visitor sees them (inspiration_panel_views of
-- migration 0037, in their order) and the shipped ideas, the last two as JSON arrays.
CREATE FUNCTION "vote_page"(p_user_id TEXT, p_tier_id TEXT, p_admin BOOLEAN, p_now TIMESTAMP(3))
RETURNS TABLE (
  "configId" INTEGER, "title" TEXT, "mode" "inspiration_mode", "votingOpen" BOOLEAN,
  "votingEndTime" TIMESTAMP(3), "updatedAt" TIMESTAMP(3), "tierCanVote" BOOLEAN, "panels" TEXT, "shipped" TEXT)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY SELECT c.id, c.title, c.mode, c.voting_open, c.voting_end_time, c.updated_at,
    (SELECT t.can_vote FROM tiers t WHERE t.id = p_tier_id),
    (SELECT json_agg(json_build_object('id', v.id, 'imageUrl', v."imageUrl", 'title', v.title, 'likes', v.likes,
              'userHasLiked', v."userHasLiked", 'userHasPatreonLiked', v."userHasPatreonLiked") ORDER BY v.n)::text
       FROM inspiration_panel_views(p_user_id) WITH ORDINALITY AS v(id, "imageUrl", title, likes, "userHasLiked", "userHasPatreonLiked", n)),
    (SELECT json_agg(json_build_object('panelId', s."panelId", 'title', s.title, 'postId', s."postId", 'postTitle', s."postTitle",
              'voters', s.voters, 'votersGetAccess', s."votersGetAccess") ORDER BY s.n)::text
       FROM shipped_ideas(p_admin, p_now) WITH ORDINALITY AS s("panelId", title, "postId", "postTitle", voters, "votersGetAccess", n))
    FROM (SELECT 1) AS one LEFT JOIN inspiration_config c ON c.id = 1;
END
$$;
