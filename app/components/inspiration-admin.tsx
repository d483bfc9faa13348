import { Form, Link } from "@remix-run/react";
import { SubmitButton, useSavedKey } from "~/components/form";

export type AdminConfig = { title: string; mode: "normal" | "randomized"; votingOpenFlag: boolean; votingEndTime: string | null };

/** An ISO time as a datetime-local value in UTC (the form says the time is UTC). */
function toUtcInputValue(iso: string | null): string {
  return iso ? iso.slice(0, 16) : "";
}

/** The admin controls of the vote: title, mode, status and end time; reset likes; new panel. */
export function InspirationAdmin({ config }: { config: AdminConfig }) {
  const createdKey = useSavedKey("create-panel");
  return (
    <section className="card inspiration-admin" aria-labelledby="inspiration-admin-title">
      <h2 id="inspiration-admin-title">Admin controls</h2>
      <div className="inspiration-admin-grid">
        <Form method="post" replace className="stack" aria-label="Vote settings">
          <div className="field">
            <label htmlFor="config-title">Title</label>
            <input id="config-title" name="title" type="text" defaultValue={config.title} maxLength={200} required />
          </div>
          <div className="field">
            <label htmlFor="config-mode">Mode</label>
            <select id="config-mode" name="mode" defaultValue={config.mode}>
              <option value="normal">Normal</option>
              <option value="randomized">Randomized (counts hidden, order shuffled)</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="config-end">Voting end time (UTC)</label>
            <input id="config-end" name="votingEndTime" type="datetime-local" defaultValue={toUtcInputValue(config.votingEndTime)} />
          </div>
          <label className="checkbox">
            <input type="hidden" name="votingOpen" value="false" />
            <input type="checkbox" name="votingOpen" value="true" defaultChecked={config.votingOpenFlag} /> Voting open
          </label>
          <div className="button-row">
            <SubmitButton intent="update-config" pendingLabel="Saving...">
              Save Settings
            </SubmitButton>
            <Link to="/inspiration-vote?confirm=reset" className="button-danger">
              Reset Likes
            </Link>
          </div>
        </Form>
        <Form key={createdKey} method="post" replace className="stack" aria-label="New inspiration panel">
          <h3>New panel</h3>
          <div className="field">
            <label htmlFor="new-image">Image URL</label>
            <input id="new-image" name="imageUrl" type="text" placeholder="https:// or /media/..." />
          </div>
          <div className="field">
            <label htmlFor="new-title">Title (optional)</label>
            <input id="new-title" name="title" type="text" maxLength={200} />
          </div>
          <SubmitButton intent="create-panel" pendingLabel="Creating...">
            Create Panel
          </SubmitButton>
        </Form>
      </div>
    </section>
  );
}
