// The admin's user editor. Its form posts to the /admin action: through a fetcher with
// JavaScript (changes stay in the draft until Save, which closes the editor), as a plain post
// without (Add, Mark verified and Remove of a shop email then post at once, and the editor is
// drawn again with the rest of the form as typed, unsaved).
import { Link, useFetcher, useNavigation } from "@remix-run/react";
import { useEffect, useId, useRef, type ReactNode } from "react";
import { AccessCheckForm } from "~/components/access-check";
import { AccountFieldset } from "~/components/admin/account-fieldset";
import type { AdminActionData } from "~/components/admin/action-data";
import { DataTable } from "~/components/admin/data-table";
import { formatCents, providerLabels } from "~/components/admin/format";
import { PostPicker } from "~/components/admin/post-picker";
import { ShopEmailsFieldset } from "~/components/admin/shop-emails-fieldset";
import { useIntentAnswer } from "~/components/admin/use-intent-answer";
import { FoldingSection } from "~/components/folding-section";
import { useUserDraft, type EditorPost, type EditorTier, type EditorUser } from "~/components/admin/use-user-draft";
import type { PostedEditorFields } from "~/utils/admin-schemas";
import { formatDay } from "~/utils/dates";

export function AdminUserEditor({
  user,
  posts,
  tiers,
  actionUrl,
  closeHref,
  formError,
  formMessage,
  posted,
}: {
  user: EditorUser;
  posts: EditorPost[];
  tiers: EditorTier[];
  actionUrl: string;
  closeHref: string;
  /** The refusal of a plain (no-JavaScript) post of this form. */
  formError?: string | null;
  /** What a plain post of a shop email's button did ("Ko-fi email removed."). */
  formMessage?: string | null;
  /** The rest of the form as that plain post sent it: drawn again, unsaved. */
  posted?: PostedEditorFields;
}) {
  const { draft, update, dirty } = useUserDraft(user, posted);
  const fetcher = useFetcher<AdminActionData>();
  const navigation = useNavigation();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const headingId = useId();
  const saveAnswer = useIntentAnswer(fetcher, null, "save-user", () => null);
  const error = saveAnswer?.error ?? formError ?? null;
  const pendingIntent = fetcher.state !== "idle" ? fetcher.formData?.get("intent") : null;
  const saving = pendingIntent === "save-user" || navigation.state === "submitting";
  const unlocking = pendingIntent === "unlock-objects";

  useEffect(() => {
    headingRef.current?.focus();
  }, [user._id]);

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

      {/* The save bar is the form's own column on wide screens (sticky there, over nothing
          else) and its last row on narrow ones: it never covers another control. */}
      <fetcher.Form method="post" action={actionUrl} className="admin-editor-form save-layout" preventScrollReset>
        {/* First submit button: Enter in any field saves. */}
        <button type="submit" name="intent" value="save-user" hidden tabIndex={-1} aria-hidden="true" />
        <input type="hidden" name="userId" value={user._id} />

        <div className="save-layout-main">
          <div className="admin-editor-grid">
            <AccountFieldset idPrefix={headingId} draft={draft} update={update} tiers={tiers} />
            <ShopEmailsFieldset idPrefix={headingId} saved={user.kofiEmails} draft={draft} update={update} />
          </div>

          <PostPicker posts={posts} selected={draft.unlocked_content} onChange={(ids) => update("unlocked_content", ids)} />

          {error ? (
            <p className="form-error" role="alert">
              {error}
            </p>
          ) : formMessage ? (
            <p className="form-success" role="status">
              {formMessage}
            </p>
          ) : null}
        </div>
        <div className="save-bar admin-editor-actions" data-testid="user-editor-save-bar">
          <button type="submit" className="button" name="intent" value="save-user" disabled={saving} aria-busy={saving || undefined}>
            {saving ? "Saving..." : "Save"}
          </button>
          <Link to={closeHref} className="button-secondary" preventScrollReset>
            Cancel
          </Link>
          {/* Recomputes the user's sync unlocks; the draft folds in what changed (useUserDraft). */}
          <button
            type="submit"
            className="button-secondary"
            name="intent"
            value="unlock-objects"
            formNoValidate
            disabled={unlocking}
            aria-busy={unlocking || undefined}
          >
            {unlocking ? "Unlocking..." : "Unlock objects"}
          </button>
          {dirty ? <span className="muted">Unsaved changes</span> : null}
        </div>
      </fetcher.Form>

      <CollapsibleSection title="Pledge history" count={user.pledge_history.length} empty="No pledges.">
        <DataTable
          label="Pledge history"
          rows={user.pledge_history}
          rowKey={(pledge) => pledge.pledgeId}
          columns={[
            { header: "Date", cell: (pledge) => formatDay(pledge.date) },
            { header: "Amount", cell: (pledge) => formatCents(pledge.amount_cents) },
            { header: "Tier", cell: (pledge) => pledge.tier_title ?? pledge.tier_id ?? "None" },
            { header: "Payment status", cell: (pledge) => pledge.payment_status ?? "Unknown" },
          ]}
        />
      </CollapsibleSection>

      <CollapsibleSection title="Downloads" count={user.downloads.length} empty="No downloads.">
        <DataTable
          label="Downloads"
          rows={user.downloads}
          rowKey={(download) => download._id}
          columns={[
            { header: "Date", cell: (download) => formatDay(download.date) },
            { header: "Post", cell: (download) => download.postTitle },
            { header: "Version", cell: (download) => download.version },
          ]}
        />
      </CollapsibleSection>
      <AccessCheckForm userId={user._id} posts={posts} />
    </section>
  );
}

/** Rows a history section shows before it starts folded. */
const OPEN_UP_TO = 5;

/**
 * A history table that folds: open while it is short, folded with its row count when long
 * (FoldingSection keeps what the admin opened across revalidations).
 */
function CollapsibleSection({ title, count, empty, children }: { title: string; count: number; empty: string; children: ReactNode }) {
  if (count === 0) {
    return (
      <section className="card-section">
        <h3>{title}</h3>
        <p className="muted">{empty}</p>
      </section>
    );
  }
  return (
    <FoldingSection title={title} heading="h3" hint={<span className="badge">{count}</span>} initiallyOpen={count <= OPEN_UP_TO}>
      {children}
    </FoldingSection>
  );
}
