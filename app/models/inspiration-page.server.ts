// What /inspiration-vote shows a visitor, read in one round trip: the database function
// `vote_page` (prisma/functions/vote_page.sql) returns the config, whether the visitor's tier may vote, the panels
// as the visitor sees them and the shipped ideas. The rules stay with their models: which panels
// and counts a visitor sees (inspiration.server.ts), what they may do (`rightsOf`), and which
// shipped ideas they may see (`shippedIdeasSeenBy`, also behind listShippedIdeas).
import { queryRows } from "~/db.server";
import type { InspirationConfig, User } from "~/generated/prisma/client";
import { getInspirationConfig, panelsAsSeen, rightsOf, type InspirationPanelView, type PanelRow, type VoterRights } from "~/models/inspiration.server";
import { shippedIdeasSeenBy, type ShippedIdea, type StoredShippedIdea } from "~/models/inspiration-shipped.server";

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
  return {
    config,
    panels: panelsAsSeen(config, row?.panels ? (JSON.parse(row.panels) as PanelRow[]) : [], visitor, now),
    rights: rightsOf(visitor, row?.tierCanVote ?? false),
    shipped: row?.shipped ? shippedIdeasSeenBy(JSON.parse(row.shipped) as StoredShippedIdea[], visitor, now) : [],
  };
}
