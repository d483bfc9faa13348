// The admin area's read-only tables (pledges, downloads, code search results, rejected import
// rows, sync runs): a header row and one row per item, scrolling sideways inside their box.
import type { ReactNode } from "react";

export type Column<Row> = { header: string; cell: (row: Row) => ReactNode; className?: string };

export function DataTable<Row>({
  rows,
  columns,
  rowKey,
  label,
}: {
  rows: Row[];
  columns: Column<Row>[];
  rowKey: (row: Row) => string | number;
  /** Names the scrolling box, a region that takes keyboard focus so the keys scroll it (axe scrollable-region-focusable). */
  label: string;
}) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label}>
      <table>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.header} className={column.className}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
