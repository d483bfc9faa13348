// The editor's Ko-fi emails. With JavaScript, Add, Mark verified and Remove change the draft and
// the list goes with Save (as `kofiEmail` / `kofiEmailVerified` fields, and `kofiEmailRemoved` for
// each saved one taken off); without, each button posts at once to the /admin action, which
// changes that one email and draws the editor again with the rest of the form unsaved.
import { useMemo, useState } from "react";
import type { Draft, DraftUpdate, EditorShopEmail } from "~/components/admin/use-user-draft";
import { ADMIN_MESSAGES, shopEmailSchema } from "~/utils/admin-schemas";
import { parseInput } from "~/utils/input-words";

export function ShopEmailsFieldset({ idPrefix, saved, draft, update }: { idPrefix: string; saved: EditorShopEmail[]; draft: Draft; update: DraftUpdate }) {
  const [newEmail, setNewEmail] = useState("");
  const [emailError, setEmailError] = useState<string | null>(null);
  const savedVerified = useMemo(() => new Set(saved.filter((e) => e.emailVerified).map((e) => e.email.toLowerCase())), [saved]);
  const known = useMemo(() => new Set(saved.map((e) => e.email.toLowerCase())), [saved]);

  function add(event: React.MouseEvent) {
    event.preventDefault();
    const parsed = parseInput(shopEmailSchema, newEmail);
    if (!parsed.success) {
      setEmailError(parsed.error.issues[0]?.message ?? ADMIN_MESSAGES.shopEmailInvalid);
      return;
    }
    const email = parsed.data;
    setEmailError(null);
    setNewEmail("");
    if (draft.kofiEmails.some((item) => item.email.toLowerCase() === email.toLowerCase())) return;
    update("kofiEmails", [...draft.kofiEmails, { email, emailVerified: false }]);
  }

  function markVerified(event: React.MouseEvent, email: string) {
    event.preventDefault();
    update(
      "kofiEmails",
      draft.kofiEmails.map((item) => (item.email === email ? { ...item, emailVerified: true } : item)),
    );
  }

  function remove(event: React.MouseEvent, email: string) {
    event.preventDefault();
    update(
      "kofiEmails",
      draft.kofiEmails.filter((item) => item.email !== email),
    );
  }

  // Saved emails the draft no longer has: Save takes them off the user.
  const inDraft = new Set(draft.kofiEmails.map((item) => item.email.toLowerCase()));
  const removed = saved.filter((item) => !inDraft.has(item.email.toLowerCase()));

  return (
    <fieldset className="admin-fieldset">
      <legend>Ko-fi emails</legend>
      {draft.kofiEmails.length === 0 ? <p className="muted">No Ko-fi emails.</p> : null}
      <ul className="admin-email-list">
        {draft.kofiEmails.map((item) => (
          <li key={item.email}>
            <input type="hidden" name="kofiEmail" value={item.email} />
            {item.emailVerified ? <input type="hidden" name="kofiEmailVerified" value={item.email} /> : null}
            <span className="admin-email">{item.email}</span>{" "}
            {item.emailVerified ? <span className="badge badge-new">Verified</span> : <span className="badge">Unverified</span>}
            {!known.has(item.email.toLowerCase()) || (item.emailVerified && !savedVerified.has(item.email.toLowerCase())) ? (
              <span className="badge badge-updated">Not saved</span>
            ) : null}
            {!item.emailVerified ? (
              <button
                type="submit"
                className="button-secondary admin-small"
                name="verifyShopEmail"
                value={item.email}
                formNoValidate
                onClick={(event) => markVerified(event, item.email)}
              >
                Mark verified
              </button>
            ) : null}{" "}
            <button
              type="submit"
              className="button-secondary admin-small"
              name="removeShopEmail"
              value={item.email}
              formNoValidate
              aria-label={`Remove ${item.email}`}
              onClick={(event) => remove(event, item.email)}
            >
              Remove
            </button>
          </li>
        ))}
        {removed.map((item) => (
          <li key={`removed-${item.email}`}>
            <input type="hidden" name="kofiEmailRemoved" value={item.email} />
            <del className="admin-email">{item.email}</del> <span className="badge badge-updated">Removed, not saved</span>
          </li>
        ))}
      </ul>
      <div className="field">
        <label htmlFor={`${idPrefix}-newemail`}>Add Ko-fi email (unverified)</label>
        <div className="admin-inline">
          <input
            id={`${idPrefix}-newemail`}
            type="text"
            inputMode="email"
            name="newShopEmail"
            value={newEmail}
            onChange={(e) => setNewEmail(e.target.value)}
            aria-invalid={emailError ? true : undefined}
            aria-describedby={emailError ? `${idPrefix}-newemail-error` : undefined}
          />
          <button type="submit" className="button-secondary" name="intent" value="add-shop-email" formNoValidate onClick={add}>
            Add
          </button>
        </div>
        {emailError ? (
          <p id={`${idPrefix}-newemail-error`} className="field-error" role="alert">
            {emailError}
          </p>
        ) : null}
      </div>
    </fieldset>
  );
}
