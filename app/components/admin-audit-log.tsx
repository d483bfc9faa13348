// The latest admin changes: who, what, on what, when, and each changed field before and after.
import { Link } from "@remix-run/react";
import { useId } from "react";

export type AuditRow = {
  id: string;
  createdAt: string;
  actor: string;
  action: string;
  targetType: string;
  targetId: string | null;
  targetLabel: string | null;
  before: unknown;
  after: unknown;
};

const timeFormat = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

function show(value: unknown): string {
  if (value === undefined) return "—";
  if (value === null) return "none";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function changes(before: unknown, after: unknown): { field: string; before: unknown; after: unknown }[] {
  const from = before && typeof before === "object" ? (before as Record<string, unknown>) : {};
  const to = after && typeof after === "object" ? (after as Record<string, unknown>) : {};
  const fields = [...new Set([...Object.keys(from), ...Object.keys(to)])];
  return fields.map((field) => ({ field, before: from[field], after: to[field] }));
}

export function AuditLog({ entries, userHref }: { entries: AuditRow[]; userHref: (userId: string) => string }) {
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>Audit log</h2>
      {entries.length === 0 ? (
        <p className="muted">No admin changes yet.</p>
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
              {entries.map((entry) => {
                const rows = changes(entry.before, entry.after);
                return (
                  <tr key={entry.id}>
                    <td>{timeFormat.format(new Date(entry.createdAt))}</td>
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
                      {rows.length === 0 ? (
                        <span className="muted">—</span>
                      ) : (
                        <details>
                          <summary>{rows.map((row) => row.field).join(", ")}</summary>
                          <dl className="admin-diff">
                            {rows.map((row) => (
                              <div key={row.field}>
                                <dt>{row.field}</dt>
                                <dd>
                                  <span className="admin-before">{show(row.before)}</span> → <span className="admin-after">{show(row.after)}</span>
                                </dd>
                              </div>
                            ))}
                          </dl>
                        </details>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
