// One entry per insights chart: the model function that loads its data and the table made from
// it. The page draws the chart and the table from this; the CSV export writes the same table.
import type { User } from "~/generated/prisma/client";
import { DomainError } from "~/models/errors";
import { bugReportInsights, bugReportsTable } from "~/models/insights/bug-reports.server";
import { downloadsPerDay, downloadsTable, postDownloadsTable, topPosts, topPostsTable } from "~/models/insights/downloads.server";
import { inspirationTable, likesPerIdea } from "~/models/insights/inspiration.server";
import { shopByMonth, shopTable } from "~/models/insights/shop.server";
import { currentMembersByTier, supportersByMonth, supportersTable } from "~/models/insights/supporters.server";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { INSIGHTS_MESSAGES, type DataTable, type InsightsChart, type InsightsRange } from "~/utils/insights-schemas";

export type InsightsData = {
  downloads: Awaited<ReturnType<typeof downloadsPerDay>>;
  topPosts: Awaited<ReturnType<typeof topPosts>>;
  supporters: Awaited<ReturnType<typeof supportersByMonth>>;
  /** Members per tier now, whatever the range (the figure above the supporters chart). */
  members: Awaited<ReturnType<typeof currentMembersByTier>>;
  shop: Awaited<ReturnType<typeof shopByMonth>>;
  inspiration: Awaited<ReturnType<typeof likesPerIdea>>;
  bugReports: Awaited<ReturnType<typeof bugReportInsights>>;
};

/** Insights are for effective admins only; everyone else (guests too) is refused with 403. */
export function assertInsightsViewer(user: Pick<User, "isAdmin" | "restricted"> | null): void {
  if (!isEffectiveAdmin(user)) throw new DomainError(403, INSIGHTS_MESSAGES.forbidden);
}

/** Every chart of the page, loaded together. */
export async function loadInsights(range: InsightsRange): Promise<InsightsData> {
  const [downloads, top, supporters, members, shop, inspiration, bugReports] = await Promise.all([
    downloadsPerDay(range),
    topPosts(range),
    supportersByMonth(range),
    currentMembersByTier(),
    shopByMonth(range),
    likesPerIdea(),
    bugReportInsights(range),
  ]);
  return { downloads, topPosts: top, supporters, members, shop, inspiration, bugReports };
}

/** One chart's data as the table its CSV export holds, loaded by the chart's own model function. */
export async function insightsTable(chart: InsightsChart, range: InsightsRange): Promise<DataTable> {
  switch (chart) {
    case "downloads":
      return downloadsTable(await downloadsPerDay(range));
    case "top-posts":
      return topPostsTable(await topPosts(range));
    case "post-downloads":
      return postDownloadsTable(await topPosts(range));
    case "supporters":
      return supportersTable(await supportersByMonth(range));
    case "shop":
      return shopTable(await shopByMonth(range));
    case "inspiration":
      return inspirationTable(await likesPerIdea());
    case "bug-reports":
      return bugReportsTable(await bugReportInsights(range));
  }
}
