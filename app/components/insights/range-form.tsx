// The time range of the insights: a plain GET form (works without JavaScript), so every range is
// a link an admin can bookmark or share.
import { Form } from "@remix-run/react";

export type RangeFormValues = { range: string; from: string; to: string };

const PRESETS = [
  { value: "7", label: "Last 7 days" },
  { value: "30", label: "Last 30 days" },
  { value: "90", label: "Last 90 days" },
  { value: "365", label: "Last 365 days" },
  { value: "custom", label: "Custom dates" },
];

export function RangeForm({ values, error, errorField }: { values: RangeFormValues; error?: string; errorField?: string }) {
  const describedBy = (field: string) => (error && errorField === field ? "insights-range-error" : undefined);
  return (
    <Form method="get" action="/admin/insights" className="card insights-range">
      <div className="field">
        <label htmlFor="insights-range">Time range</label>
        <select id="insights-range" name="range" defaultValue={values.range} aria-describedby={describedBy("range")}>
          {PRESETS.map((preset) => (
            <option key={preset.value} value={preset.value}>
              {preset.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="insights-from">From (custom)</label>
        <input
          id="insights-from"
          type="date"
          name="from"
          defaultValue={values.from}
          aria-invalid={errorField === "from" || undefined}
          aria-describedby={describedBy("from")}
        />
      </div>
      <div className="field">
        <label htmlFor="insights-to">To (custom)</label>
        <input
          id="insights-to"
          type="date"
          name="to"
          defaultValue={values.to}
          aria-invalid={errorField === "to" || undefined}
          aria-describedby={describedBy("to")}
        />
      </div>
      <button type="submit" className="button">
        Show
      </button>
      {error ? (
        <p id="insights-range-error" className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </Form>
  );
}
