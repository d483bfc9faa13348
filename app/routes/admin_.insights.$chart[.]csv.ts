// GET /admin/insights/{chart}.csv?range=…: one chart's data as CSV, read by the same model
// function as the chart on the page, for the same range. Effective admins only (403 otherwise).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { assertInsightsViewer, insightsTable } from "~/models/insights/charts.server";
import { isDomainError } from "~/models/errors";
import { getCurrentUser } from "~/models/session.server";
import { tableToCsv } from "~/utils/insights-csv.server";
import { insightsChartSchema, parseInsightsRange } from "~/utils/insights-schemas";

const text = (status: number, message: string) =>
  new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });

export async function loader({ request, params }: LoaderFunctionArgs) {
  try {
    assertInsightsViewer(await getCurrentUser(request));
  } catch (error) {
    if (isDomainError(error)) return text(error.status, error.message);
    throw error;
  }
  const chart = insightsChartSchema.safeParse(params.chart);
  if (!chart.success) return text(404, chart.error.issues[0]!.message);
  const parsed = parseInsightsRange(new URL(request.url).searchParams);
  if (!parsed.success) return text(400, parsed.error);
  const { range } = parsed;
  const csv = tableToCsv(await insightsTable(chart.data, range));
  return new Response(csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="insights-${chart.data}-${range.from}-to-${range.lastDay}.csv"`,
      "Cache-Control": "private, no-store",
    },
  });
}
