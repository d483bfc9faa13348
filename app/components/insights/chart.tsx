// One insights chart: a server-drawn SVG (role img, titled and described), its legend, a CSV
// link, and the same numbers as a table in a disclosure that works without JavaScript.
import type { ReactNode } from "react";
import type { ChartGeometry } from "~/components/insights/chart-types";
import type { DataTable } from "~/utils/insights-schemas";

/**
 * A chart, or its one-line `empty` state when there is nothing to draw. On a narrow screen the
 * chart keeps a readable size and scrolls sideways, starting at its right end: the latest days.
 */
export function ChartSvg({
  id,
  title,
  description,
  geometry,
  empty,
}: {
  id: string;
  title: string;
  description: string;
  geometry: ChartGeometry;
  empty: string;
}) {
  const g = geometry;
  if (g.empty)
    return (
      <p className="muted insights-empty" data-testid={`insights-${id}-empty`}>
        {empty}
      </p>
    );
  return (
    <div className={g.horizontal ? "insights-scroll insights-scroll-items" : "insights-scroll"} role="region" aria-label={`${title}, chart`} tabIndex={0}>
      <svg className="insights-svg" viewBox={`0 0 ${g.width} ${g.height}`} role="img" aria-labelledby={`${id}-svg-title ${id}-svg-desc`}>
        <title id={`${id}-svg-title`}>{title}</title>
        <desc id={`${id}-svg-desc`}>{description}</desc>
        <g className="insights-grid" aria-hidden="true">
          {(g.horizontal ? g.xTicks : g.yTicks).map((tick) =>
            g.horizontal ? (
              <line key={tick.label} x1={tick.pos} x2={tick.pos} y1={g.top} y2={g.bottom} />
            ) : (
              <line key={tick.label} x1={g.left} x2={g.right} y1={tick.pos} y2={tick.pos} />
            ),
          )}
        </g>
        <g aria-hidden="true">
          {g.shapes.map((shape, index) =>
            shape.kind === "rect" ? (
              <rect key={index} className={`insights-s${shape.series % 8}`} x={shape.x} y={shape.y} width={shape.width} height={shape.height} />
            ) : (
              <path key={index} className={`insights-${shape.kind} insights-s${shape.series % 8}`} d={shape.d} />
            ),
          )}
        </g>
        <g className="insights-axis" aria-hidden="true">
          <line x1={g.left} x2={g.right} y1={g.bottom} y2={g.bottom} />
          <line x1={g.left} x2={g.left} y1={g.top} y2={g.bottom} />
          {g.xTicks.map((tick) => (
            <text key={`x${tick.label}`} x={tick.pos} y={g.bottom + 18} textAnchor="middle">
              {tick.label}
            </text>
          ))}
          {g.yTicks.map((tick) => (
            <text key={`y${tick.label}${tick.pos}`} x={g.left - 6} y={tick.pos + 4} textAnchor="end">
              {tick.label}
            </text>
          ))}
        </g>
      </svg>
    </div>
  );
}

export function Legend({ geometry }: { geometry: ChartGeometry }) {
  if (geometry.empty || geometry.legend.length < 2) return null;
  return (
    <ul className="insights-legend">
      {geometry.legend.map((entry) => (
        <li key={entry.series}>
          <span className={`insights-swatch insights-swatch-${entry.kind} insights-s${entry.series % 8}`} aria-hidden="true" />
          {entry.label}
        </li>
      ))}
    </ul>
  );
}

export function DataTableView({ id, title, table }: { id: string; title: string; table: DataTable }) {
  return (
    <details className="insights-table">
      <summary>Table: {title}</summary>
      <div className="table-scroll" role="region" aria-labelledby={`${id}-caption`} tabIndex={0}>
        <table>
          <caption id={`${id}-caption`}>{title}</caption>
          <thead>
            <tr>
              {table.columns.map((column, index) => (
                <th key={index} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row, index) => (
              <tr key={index}>
                {row.map((cell, column) =>
                  column === 0 ? (
                    <th key={column} scope="row">
                      {cell}
                    </th>
                  ) : (
                    <td key={column}>{cell}</td>
                  ),
                )}
              </tr>
            ))}
            {table.rows.length === 0 ? (
              <tr>
                <td colSpan={table.columns.length}>No data in this range.</td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/** A titled chart section with its CSV export. */
export function ChartSection({
  id,
  title,
  summary,
  csvHref,
  children,
}: {
  id: string;
  title: string;
  summary: ReactNode;
  csvHref: string;
  children: ReactNode;
}) {
  return (
    <section className="card insights-chart" aria-labelledby={`${id}-title`} data-testid={`insights-${id}`}>
      <div className="insights-chart-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <a className="button-secondary insights-csv" href={csvHref} download>
          CSV<span className="visually-hidden"> of {title.toLowerCase()}</span>
        </a>
      </div>
      <p className="muted">{summary}</p>
      {children}
    </section>
  );
}
