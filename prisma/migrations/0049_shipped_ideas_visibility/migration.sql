-- Hand-written (Prisma does not model functions): the shipped ideas no longer decide who sees
-- their post. They answer every shipped idea with its post's `enabled` and publication time
-- (epoch milliseconds), and app/models/inspiration-shipped.server.ts keeps those the viewer may
-- see with the one rule of app/models/post-visibility.server.ts, which every other place that
-- serves a post asks too (before, these functions restated it in SQL).

DROP FUNCTION "vote_page"(TEXT, TEXT, BOOLEAN, TIMESTAMP(3));
DROP FUNCTION "shipped_ideas"(BOOLEAN, TIMESTAMP(3));

-- Ideas linked to the post that realizes them, newest first, each with what the visibility rule
-- reads about its post. listShippedIdeas reads this, and vote_page below.
CREATE FUNCTION "shipped_ideas"()
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

-- The vote page in one row, as in migration 0046, with the shipped ideas as shipped_ideas() gives them.
CREATE FUNCTION "vote_page"(p_user_id TEXT, p_tier_id TEXT)
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
              'voters', s.voters, 'votersGetAccess', s."votersGetAccess", 'postEnabled', s."postEnabled",
              'postPublishAtMs', s."postPublishAtMs") ORDER BY s.n)::text
       FROM shipped_ideas() WITH ORDINALITY AS s("panelId", title, "postId", "postTitle", voters, "votersGetAccess", "postEnabled", "postPublishAtMs", n))
    FROM (SELECT 1) AS one LEFT JOIN inspiration_config c ON c.id = 1;
END
$$;
