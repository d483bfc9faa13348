// What a drawn chart is made of: positions and path strings worked out on the server (with
// d3-scale and d3-shape, in geometry.server.ts), so the browser gets plain SVG and no chart code.

export type Tick = { pos: number; label: string };

export type Shape =
  { kind: "area" | "line"; series: number; d: string } | { kind: "rect"; series: number; x: number; y: number; width: number; height: number };

export type LegendEntry = { label: string; series: number; kind: "area" | "line" | "rect" };

export type ChartGeometry = {
  /** No data to draw: the page says so in one line instead of an empty frame. */
  empty: boolean;
  width: number;
  height: number;
  /** Plot area edges inside the view box. */
  left: number;
  top: number;
  right: number;
  bottom: number;
  xTicks: Tick[];
  yTicks: Tick[];
  /** Horizontal bars: categories run down the y axis and values along x. */
  horizontal: boolean;
  shapes: Shape[];
  legend: LegendEntry[];
};
