// /admin/mail: the mail outbox (docs/decisions/018-mail-outbox.md): how many mails are queued,
// retrying, being sent, sent and given up, and for each one not sent its recipient, subject,
// attempts, next attempt and last error. Effective admins only. A plain page: no script needed.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { outboxOverview, type OutboxRow, type OutboxState } from "~/models/mail-outbox.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css?url";
import { personalPageHeaders } from "~/utils/page-headers";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Mail outbox · Admin · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return data(await outboxOverview(), { headers: { "Cache-Control": "private, no-store" } });
}

const STATE_WORDS: Record<OutboxState, string> = {
  queued: "Queued",
  retrying: "Retrying",
  sending: "Being sent",
  sent: "Sent",
  given_up: "Given up",
};

function when(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "—";
}

function MailTable({ rows, label, empty, givenUp }: { rows: OutboxRow[]; label: string; empty: string; givenUp: boolean }) {
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label}>
      <table data-testid={givenUp ? "outbox-given-up" : "outbox-unsent"}>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col">To</th>
            <th scope="col">Subject</th>
            <th scope="col">Queued</th>
            <th scope="col">Attempts</th>
            <th scope="col">{givenUp ? "Given up" : "Next attempt"}</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-testid="outbox-row">
              <td>{STATE_WORDS[row.state]}</td>
              <td>{row.to}</td>
              <td>{row.subject}</td>
              <td>{when(row.createdAt)}</td>
              <td>{row.attempts}</td>
              <td>{givenUp ? when(row.gaveUpAt) : row.state === "sending" ? "Now" : when(row.nextAttemptAt)}</td>
              <td>{row.lastError ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default function AdminMail() {
  const { counts, unsent, givenUp } = useLoaderData<typeof loader>();
  return (
    <div className="admin-page stack">
      <p>
        <Link to="/admin">Back to the admin area</Link>
      </p>
      <h1>Mail outbox</h1>
      <p>
        Every mail the site sends waits here until the mail server takes it. Failed attempts are retried, each after twice the wait of the one before; codes are
        given up when they expire, other mails after 48 hours.
      </p>
      <section className="card" aria-labelledby="outbox-counts">
        <h2 id="outbox-counts">By state</h2>
        <dl className="outbox-counts" data-testid="outbox-counts">
          {(Object.keys(STATE_WORDS) as OutboxState[]).map((state) => (
            <div key={state}>
              <dt>{STATE_WORDS[state]}</dt>
              <dd>{counts[state].toLocaleString("en-US")}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section className="card" aria-labelledby="outbox-unsent">
        <h2 id="outbox-unsent">Not sent yet</h2>
        <MailTable rows={unsent} label="Mails not sent yet" empty="Nothing is waiting." givenUp={false} />
      </section>
      <section className="card" aria-labelledby="outbox-given-up">
        <h2 id="outbox-given-up">Given up</h2>
        <MailTable rows={givenUp} label="Mails given up" empty="No mail was given up." givenUp />
      </section>
    </div>
  );
}
