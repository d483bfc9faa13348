// /admin/insights: what gets downloaded, by whom, and how support grows, for a time range.
// Effective admins only (403 for everyone else). Charts are drawn on the server; the page's
// only script is Remix's own, and the range form is a plain GET.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { isRouteErrorResponse, Link, useLoaderData, useRouteError } from "@remix-run/react";
import { ChartSection, ChartSvg, DataTableView, Legend } from "~/components/insights/chart";
import { categoryBars, dailyStack, itemBars, sparkline } from "~/components/insights/geometry.server";
import { RangeForm, type RangeFormValues } from "~/components/insights/range-form";
import { TopPostsList } from "~/components/insights/top-posts";
import { ErrorPage, logInBrowser } from "~/components/error-page";
import { assertInsightsViewer, loadInsights } from "~/models/insights/charts.server";
import { ACCESS_SOURCES, downloadsTable, postDownloadsWideTable, topPostsTable } from "~/models/insights/downloads.server";
import { bugReportsTable } from "~/models/insights/bug-reports.server";
import { inspirationTable } from "~/models/insights/inspiration.server";
import { shopTable } from "~/models/insights/shop.server";
import { supportersTable } from "~/models/insights/supporters.server";
import { isDomainError } from "~/models/errors";
import { getCurrentUser } from "~/models/session.server";
import { dayString, parseInsightsRange, rangeQuery, type InsightsRange } from "~/utils/insights-schemas";
import { personalPageHeaders } from "~/utils/page-headers";
import adminStyles from "~/styles/admin.css?url";
import insightsStyles from "~/styles/insights.css?url";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: adminStyles },
  { rel: "stylesheet", href: insightsStyles },
];

export const meta: MetaFunction = () => [{ title: "Insights · Admin · Creator Library" }];

export const headers = personalPageHeaders;

const NO_STORE = { "Cache-Control": "private, no-store" };

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const count = (value: number, one: string, many = `${one}s`) => `${value.toLocaleString("en-US")} ${value === 1 ? one : many}`;

async function buildView(range: InsightsRange) {
  const data = await loadInsights(range);
  const days = data.downloads.map((day) => day.day);
  const months = data.supporters.months.map((month) => month.month);
  const csv = (chart: string) => `/admin/insights/${chart}.csv?${rangeQuery(range)}`;
  const lastMonth = data.supporters.months[data.supporters.months.length - 1];
  return {
    range,
    downloads: {
      csv: csv("downloads"),
      total: sum(data.downloads.map((day) => day.total)),
      peakUsers: Math.max(0, ...data.downloads.map((day) => day.uniqueUsers)),
      geometry: dailyStack(
        days,
        ACCESS_SOURCES.map(({ key, label }) => ({ label, values: data.downloads.map((day) => day.bySource[key]) })),
        [{ label: "Unique users", values: data.downloads.map((day) => day.uniqueUsers) }],
      ),
      table: downloadsTable(data.downloads),
    },
    topPosts: {
      csv: csv("top-posts"),
      dailyCsv: csv("post-downloads"),
      posts: data.topPosts.posts.map(({ perDay, ...post }) => ({ ...post, sparkline: sparkline(perDay), peak: Math.max(0, ...perDay) })),
      table: topPostsTable(data.topPosts),
      dailyTable: postDownloadsWideTable(data.topPosts),
    },
    supporters: {
      csv: csv("supporters"),
      // "Now" belongs to a range that reaches today; an earlier range ends where only the pledge history tells.
      members: range.to > dayString(new Date()) ? data.members : null,
      current: lastMonth?.total ?? 0,
      gained: sum(data.supporters.months.map((month) => month.gained)),
      lost: sum(data.supporters.months.map((month) => month.lost)),
      geometry: categoryBars(
        months,
        data.supporters.tiers.map((tier, index) => ({ label: tier.title, values: data.supporters.months.map((month) => month.byTier[index]!) })),
      ),
      changes: categoryBars(
        months,
        [
          { label: "New supporters", values: data.supporters.months.map((month) => month.gained) },
          { label: "Lost supporters", values: data.supporters.months.map((month) => month.lost) },
        ],
        { grouped: true },
      ),
      table: supportersTable(data.supporters),
    },
    shop: {
      csv: csv("shop"),
      purchases: sum(data.shop.months.map((month) => month.purchases)),
      geometry: categoryBars(months, [{ label: "Items bought", values: data.shop.months.map((month) => month.purchases) }]),
      table: shopTable(data.shop),
    },
    inspiration: {
      csv: csv("inspiration"),
      round: data.inspiration.days.length ? { from: data.inspiration.days[0]!, to: data.inspiration.days[data.inspiration.days.length - 1]! } : null,
      total: sum(data.inspiration.ideas.map((idea) => idea.total)),
      geometry: itemBars(
        data.inspiration.ideas.map((idea) => idea.title),
        [
          { label: "Likes", values: data.inspiration.ideas.map((idea) => idea.likes) },
          { label: "Supporter likes", values: data.inspiration.ideas.map((idea) => idea.supporterLikes) },
        ],
      ),
      table: inspirationTable(data.inspiration),
    },
    bugReports: {
      csv: csv("bug-reports"),
      open: data.bugReports.open,
      fixed: data.bugReports.fixed,
      medianDaysToFix: data.bugReports.medianDaysToFix,
      geometry: itemBars(
        data.bugReports.posts.map((post) => post.title),
        [
          { label: "New", values: data.bugReports.posts.map((post) => post.new) },
          { label: "Confirmed", values: data.bugReports.posts.map((post) => post.confirmed) },
        ],
      ),
      table: bugReportsTable(data.bugReports),
    },
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  try {
    assertInsightsViewer(await getCurrentUser(request));
  } catch (error) {
    if (isDomainError(error)) throw data({ error: error.message }, { status: error.status });
    throw error;
  }
  const parsed = parseInsightsRange(new URL(request.url).searchParams);
  type Page = { form: RangeFormValues; error: string | null; field: string | null; view: Awaited<ReturnType<typeof buildView>> | null };
  if (!parsed.success) {
    const { range = "30", from = "", to = "" } = parsed.values;
    return data<Page>({ form: { range, from, to }, error: parsed.error, field: parsed.field, view: null }, { status: 400, headers: NO_STORE });
  }
  const { range } = parsed;
  return data<Page>(
    { form: { range: range.preset, from: range.from, to: range.lastDay }, error: null, field: null, view: await buildView(range) },
    { headers: NO_STORE },
  );
}

export default function InsightsPage() {
  const { form, error, field, view } = useLoaderData<typeof loader>();
  return (
    <div className="admin-page insights-page">
      <p>
        <Link to="/admin">Back to admin</Link>
      </p>
      <h1 className="page-title">Insights</h1>
      <RangeForm values={form} error={error ?? undefined} errorField={field ?? undefined} />
      {view ? (
        <>
          <p className="muted" data-testid="insights-range">
            {view.range.from} to {view.range.lastDay}, whole days in UTC.
          </p>
          <ChartSection
            id="downloads"
            title="Downloads per day"
            csvHref={view.downloads.csv}
            summary={`${count(view.downloads.total, "download")}; at most ${count(view.downloads.peakUsers, "unique user")} on one day. Free includes guests' downloads, which have no account and so no user.`}
          >
            <ChartSvg
              id="downloads"
              title="Downloads per day"
              description="Bars per day stacked by access source, with a line for unique users."
              geometry={view.downloads.geometry}
              empty="No downloads in this range."
            />
            <Legend geometry={view.downloads.geometry} />
            <DataTableView id="downloads-table" title="Downloads per day" table={view.downloads.table} />
          </ChartSection>
          <ChartSection
            id="top-posts"
            title="Top posts"
            csvHref={view.topPosts.csv}
            summary="Ranked by downloads in the range; version adoption counts every owner, whenever they downloaded."
          >
            <TopPostsList posts={view.topPosts.posts} />
            <DataTableView id="top-posts-table" title="Top posts" table={view.topPosts.table} />
            <DataTableView id="post-days-table" title="Top posts, downloads per day" table={view.topPosts.dailyTable} />
            <p>
              <a href={view.topPosts.dailyCsv} download>
                CSV of the top posts&apos; downloads per day
              </a>
            </p>
          </ChartSection>
          <ChartSection
            id="supporters"
            title="Supporters by tier"
            csvHref={view.supporters.csv}
            summary={
              view.supporters.members
                ? `${count(view.supporters.members.total, "member")} with a current tier now${view.supporters.members.tiers.length ? ` (${view.supporters.members.tiers.map((tier) => `${tier.title}: ${tier.members.toLocaleString("en-US")}`).join(", ")})` : ""}.`
                : `${count(view.supporters.current, "supporter")} at the end of the range; ${view.supporters.gained} new, ${view.supporters.lost} lost.`
            }
          >
            {view.supporters.members ? (
              <p className="muted" data-testid="insights-supporters-source">
                Members now: each account&apos;s current tier, as the members sync and the support platform&apos;s webhook set it. The bars: the pledge history,{" "}
                {count(view.supporters.current, "supporter")} at the end of the range; {view.supporters.gained} new, {view.supporters.lost} lost.
              </p>
            ) : null}
            {view.supporters.geometry.empty && view.supporters.changes.empty ? (
              // Neither chart has anything to draw: one line says so for both.
              <p className="muted insights-empty" data-testid="insights-supporters-empty">
                No pledge history in this range.
              </p>
            ) : (
              <>
                <ChartSvg
                  id="supporters"
                  title="Supporters by tier at the end of each month"
                  description="Stacked bars: active supporters per tier at each month's end (or the range's end)."
                  geometry={view.supporters.geometry}
                  empty="No active supporters in this range."
                />
                <Legend geometry={view.supporters.geometry} />
                <ChartSvg
                  id="supporter-changes"
                  title="New and lost supporters per month"
                  description="Side-by-side bars: supporters who started and who stopped supporting in each month."
                  geometry={view.supporters.changes}
                  empty="No new or lost supporters in this range."
                />
                <Legend geometry={view.supporters.changes} />
              </>
            )}
            <DataTableView id="supporters-table" title="Supporters by tier" table={view.supporters.table} />
          </ChartSection>
          <ChartSection
            id="shop"
            title="Shop purchases per month"
            csvHref={view.shop.csv}
            summary={`${count(view.shop.purchases, "item")} bought. Revenue is known for orders recorded since amounts are stored; the table says how many lack one.`}
          >
            <ChartSvg
              id="shop"
              title="Shop items bought per month"
              description="Bars: shop items bought in each month."
              geometry={view.shop.geometry}
              empty="No shop purchases in this range."
            />
            <DataTableView id="shop-table" title="Shop purchases per month" table={view.shop.table} />
          </ChartSection>
          <ChartSection
            id="inspiration"
            title="Inspiration vote"
            csvHref={view.inspiration.csv}
            summary={
              view.inspiration.round
                ? `${count(view.inspiration.total, "like")} this round (${view.inspiration.round.from} to ${view.inspiration.round.to}), whatever the range above.`
                : "No likes this round yet."
            }
          >
            <ChartSvg
              id="inspiration"
              title="Likes per idea this round"
              description="Horizontal stacked bars: likes and supporter likes per idea."
              geometry={view.inspiration.geometry}
              empty="No likes this round yet."
            />
            <Legend geometry={view.inspiration.geometry} />
            <DataTableView id="inspiration-table" title="Likes per idea" table={view.inspiration.table} />
          </ChartSection>
          <ChartSection
            id="bug-reports"
            title="Bug reports"
            csvHref={view.bugReports.csv}
            summary={`${count(view.bugReports.open, "open report")} now (new and confirmed, whatever the range). ${
              view.bugReports.medianDaysToFix === null
                ? "No report was fixed in this range."
                : `Median time from report to fix: ${view.bugReports.medianDaysToFix.toLocaleString("en-US")} days, over ${count(view.bugReports.fixed, "report")} fixed in this range.`
            }`}
          >
            <ChartSvg
              id="bug-reports"
              title="Open bug reports per post"
              description="Horizontal stacked bars: new and confirmed reports per post."
              geometry={view.bugReports.geometry}
              empty="No open bug reports."
            />
            <Legend geometry={view.bugReports.geometry} />
            <DataTableView id="bug-reports-table" title="Bug reports per post" table={view.bugReports.table} />
          </ChartSection>
        </>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  if (!isRouteErrorResponse(error)) logInBrowser(error);
  const message = isRouteErrorResponse(error) ? (error.data as { error?: string } | null)?.error : undefined;
  return <ErrorPage status={status} title="Insights" message={message} />;
}
