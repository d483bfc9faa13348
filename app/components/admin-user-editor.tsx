// The admin's user editor. With JavaScript every change stays in the page until Save, which
// sends the user without null fields (PUT /api/admin/users/{id}) and closes the editor.
// Without JavaScript the same form posts to the /admin action; shop email buttons post at once.
import { AccessCheckForm } from "~/components/access-check";
import { Form, Link, useNavigate, useNavigation } from "@remix-run/react";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { showToast } from "~/components/toaster";
import { ADMIN_MESSAGES, shopEmailSchema, withoutNullFields } from "~/utils/admin-schemas";

export type EditorShopEmail = { email: string; emailVerified: boolean };

export type EditorUser = {
  _id: string;
  id: string;
  number: number;
  email: string | null;
  fullName: string | null;
  patreonId: string | null;
  discordTag: string | null;
  current_tier: string | null;
  current_tier_title: string | null;
  kofi_current_tier: string | null;
  hasPatreon: boolean;
  hasGoogle: boolean;
  hasDiscord: boolean;
  hasPassword: boolean;
  isAdmin: boolean;
  canBeAdmin: boolean;
  mailVerified: boolean;
  tosAccepted: boolean;
  restricted: boolean;
  kofiEmails: EditorShopEmail[];
  unlocked_content: string[];
  downloads: { _id: string; postId: string; postTitle: string; version: string; date: string }[];
  pledge_history: {
    pledgeId: string;
    amount_cents: number;
    date: string;
    tier_title: string | null;
    tier_id: string | null;
    payment_status: string | null;
  }[];
};

export type EditorPost = { postId: string; title: string; enabled: boolean; paid_content: boolean };
export type EditorTier = { tierId: string; title: string };

type Draft = {
  fullName: string;
  email: string;
  restricted: boolean;
  canBeAdmin: boolean;
  isAdmin: boolean;
  current_tier: string;
  unlocked_content: string[];
  kofiEmails: EditorShopEmail[];
};

function draftOf(user: EditorUser): Draft {
  return {
    fullName: user.fullName ?? "",
    email: user.email ?? "",
    restricted: user.restricted,
    canBeAdmin: user.canBeAdmin,
    isAdmin: user.isAdmin,
    current_tier: user.current_tier ?? "",
    unlocked_content: user.unlocked_content,
    kofiEmails: user.kofiEmails,
  };
}

const dateFormat = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" });
const dollars = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

export function AdminUserEditor({
  user,
  posts,
  tiers,
  actionUrl,
  closeHref,
  formError,
}: {
  user: EditorUser;
  posts: EditorPost[];
  tiers: EditorTier[];
  actionUrl: string;
  closeHref: string;
  formError?: string | null;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(user));
  const [saving, setSaving] = useState(false);
  const [unlocking, setUnlocking] = useState(false);
  const [error, setError] = useState<string | null>(formError ?? null);
  const [newEmail, setNewEmail] = useState("");
  const [emailError, setEmailError] = useState<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const navigate = useNavigate();
  const navigation = useNavigation();
  const headingId = useId();

  // Revalidations (after a code search, Force interval, ...) bring a new user object; the draft
  // stays as it is until Save or Cancel. A different user remounts the editor (key).
  useEffect(() => {
    setError(formError ?? null);
  }, [formError]);

  useEffect(() => {
    headingRef.current?.focus();
  }, [user._id]);

  const savedEmails = useMemo(() => new Set(user.kofiEmails.filter((e) => e.emailVerified).map((e) => e.email.toLowerCase())), [user]);
  const knownEmails = useMemo(() => new Set(user.kofiEmails.map((e) => e.email.toLowerCase())), [user]);
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(user));

  function update<K extends keyof Draft>(key: K, value: Draft[K]) {
    setDraft((current) => ({ ...current, [key]: value }));
  }

  function addShopEmail(event: React.MouseEvent) {
    event.preventDefault();
    const parsed = shopEmailSchema.safeParse(newEmail);
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

  /** Recomputes the user's sync unlocks on the server and folds the result into the draft. */
  async function unlockObjects(event: React.MouseEvent) {
    event.preventDefault();
    if (!user._id) {
      showToast({ type: "error", message: ADMIN_MESSAGES.noUserSelected });
      return;
    }
    setUnlocking(true);
    try {
      const response = await fetch("/api/admin/unlock-objects-user", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ userId: user._id }),
      });
      const body = (await response.json().catch(() => ({}))) as { message?: string; error?: string; added?: number; removed?: number };
      if (!response.ok) {
        showToast({ type: "error", message: body.error ?? ADMIN_MESSAGES.unlockFailed });
        return;
      }
      // Keep unsaved edits: apply only what the server added or removed.
      const fresh = await fetch(`/api/admin/users/${encodeURIComponent(user._id)}`, { credentials: "same-origin" });
      if (fresh.ok) {
        const latest = (await fresh.json()) as EditorUser;
        const before = new Set(user.unlocked_content);
        const now = new Set(latest.unlocked_content);
        setDraft((current) => ({
          ...current,
          unlocked_content: [
            ...current.unlocked_content.filter((id) => now.has(id) || !before.has(id)),
            ...latest.unlocked_content.filter((id) => !before.has(id) && !current.unlocked_content.includes(id)),
          ],
        }));
      }
      showToast({
        type: "success",
        message: `${body.message ?? "Unlocked objects updated."} Added ${body.added ?? 0}, removed ${body.removed ?? 0}.`,
      });
    } catch {
      showToast({ type: "error", message: ADMIN_MESSAGES.unlockFailed });
    } finally {
      setUnlocking(false);
    }
  }

  async function save(event: React.FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    if (submitter && submitter.value !== "save-user") return; // other buttons handle themselves
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const response = await fetch(`/api/admin/users/${encodeURIComponent(user._id)}`, {
        method: "PUT",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(withoutNullFields({ ...user, ...draft })),
      });
      const body = (await response.json().catch(() => ({}))) as { message?: string; error?: string };
      if (!response.ok) {
        const message = response.status === 404 ? ADMIN_MESSAGES.userNotFound : (body.error ?? ADMIN_MESSAGES.updateUserFailed);
        setError(message);
        showToast({ type: "error", message });
        return;
      }
      showToast({ type: "success", message: body.message ?? ADMIN_MESSAGES.userUpdated });
      navigate(closeHref, { preventScrollReset: true });
    } catch {
      setError(ADMIN_MESSAGES.networkError);
      showToast({ type: "error", message: ADMIN_MESSAGES.networkError });
    } finally {
      setSaving(false);
    }
  }

  const busy = saving || navigation.state === "submitting";
  const title = user.fullName || user.email || `User #${user.number}`;

  return (
    <section className="card admin-editor" aria-labelledby={headingId} data-testid="user-editor">
      <div className="admin-editor-head">
        <h2 id={headingId} ref={headingRef} tabIndex={-1}>
          Edit user: {title}
        </h2>
        <Link to={closeHref} className="button-secondary" preventScrollReset>
          Close
        </Link>
      </div>
      <p className="muted">
        Leak-trace number <strong>{user.number}</strong> · {user.mailVerified ? "Mail verified" : "Mail not verified"} ·{" "}
        {providerLabels(user).join(", ") || "No providers"} · Terms {user.tosAccepted ? "accepted" : "not accepted"}
      </p>

      <Form method="post" action={actionUrl} onSubmit={save} className="admin-editor-form">
        {/* First submit button: Enter in any field saves. */}
        <button type="submit" name="intent" value="save-user" hidden tabIndex={-1} aria-hidden="true" />
        <input type="hidden" name="userId" value={user._id} />

        <div className="admin-editor-grid">
          <fieldset className="admin-fieldset">
            <legend>Account</legend>
            <div className="field">
              <label htmlFor={`${headingId}-name`}>Full name</label>
              <input id={`${headingId}-name`} type="text" name="fullName" value={draft.fullName} onChange={(e) => update("fullName", e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor={`${headingId}-email`}>Email</label>
              <input id={`${headingId}-email`} type="email" name="email" value={draft.email} onChange={(e) => update("email", e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor={`${headingId}-tier`}>Current tier</label>
              <select id={`${headingId}-tier`} name="current_tier" value={draft.current_tier} onChange={(e) => update("current_tier", e.target.value)}>
                <option value="">None</option>
                {tiers.map((tier) => (
                  <option key={tier.tierId} value={tier.tierId}>
                    {tier.title}
                  </option>
                ))}
                {draft.current_tier && !tiers.some((tier) => tier.tierId === draft.current_tier) ? (
                  <option value={draft.current_tier}>Unknown Tier ({draft.current_tier})</option>
                ) : null}
              </select>
            </div>
            <label className="checkbox">
              <input type="checkbox" name="restricted" value="true" checked={draft.restricted} onChange={(e) => update("restricted", e.target.checked)} />
              Restricted
            </label>
            <label className="checkbox">
              <input type="checkbox" name="canBeAdmin" value="true" checked={draft.canBeAdmin} onChange={(e) => update("canBeAdmin", e.target.checked)} />
              Can be admin
            </label>
            <label className="checkbox">
              <input type="checkbox" name="isAdmin" value="true" checked={draft.isAdmin} onChange={(e) => update("isAdmin", e.target.checked)} />
              Is admin
            </label>
          </fieldset>

          <fieldset className="admin-fieldset">
            <legend>Ko-fi emails</legend>
            {draft.kofiEmails.length === 0 ? <p className="muted">No Ko-fi emails.</p> : null}
            <ul className="admin-email-list">
              {draft.kofiEmails.map((item) => (
                <li key={item.email}>
                  <span className="admin-email">{item.email}</span>{" "}
                  {item.emailVerified ? <span className="badge badge-new">Verified</span> : <span className="badge">Unverified</span>}
                  {!knownEmails.has(item.email.toLowerCase()) || (item.emailVerified && !savedEmails.has(item.email.toLowerCase())) ? (
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
                  ) : null}
                </li>
              ))}
            </ul>
            <div className="field">
              <label htmlFor={`${headingId}-newemail`}>Add Ko-fi email (unverified)</label>
              <div className="admin-inline">
                <input
                  id={`${headingId}-newemail`}
                  type="text"
                  inputMode="email"
                  name="newShopEmail"
                  value={newEmail}
                  onChange={(e) => setNewEmail(e.target.value)}
                  aria-invalid={emailError ? true : undefined}
                  aria-describedby={emailError ? `${headingId}-newemail-error` : undefined}
                />
                <button type="submit" className="button-secondary" name="intent" value="add-shop-email" formNoValidate onClick={addShopEmail}>
                  Add
                </button>
              </div>
              {emailError ? (
                <p id={`${headingId}-newemail-error`} className="field-error" role="alert">
                  {emailError}
                </p>
              ) : null}
            </div>
          </fieldset>
        </div>

        <PostPicker posts={posts} selected={draft.unlocked_content} onChange={(ids) => update("unlocked_content", ids)} />

        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="button-row admin-editor-actions">
          <button type="submit" className="button" name="intent" value="save-user" disabled={busy} aria-busy={busy || undefined}>
            {busy ? "Saving..." : "Save"}
          </button>
          <Link to={closeHref} className="button-secondary" preventScrollReset>
            Cancel
          </Link>
          <button
            type="submit"
            className="button-secondary"
            name="intent"
            value="unlock-objects"
            formNoValidate
            onClick={unlockObjects}
            disabled={unlocking}
            aria-busy={unlocking || undefined}
          >
            {unlocking ? "Unlocking..." : "Unlock objects"}
          </button>
          {dirty ? <span className="muted">Unsaved changes</span> : null}
        </div>
      </Form>

      <h3>Pledge history</h3>
      {user.pledge_history.length === 0 ? (
        <p className="muted">No pledges.</p>
      ) : (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Amount</th>
                <th scope="col">Tier</th>
                <th scope="col">Payment status</th>
              </tr>
            </thead>
            <tbody>
              {user.pledge_history.map((pledge) => (
                <tr key={pledge.pledgeId}>
                  <td>{formatDate(pledge.date)}</td>
                  <td>{dollars.format(pledge.amount_cents / 100)}</td>
                  <td>{pledge.tier_title ?? pledge.tier_id ?? "None"}</td>
                  <td>{pledge.payment_status ?? "Unknown"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h3>Downloads</h3>
      {user.downloads.length === 0 ? (
        <p className="muted">No downloads.</p>
      ) : (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Post</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              {user.downloads.map((download) => (
                <tr key={download._id}>
                  <td>{formatDate(download.date)}</td>
                  <td>{download.postTitle}</td>
                  <td>{download.version}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AccessCheckForm userId={user._id} posts={posts} />
    </section>
  );
}

export function providerLabels(user: { hasPatreon: boolean; hasGoogle: boolean; hasDiscord: boolean; hasPassword: boolean }): string[] {
  return [
    user.hasPassword ? "Email" : null,
    user.hasPatreon ? "Patreon" : null,
    user.hasGoogle ? "Google" : null,
    user.hasDiscord ? "Discord" : null,
  ].filter((label): label is string => label !== null);
}

/**
 * Unlocked content by post title: the granted posts first (with Remove), then every post as a
 * checkbox, narrowed by a filter. The checkboxes are the no-JavaScript form too.
 */
function PostPicker({ posts, selected, onChange }: { posts: EditorPost[]; selected: string[]; onChange: (ids: string[]) => void }) {
  const [filter, setFilter] = useState("");
  const filterId = useId();
  const selectedSet = new Set(selected);
  const byId = new Map(posts.map((post) => [post.postId, post]));
  const needle = filter.trim().toLowerCase();
  const shown = needle ? posts.filter((post) => post.title.toLowerCase().includes(needle)) : posts;

  function toggle(postId: string, on: boolean) {
    onChange(on ? [...selected.filter((id) => id !== postId), postId] : selected.filter((id) => id !== postId));
  }

  return (
    <fieldset className="admin-fieldset admin-picker">
      <legend>Unlocked content</legend>
      {selected.length === 0 ? (
        <p className="muted">No unlocked content.</p>
      ) : (
        <ul className="admin-chips" aria-label="Unlocked posts">
          {selected.map((postId) => (
            <li key={postId} className="admin-chip">
              <span>{byId.get(postId)?.title ?? `Unknown post (${postId})`}</span>
              <button type="button" className="admin-chip-remove" aria-label={`Remove ${byId.get(postId)?.title ?? postId}`} onClick={() => toggle(postId, false)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="field">
        <label htmlFor={filterId}>Find a post to unlock</label>
        <input id={filterId} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Post title" autoComplete="off" />
      </div>
      <ul className="admin-picker-list" aria-label="Posts">
        {shown.map((post) => (
          <li key={post.postId}>
            <label className="checkbox">
              <input
                type="checkbox"
                name="unlocked_content"
                value={post.postId}
                checked={selectedSet.has(post.postId)}
                onChange={(e) => toggle(post.postId, e.target.checked)}
              />
              {post.title}
              {!post.paid_content ? <span className="badge">Free</span> : null}
              {!post.enabled ? <span className="badge">Disabled</span> : null}
            </label>
          </li>
        ))}
        {shown.length === 0 ? <li className="muted">No post matches.</li> : null}
      </ul>
      {/* Posts hidden by the filter stay granted when saving without JavaScript. */}
      {selected
        .filter((postId) => !shown.some((post) => post.postId === postId))
        .map((postId) => (
          <input key={postId} type="hidden" name="unlocked_content" value={postId} />
        ))}
    </fieldset>
  );
}
