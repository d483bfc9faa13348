// What /inspiration-vote shows a visitor, read in one round trip: the database function
// `vote_page` (prisma/functions/vote_page.sql) returns the config, whether the visitor's tier may vote, the panels
// as the visitor sees them and the shipped ideas. The rules stay with their models: which panels
// and counts a visitor sees (inspiration.server.ts), what they may do (`rightsOf`), and which
// shipped ideas they may see (`shippedIdeasSeenBy`, also behind listShippedIdeas) or may not know
// of at all (`ideasHiddenFrom`: shipped as a post they may not see). GET /api/inspiration/panels
// reads the panels the same way (`listInspirationPanels`).
import { queryRows } from "~/db.server";
import type { InspirationConfig, User } from "~/generated/prisma/client";
import { getInspirationConfig, panelsAsSeen, rightsOf, type InspirationPanelView, type PanelRow, type VoterRights } from "~/models/inspiration.server";
import { ideasHiddenFrom, shippedIdeasSeenBy, type ShippedIdea, type StoredShippedIdea } from "~/models/inspiration-shipped.server";

export type VotePage = { config: InspirationConfig; panels: InspirationPanelView[]; rights: VoterRights; shipped: ShippedIdea[] };

type VotePageRow = {
  configId: number | null;
  title: string | null;
  mode: InspirationConfig["mode"] | null;
  votingOpen: boolean | null;
  votingEndTime: Date | null;
  updatedAt: Date | null;
  tierCanVote: boolean | null;
  /** PanelRow[] as JSON, in the panels' order */
  panels: string | null;
  /** StoredShippedIdea[] as JSON, newest first */
  shipped: string | null;
};

type Visitor = Pick<User, "id" | "isAdmin" | "restricted" | "currentTierId" | "patreonId">;

export async function loadVotePage(visitor: Visitor | null, now = new Date()): Promise<VotePage> {
  const [row] = await queryRows<VotePageRow>(`SELECT * FROM vote_page($1, $2)`, [visitor?.id ?? null, visitor?.currentTierId ?? null]);
  const config: InspirationConfig =
    row?.configId != null
      ? { id: row.configId, title: row.title!, mode: row.mode!, votingOpen: row.votingOpen!, votingEndTime: row.votingEndTime, updatedAt: row.updatedAt! }
      : await getInspirationConfig();
  const shipped = row?.shipped ? (JSON.parse(row.shipped) as StoredShippedIdea[]) : [];
  return {
    config,
    panels: panelsAsSeen(config, row?.panels ? (JSON.parse(row.panels) as PanelRow[]) : [], visitor, now, ideasHiddenFrom(shipped, visitor, now)),
    rights: rightsOf(visitor, row?.tierCanVote ?? false),
    shipped: shippedIdeasSeenBy(shipped, visitor, now),
  };
}

/**
 * The panels as a visitor sees them (GET /api/inspiration/panels): counts (both kinds together),
 * the visitor's own likes, no idea shipped as a post they may not see, and in a running
 * randomized vote hidden counts and a shuffled order.
 */
export async function listInspirationPanels(
  viewer: Pick<User, "id" | "isAdmin" | "restricted"> | null,
  now = new Date(),
): Promise<{ config: InspirationConfig; panels: InspirationPanelView[] }> {
  // Plain SQL over database functions (prisma/functions/inspiration_panel_views.sql and
  // shipped_ideas.sql) whose plans are kept per connection
  // (docs/decisions/006 on why hot reads skip Prisma's query compiler); the config and the
  // shipped ideas' posts are read beside the panels.
  const [config, rows, shipped] = await Promise.all([
    getInspirationConfig(),
    queryRows<PanelRow>(`SELECT * FROM inspiration_panel_views($1)`, [viewer?.id ?? null]),
    queryRows<StoredShippedIdea>(`SELECT * FROM shipped_ideas()`, []),
  ]);
  return { config, panels: panelsAsSeen(config, rows, viewer, now, ideasHiddenFrom(shipped, viewer, now)) };
}
