// A data table as CSV. Text cells that a spreadsheet would run as a formula (a post titled
// "=HYPERLINK(...)") get a leading apostrophe, the usual guard against CSV injection.
import { stringify } from "csv-stringify/sync";
import type { DataTable } from "~/utils/insights-schemas";

const FORMULA_START = /^[=+\-@\t\r]/;

export function tableToCsv(table: DataTable): string {
  const safe = (cell: string | number) => (typeof cell === "string" && FORMULA_START.test(cell) ? `'${cell}` : cell);
  return stringify([table.columns.map(safe), ...table.rows.map((row) => row.map(safe))], { bom: true });
}
