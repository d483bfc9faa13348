// The Insights section of /admin: pick a range and open the charts (a plain GET form).
import { Form, Link } from "@remix-run/react";

export function InsightsEntry() {
  return (
    <section className="card" aria-labelledby="insights-entry-title">
      <h2 id="insights-entry-title">Insights</h2>
      <p>Downloads by access source, top posts, supporters by tier, shop purchases and the inspiration vote, as charts with tables and CSV exports.</p>
      <Form method="get" action="/admin/insights" className="admin-search">
        <div className="field">
          <label htmlFor="insights-entry-range">Time range</label>
          <select id="insights-entry-range" name="range" defaultValue="30">
            <option value="7">Last 7 days</option>
            <option value="30">Last 30 days</option>
            <option value="90">Last 90 days</option>
            <option value="365">Last 365 days</option>
          </select>
        </div>
        <button type="submit" className="button">
          Show insights
        </button>
      </Form>
      <p>
        <Link to="/admin/insights">Open insights</Link> (custom dates are chosen there)
      </p>
    </section>
  );
}
