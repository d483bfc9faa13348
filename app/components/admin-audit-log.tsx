// The audit log on /admin (docs/product.md#audit-log): who, what, on what, when, and what each
// entry changed (only the fields that differ, before -> after), with filters (action, actor, UTC
// days) and paging. A plain GET form and links: it works without JavaScript.
import { Form, Link } from "@remix-run/react";
import { useId } from "react";
import { auditFilterParams, auditValue, type AuditChange, type AuditFilter } from "~/utils/audit-log";
import { formatDayTime } from "~/utils/dates";

export type AuditRow = {
  id: string;
  createdAt: string;
  actor: string;
  action: string;
  targetType: string;
  targetId: string | null;
  targetLabel: string | null;
  changes: AuditChange[];
};

export type AuditPage = {
  rows: AuditRow[];
  hasOlder: boolean;
  actions: string[];
  actors: { id: string; label: string }[];
  filter: AuditFilter;
};

/** `keep`: the page's other parameters (the user search), kept by the filter and the paging. */
export function AuditLog({ audit, keep, userHref }: { audit: AuditPage; keep: Record<string, string>; userHref: (userId: string) => string }) {
  const id = useId();
  const { filter } = audit;
  const kept = Object.entries(keep).filter(([, value]) => value);
  const href = (page: number) => {
    const params = new URLSearchParams([...kept, ...auditFilterParams({ ...filter, page })]);
    return `/admin?${params.toString()}#audit-log`;
  };
  const filtered = Boolean(filter.action || filter.actor || filter.from || filter.to);
  return (
    <section className="card" aria-labelledby={id} id="audit-log">
      <h2 id={id}>Audit log</h2>
      <Form method="get" action="/admin#audit-log" className="audit-filter" data-testid="audit-filter">
        {kept.map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <div className="field">
          <label htmlFor={`${id}-action`}>Action</label>
          <select id={`${id}-action`} name="audit_action" defaultValue={filter.action ?? ""}>
            <option value="">Any action</option>
            {audit.actions.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-actor`}>Who</label>
          <select id={`${id}-actor`} name="audit_actor" defaultValue={filter.actor ?? ""}>
            <option value="">Anyone</option>
            {audit.actors.map((actor) => (
              <option key={actor.id} value={actor.id}>
                {actor.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-from`}>From (UTC day)</label>
          <input id={`${id}-from`} type="date" name="audit_from" defaultValue={filter.from ?? ""} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-to`}>To (UTC day)</label>
          <input id={`${id}-to`} type="date" name="audit_to" defaultValue={filter.to ?? ""} />
        </div>
        <button type="submit" className="button-secondary">
          Filter
        </button>
        {filtered ? <Link to={`/admin${kept.length ? `?${new URLSearchParams(kept).toString()}` : ""}#audit-log`}>Show all entries</Link> : null}
      </Form>
      {audit.rows.length === 0 ? (
        <p className="muted">{filtered || filter.page > 1 ? "No entries match these filters." : "No admin changes yet."}</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Audit log entries">
          <table className="admin-audit" data-testid="audit-log">
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Changes</th>
              </tr>
            </thead>
            <tbody>
              {audit.rows.map((entry) => (
                <tr key={entry.id}>
                  <td>{formatDayTime(entry.createdAt)}</td>
                  <td>{entry.actor}</td>
                  <td className="admin-mono">{entry.action}</td>
                  <td>
                    {entry.targetType === "user" && entry.targetId ? (
                      <Link to={userHref(entry.targetId)}>user {entry.targetLabel ?? entry.targetId}</Link>
                    ) : (
                      `${entry.targetType}${entry.targetId ? ` ${entry.targetId}` : ""}`
                    )}
                  </td>
                  <td>
                    {entry.changes.length === 0 ? (
                      <span className="muted">no field changed</span>
                    ) : (
                      <dl className="admin-diff" data-testid="audit-changes">
                        {entry.changes.map((change) => (
                          <div key={change.field}>
                            <dt>{change.field}</dt>
                            <dd>
                              <span className="admin-before">{auditValue(change.before)}</span> →{" "}
                              <span className="admin-after">{auditValue(change.after)}</span>
                            </dd>
                          </div>
                        ))}
                      </dl>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {filter.page > 1 || audit.hasOlder ? (
        <nav className="audit-paging" aria-label="Audit log pages">
          {filter.page > 1 ? <Link to={href(filter.page - 1)}>Newer entries</Link> : null}
          <span className="muted">Page {filter.page}</span>
          {audit.hasOlder ? <Link to={href(filter.page + 1)}>Older entries</Link> : null}
        </nav>
      ) : null}
    </section>
  );
}
