import { Form, Link } from "@remix-run/react";
import { FileDrop } from "~/components/file-drop";
import { SubmitButton, useSavedKey } from "~/components/form";
import { PANEL_IMAGE_ACCEPT } from "~/utils/form-hints";

export type AdminConfig = { title: string; mode: "normal" | "randomized"; votingOpenFlag: boolean; votingEndTime: string | null };

/** An ISO time as a datetime-local value in UTC (the form says the time is UTC). */
function toUtcInputValue(iso: string | null): string {
  return iso ? iso.slice(0, 16) : "";
}

/** The admin controls of the vote: title, mode, status and end time; reset likes; new panel. */
type Refused = { intent: string; error: string; values: Record<string, string> } | null;

function FormError({ message }: { message: string | undefined }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

export function InspirationAdmin({ config, refused }: { config: AdminConfig; refused: Refused }) {
  const createdKey = useSavedKey("create-panel");
  // What a refused form sent comes back into it (without JavaScript the page is rendered anew).
  const configRefused = refused?.intent === "update-config" ? refused : null;
  const createRefused = refused?.intent === "create-panel" ? refused : null;
  const shown = configRefused
    ? {
        title: configRefused.values.title ?? config.title,
        mode: configRefused.values.mode === "randomized" ? "randomized" : "normal",
        votingEndTime: configRefused.values.votingEndTime ?? "",
        votingOpen: configRefused.values.votingOpen === "true",
      }
    : { title: config.title, mode: config.mode, votingEndTime: toUtcInputValue(config.votingEndTime), votingOpen: config.votingOpenFlag };
  return (
    <section className="card inspiration-admin" aria-labelledby="inspiration-admin-title">
      <h2 id="inspiration-admin-title">Admin controls</h2>
      <div className="inspiration-admin-grid">
        <Form method="post" replace className="stack" aria-label="Vote settings">
          <FormError message={configRefused?.error} />
          <div className="field">
            <label htmlFor="config-title">Title</label>
            <input id="config-title" name="title" type="text" defaultValue={shown.title} maxLength={200} required />
          </div>
          <div className="field">
            <label htmlFor="config-mode">Mode</label>
            <select id="config-mode" name="mode" defaultValue={shown.mode}>
              <option value="normal">Normal</option>
              <option value="randomized">Randomized (counts hidden, order shuffled)</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="config-end">Voting end time (UTC)</label>
            <input id="config-end" name="votingEndTime" type="datetime-local" defaultValue={shown.votingEndTime} />
          </div>
          <label className="checkbox">
            <input type="hidden" name="votingOpen" value="false" />
            <input type="checkbox" name="votingOpen" value="true" defaultChecked={shown.votingOpen} /> Voting open
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
        {/* One multipart post with the fields and the image, as the home page's panel form: works without JavaScript. */}
        <Form key={createdKey} method="post" encType="multipart/form-data" replace className="stack" aria-label="New inspiration panel">
          <h3>New panel</h3>
          <FormError message={createRefused?.error} />
          <div className="field">
            <FileDrop id="new-image-file" name="image" label="Image (png, jpg, jpeg)" accept={PANEL_IMAGE_ACCEPT} describedBy="new-image-hint" />
          </div>
          <div className="field">
            <label htmlFor="new-image">Image URL</label>
            <input
              id="new-image"
              name="imageUrl"
              type="text"
              placeholder="https:// or /media/..."
              aria-describedby="new-image-hint"
              defaultValue={createRefused?.values.imageUrl}
            />
            <p id="new-image-hint" className="muted">
              Upload an image, or give the address of one already online. An uploaded image is used when both are given.
            </p>
          </div>
          <div className="field">
            <label htmlFor="new-title">Title (optional)</label>
            <input id="new-title" name="title" type="text" maxLength={200} defaultValue={createRefused?.values.title} />
          </div>
          <SubmitButton intent="create-panel" pendingLabel="Creating...">
            Create Panel
          </SubmitButton>
        </Form>
      </div>
    </section>
  );
}
