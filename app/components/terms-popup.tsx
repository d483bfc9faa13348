// The terms popup shown before a download (docs/product.md): rendered on the server for a page
// without JavaScript (its form posts to the library's action), drawn in place with JavaScript. The
// library loads this module when the popup is first shown (on-demand.tsx); the post's page with
// the page.
import { Link } from "@remix-run/react";
import { Modal } from "~/components/modal";

export type TermsPopupProps = {
  postId: string;
  /** The version's file asked for (a variant, add-on or translation); null: the main file. */
  fileId?: string | null;
  back: string;
  guest: boolean;
  onAccept?: () => void;
  onCancel?: () => void;
};

export function TermsPopup({ postId, fileId = null, back, guest, onAccept, onCancel }: TermsPopupProps) {
  const cancelHref = back;
  return (
    <Modal title="Terms of Service" onClose={onCancel} testId="terms-modal">
      <p>
        Before downloading, please read and accept the <Link to="/infos#tos">Permissions &amp; Terms of Service</Link> (23 December 2024).
      </p>
      {guest ? <p className="muted">As a guest, your acceptance is remembered only for this visit.</p> : null}
      <form
        method="post"
        action="/library"
        onSubmit={(event) => {
          if (!onAccept) return;
          event.preventDefault();
          onAccept();
        }}
      >
        <input type="hidden" name="intent" value="download" />
        <input type="hidden" name="postId" value={postId} />
        {fileId ? <input type="hidden" name="fileId" value={fileId} /> : null}
        <input type="hidden" name="acceptTos" value="true" />
        <input type="hidden" name="back" value={back} />
        <div className="button-row">
          <button type="submit" className="button">
            I Accept
          </button>
          {onCancel ? (
            <button type="button" className="button-secondary" onClick={onCancel}>
              Cancel
            </button>
          ) : (
            <a className="button-secondary" href={cancelHref}>
              Cancel
            </a>
          )}
        </div>
      </form>
    </Modal>
  );
}
