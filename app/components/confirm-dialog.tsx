import { Form, Link, useNavigate } from "@remix-run/react";
import { SubmitButton } from "~/components/form";
import { Modal } from "~/components/modal";

/**
 * "Are you sure?" for a destructive admin action, reached by a link (`?delete=…`) so it works
 * without JavaScript: the question, a danger button that posts `intent` (and `hidden` fields) to
 * `action`, and Cancel back to `cancelTo`. Escape and the close button go back too.
 */
export function ConfirmDialog({
  title,
  testId,
  action,
  cancelTo,
  intent,
  confirmLabel,
  pendingLabel,
  hidden = {},
  children,
}: {
  title: string;
  testId: string;
  action: string;
  cancelTo: string;
  intent: string;
  confirmLabel: string;
  pendingLabel: string;
  hidden?: Record<string, string>;
  children: React.ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <Modal title={title} onClose={() => navigate(cancelTo, { replace: true })} testId={testId}>
      {children}
      <Form method="post" action={action} replace>
        {Object.entries(hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <div className="button-row">
          <SubmitButton intent={intent} className="button-danger" pendingLabel={pendingLabel}>
            {confirmLabel}
          </SubmitButton>
          <Link to={cancelTo} className="button-secondary" replace>
            Cancel
          </Link>
        </div>
      </Form>
    </Modal>
  );
}
