// Chart maths on the server: scales, stacks and path strings from d3-scale and d3-shape. Route
// loaders call these and send the result; the React charts only place what they are given, so
// no d3 code reaches the browser.
import { scaleBand, scaleLinear, scaleUtc } from "d3-scale";
import { area, curveMonotoneX, curveStepAfter, line, stack } from "d3-shape";
import type { ChartGeometry, Shape, Tick } from "~/components/insights/chart-types";

export type Series = { label: string; values: number[] };

const WIDTH = 640;
const HEIGHT = 280;
const MARGIN = { top: 12, right: 16, bottom: 32, left: 48 };

const DAY_MS = 24 * 60 * 60 * 1000;
const utcDay = (day: string) => new Date(`${day}T00:00:00Z`);
const round = (value: number) => Math.round(value * 10) / 10;

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
 * Daily values stacked by series (areas, one step per day), with optional lines on the same
 * axis (unique users): `days` are YYYY-MM-DD, every series has one value per day.
 */
export function dailyStack(days: string[], series: Series[], lines: Series[] = []): ChartGeometry {
  const box = frame();
  if (days.length === 0) return { ...box, xTicks: [], yTicks: [], horizontal: false, shapes: [], legend: [] };
  const start = utcDay(days[0]!);
  const end = new Date(utcDay(days[days.length - 1]!).getTime() + DAY_MS);
  const x = scaleUtc().domain([start, end]).range([box.left, box.right]);
  const rows = days.map((_, index) => Object.fromEntries(series.map((entry, s) => [s, entry.values[index] ?? 0])) as Record<number, number>);
  const stacked = stack<Record<number, number>, number>().keys(series.map((_, s) => s))(rows);
  const top = Math.max(1, ...stacked.flatMap((layer) => layer.map((point) => point[1])), ...lines.flatMap((entry) => entry.values));
  const y = scaleLinear().domain([0, top]).nice().range([box.bottom, box.top]);
  // A step holds each day's value across the whole day; the last day needs a closing point.
  const dayX = (index: number) => x(new Date(start.getTime() + index * DAY_MS));
  const closed = <T>(points: T[]) => [...points, points[points.length - 1]!];
  const shapes: Shape[] = stacked.map((layer, s) => ({
    kind: "area",
    series: s,
    d:
      area<[number, number]>()
        .x((_, index) => dayX(index))
        .y0((point) => y(point[0]))
        .y1((point) => y(point[1]))
        .curve(curveStepAfter)(closed(layer.map((point) => [point[0], point[1]] as [number, number]))) ?? "",
  }));
  lines.forEach((entry, l) => {
    const d = line<number>()
      .x((_, index) => dayX(index) + (dayX(1) - dayX(0)) / 2)
      .y((value) => y(value))
      .curve(curveMonotoneX)(entry.values);
    shapes.push({ kind: "line", series: series.length + l, d: d ?? "" });
  });
  const xTicks = x.ticks(Math.min(6, days.length)).map((date) => ({ pos: round(x(date)), label: date.toISOString().slice(5, 10) }));
  return {
    ...box,
    xTicks,
    yTicks: valueTicks(y, 5),
    horizontal: false,
    shapes,
    legend: [
      ...series.map((entry, s) => ({ label: entry.label, series: s, kind: "area" as const })),
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
  // Label at most about eight categories so month names never overlap.
  const every = Math.max(1, Math.ceil(categories.length / 8));
  const xTicks = categories.filter((_, index) => index % every === 0).map((category) => ({ pos: round(x(category)! + x.bandwidth() / 2), label: category }));
  return {
    ...box,
    xTicks,
    yTicks: valueTicks(y, 5),
    horizontal: false,
    shapes,
    legend: series.map((entry, s) => ({ label: entry.label, series: s, kind: "rect" as const })),
  };
}

/** Horizontal stacked bars, one per labelled item (ideas), values along x. */
export function itemBars(items: string[], series: Series[]): ChartGeometry {
  const rowHeight = 28;
  const left = 150;
  const height = Math.max(120, MARGIN.top + MARGIN.bottom + rowHeight * items.length);
  const box = { ...frame(left), height, bottom: height - MARGIN.bottom };
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
