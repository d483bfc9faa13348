// Inspiration vote insights: likes per idea over the current round. Resetting the likes starts a
// round, so the round is every like still stored, from the first one's day to the last one's.
import { queryRows } from "~/db.server";
import { addDays, daysOf, type DataTable } from "~/utils/insights-schemas";

export type IdeaLikes = { panelId: string; title: string; likes: number; supporterLikes: number; total: number; cumulative: number[] };
export type InspirationRound = { days: string[]; ideas: IdeaLikes[] };

export async function likesPerIdea(): Promise<InspirationRound> {
  const rows = await queryRows<{ panel_id: string; title: string | null; day: string | null; likes: number; supporter_likes: number }>(
    `SELECT p.id AS panel_id, p.title, to_char(l.created_at::date, 'YYYY-MM-DD') AS day,
            count(l.user_id) FILTER (WHERE l.kind = 'LIKE')::int AS likes,
            count(l.user_id) FILTER (WHERE l.kind = 'PATREON')::int AS supporter_likes
       FROM inspiration_panels p LEFT JOIN inspiration_likes l ON l.panel_id = p.id
      GROUP BY 1, 2, 3`,
    [],
  );
  const likedDays = rows.flatMap((row) => (row.day ? [row.day] : [])).sort();
  const days = likedDays.length ? daysOf({ from: likedDays[0]!, to: addDays(likedDays[likedDays.length - 1]!, 1) }) : [];
  const dayIndex = new Map(days.map((day, index) => [day, index]));
  const ideas = new Map<string, IdeaLikes & { perDay: number[] }>();
  for (const row of rows) {
    const idea = ideas.get(row.panel_id) ?? {
      panelId: row.panel_id,
      title: row.title || "Untitled idea",
      likes: 0,
      supporterLikes: 0,
      total: 0,
      cumulative: [],
      perDay: days.map(() => 0),
    };
    ideas.set(row.panel_id, idea);
    idea.likes += row.likes;
    idea.supporterLikes += row.supporter_likes;
    idea.total += row.likes + row.supporter_likes;
    if (row.day) idea.perDay[dayIndex.get(row.day)!]! += row.likes + row.supporter_likes;
  }
  const sorted = [...ideas.values()].sort((a, b) => b.total - a.total || a.title.localeCompare(b.title) || a.panelId.localeCompare(b.panelId));
  return {
    days,
    ideas: sorted.map(({ perDay, ...idea }) => {
      let running = 0;
      return { ...idea, cumulative: perDay.map((value) => (running += value)) };
    }),
  };
}

export function inspirationTable({ ideas }: InspirationRound): DataTable {
  return {
    columns: ["Idea", "Likes", "Supporter likes", "Total"],
    rows: ideas.map((idea) => [idea.title, idea.likes, idea.supporterLikes, idea.total]),
  };
}
