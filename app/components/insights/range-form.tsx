// The time range of the insights: a plain GET form (works without JavaScript), so every range is
// a link an admin can bookmark or share. It also sends the range and dates it was shown with, so
// the server tells edited dates (a custom range) from a newly chosen preset; with JavaScript,
// editing a date also switches the select to Custom dates.
import { Form } from "@remix-run/react";
import { useRef } from "react";

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
  const selectRef = useRef<HTMLSelectElement>(null);
  const toCustom = () => {
    if (selectRef.current) selectRef.current.value = "custom";
  };
  return (
    // Keyed by what it shows: after a navigation the fields start again from the new values.
    <Form method="get" action="/admin/insights" className="card insights-range" key={`${values.range}|${values.from}|${values.to}|${error ?? ""}`}>
      <input type="hidden" name="shownRange" value={values.range} />
      <input type="hidden" name="shownFrom" value={values.from} />
      <input type="hidden" name="shownTo" value={values.to} />
      <div className="field">
        <label htmlFor="insights-range">Time range</label>
        <select ref={selectRef} id="insights-range" name="range" defaultValue={values.range} aria-describedby={describedBy("range")}>
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
          onChange={toCustom}
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
          onChange={toCustom}
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
