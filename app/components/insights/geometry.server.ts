// Chart maths on the server: scales, stacks and path strings from d3-scale and d3-shape. Route
// loaders call these and send the result; the React charts only place what they are given, so
// no d3 code reaches the browser.
import { scaleBand, scaleLinear } from "d3-scale";
import { curveLinear, line, stack } from "d3-shape";
import type { ChartGeometry, Shape, Tick } from "~/components/insights/chart-types";

export type Series = { label: string; values: number[] };

const WIDTH = 720;
/** Compact: a chart is read at a glance, its numbers are in the table under it. */
const HEIGHT = 200;
const MARGIN = { top: 12, right: 16, bottom: 32, left: 48 };

const round = (value: number) => Math.round(value * 10) / 10;

/** True when every value of every series is zero: the chart is replaced by a one-line empty state. */
const allZero = (series: Series[]) => series.every((entry) => entry.values.every((value) => !value));

function valueTicks(scale: ReturnType<typeof scaleLinear<number, number>>, count: number, toPos = (v: number) => scale(v)): Tick[] {
  // Whole numbers only: these are counts of downloads, people and purchases.
  return scale
    .ticks(count)
    .filter((value) => Number.isInteger(value))
    .map((value) => ({ pos: round(toPos(value)), label: value.toLocaleString("en-US") }));
}

function frame(left = MARGIN.left): Pick<ChartGeometry, "width" | "height" | "left" | "top" | "right" | "bottom"> {
  return { width: WIDTH, height: HEIGHT, left, top: MARGIN.top, right: WIDTH - MARGIN.right, bottom: HEIGHT - MARGIN.bottom };
}

/**
 * At most `most` evenly spaced indexes of `count` categories, always the first and the last: the
 * labels stay inside the range and never crowd each other.
 */
function spreadIndexes(count: number, most: number): number[] {
  if (count <= most) return Array.from({ length: count }, (_, index) => index);
  const step = (count - 1) / (most - 1);
  return [...new Set(Array.from({ length: most }, (_, n) => Math.round(n * step)))];
}

/**
 * Daily values as stacked bars, one bar centred on each day, with optional lines on the same axis
 * (unique users) through the bars' centres, straight from day to day (a count does not rise
 * between two days): `days` are YYYY-MM-DD, every series has one value per day. Day labels sit
 * under their bars, first and last day included, never past the range.
 */
export function dailyStack(days: string[], series: Series[], lines: Series[] = []): ChartGeometry {
  const box = frame();
  const empty = days.length === 0 || (allZero(series) && allZero(lines));
  if (empty) return { ...box, empty: true, xTicks: [], yTicks: [], horizontal: false, shapes: [], legend: [] };
  const x = scaleBand()
    .domain(days)
    .range([box.left, box.right])
    .paddingInner(days.length > 60 ? 0.1 : 0.2)
    .paddingOuter(0.1);
  const centre = (index: number) => x(days[index]!)! + x.bandwidth() / 2;
  const rows = days.map((_, index) => Object.fromEntries(series.map((entry, s) => [s, entry.values[index] ?? 0])) as Record<number, number>);
  const stacked = stack<Record<number, number>, number>().keys(series.map((_, s) => s))(rows);
  const top = Math.max(1, ...stacked.flatMap((layer) => layer.map((point) => point[1])), ...lines.flatMap((entry) => entry.values));
  const y = scaleLinear().domain([0, top]).nice().range([box.bottom, box.top]);
  const shapes: Shape[] = [];
  stacked.forEach((layer, s) =>
    layer.forEach(([from, to], index) => {
      if (to <= from) return;
      shapes.push({ kind: "rect", series: s, x: round(x(days[index]!)!), y: round(y(to)), width: round(x.bandwidth()), height: round(y(from) - y(to)) });
    }),
  );
  lines.forEach((entry, l) => {
    const d = line<number>()
      .x((_, index) => centre(index))
      .y((value) => y(value))
      .curve(curveLinear)(entry.values);
    shapes.push({ kind: "line", series: series.length + l, d: d ?? "" });
  });
  const xTicks = spreadIndexes(days.length, 7).map((index) => ({ pos: round(centre(index)), label: days[index]!.slice(5) }));
  return {
    ...box,
    empty: false,
    xTicks,
    yTicks: valueTicks(y, 4),
    horizontal: false,
    shapes,
    legend: [
      ...series.map((entry, s) => ({ label: entry.label, series: s, kind: "rect" as const })),
      ...lines.map((entry, l) => ({ label: entry.label, series: series.length + l, kind: "line" as const })),
    ],
  };
}

/** The non-empty pieces of one bar: each series from where the previous ended (or from 0). */
function segments(series: Series[], index: number, grouped = false): { s: number; from: number; to: number }[] {
  let base = 0;
  return series.flatMap((entry, s) => {
    const value = entry.values[index] ?? 0;
    if (value <= 0) return [];
    const from = grouped ? 0 : base;
    base += value;
    return [{ s, from, to: from + value }];
  });
}

/** Vertical bars per category (months): stacked series, or side by side when `grouped`. */
export function categoryBars(categories: string[], series: Series[], { grouped = false } = {}): ChartGeometry {
  const box = frame();
  if (categories.length === 0 || allZero(series)) return { ...box, empty: true, xTicks: [], yTicks: [], horizontal: false, shapes: [], legend: [] };
  const x = scaleBand().domain(categories).range([box.left, box.right]).padding(0.2);
  const sums = categories.map((_, index) =>
    grouped ? Math.max(0, ...series.map((entry) => entry.values[index] ?? 0)) : series.reduce((sum, entry) => sum + (entry.values[index] ?? 0), 0),
  );
  const y = scaleLinear()
    .domain([0, Math.max(1, ...sums)])
    .nice()
    .range([box.bottom, box.top]);
  const inner = scaleBand()
    .domain(series.map((_, s) => String(s)))
    .range([0, x.bandwidth()])
    .padding(0.1);
  const shapes: Shape[] = [];
  categories.forEach((category, index) => {
    for (const { s, from, to } of segments(series, index, grouped)) {
      const x0 = x(category)! + (grouped ? inner(String(s))! : 0);
      shapes.push({
        kind: "rect",
        series: s,
        x: round(x0),
        y: round(y(to)),
        width: round(grouped ? inner.bandwidth() : x.bandwidth()),
        height: round(y(from) - y(to)),
      });
    }
  });
  // Label at most eight categories (the first and last among them) so month names never overlap.
  const xTicks = spreadIndexes(categories.length, 8).map((index) => ({ pos: round(x(categories[index]!)! + x.bandwidth() / 2), label: categories[index]! }));
  return {
    ...box,
    empty: false,
    xTicks,
    yTicks: valueTicks(y, 4),
    horizontal: false,
    shapes,
    legend: series.map((entry, s) => ({ label: entry.label, series: s, kind: "rect" as const })),
  };
}

/** Horizontal stacked bars, one per labelled item (ideas), values along x. */
export function itemBars(items: string[], series: Series[]): ChartGeometry {
  const rowHeight = 28;
  const left = 150;
  const height = Math.max(100, MARGIN.top + MARGIN.bottom + rowHeight * items.length);
  const box = { ...frame(left), height, bottom: height - MARGIN.bottom };
  if (items.length === 0 || allZero(series)) return { ...box, empty: true, xTicks: [], yTicks: [], horizontal: true, shapes: [], legend: [] };
  const y = scaleBand()
    .domain(items.map((_, index) => String(index)))
    .range([box.top, box.bottom])
    .padding(0.25);
  const totals = items.map((_, index) => series.reduce((sum, entry) => sum + (entry.values[index] ?? 0), 0));
  const x = scaleLinear()
    .domain([0, Math.max(1, ...totals)])
    .nice()
    .range([box.left, box.right]);
  const shapes: Shape[] = [];
  items.forEach((_, index) => {
    for (const { s, from, to } of segments(series, index)) {
      shapes.push({ kind: "rect", series: s, x: round(x(from)), y: round(y(String(index))!), width: round(x(to) - x(from)), height: round(y.bandwidth()) });
    }
  });
  const yTicks = items.map((item, index) => ({ pos: round(y(String(index))! + y.bandwidth() / 2), label: item.length > 22 ? `${item.slice(0, 21)}…` : item }));
  return {
    ...box,
    empty: false,
    xTicks: valueTicks(x, 5),
    yTicks,
    horizontal: true,
    shapes,
    legend: series.map((entry, s) => ({ label: entry.label, series: s, kind: "rect" as const })),
  };
}

/** A small line of daily values (a post's downloads), drawn in a 120 x 28 box. */
export function sparkline(values: number[]): string {
  const x = scaleLinear()
    .domain([0, Math.max(1, values.length - 1)])
    .range([1, 119]);
  const y = scaleLinear()
    .domain([0, Math.max(1, ...values)])
    .range([27, 1]);
  return (
    line<number>()
      .x((_, index) => x(index))
      .y((value) => y(value))(values) ?? ""
  );
}
