// /account/delete: self-service account deletion after re-authentication — the password, or a
// code mailed to the account's address when it has no password (docs/product.md#deleting-an-account).
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AccountArea } from "~/components/account/account-tabs";
import { Field, SubmitButton } from "~/components/form";
import { accountPanelLinks } from "~/components/account/shop-email-panel";
import { DELETE_MESSAGES, deleteOwnAccount, sendDeletionCode } from "~/models/account-deletion.server";
import { destroyUserSession } from "~/models/session.server";
import { requireUser } from "~/session-guards.server";
import { redirectWithSuccess } from "~/toast.server";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { CHECKS_PASSWORD } from "~/request-policy.server";
import { parseForm, text } from "~/utils/form-fields";
import { z } from "zod";

// Checks a password: a bounded wait for a turn and an answer budget under load (server/admission.ts).
export function requestPolicy() {
  return CHECKS_PASSWORD;
}

export const links: LinksFunction = () => accountPanelLinks();

export const meta: MetaFunction = () => [{ title: "Delete my account · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  return data({ hasPassword: user.passwordHash !== null, email: user.email }, { headers: { "Cache-Control": "private, no-store" } });
}

type ActionData = { intent: "send-code" | "delete"; ok: boolean; message: string; fields: Record<string, string> };

/** The form's step (send a code, or delete) and what it proves. */
const deleteFormSchema = z.object({ intent: z.enum(["send-code", "delete"]).catch("delete"), password: text, code: text });

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readPageForm(request);
  // "Send a code" names itself; any other post deletes, with the password or the code mailed.
  const { intent, password, code } = parseForm(form, deleteFormSchema);
  try {
    if (intent === "send-code") {
      await sendDeletionCode(user.id);
      const sent: ActionData = { intent, ok: true, message: DELETE_MESSAGES.codeSent, fields: {} };
      return sent;
    }
    await deleteOwnAccount(user.id, { password, code });
  } catch (error) {
    const refusal = formRefusal(error, intent === "delete" ? DELETE_MESSAGES.failed : "Could not send the code.");
    return data<ActionData>({ intent, ok: false, message: refusal.message, fields: refusal.fields }, { status: refusal.status, headers: refusal.headers });
  }
  // Every session went with the account; this clears the browser's cookie too.
  return redirectWithSuccess("/", DELETE_MESSAGES.deleted, { headers: { "Set-Cookie": await destroyUserSession(request) } });
}

export default function DeleteAccountPage() {
  const { hasPassword, email } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const failed = result && !result.ok && result.intent === "delete" && Object.keys(result.fields).length === 0 ? result.message : null;
  return (
    <AccountArea current="delete">
      <section className="card account-panel" aria-labelledby="delete-title">
        <h1 id="delete-title">Delete my account</h1>
        <div className="account-danger-summary" data-testid="delete-summary">
          <p>
            <strong>This cannot be undone.</strong> It logs you out everywhere and removes:
          </p>
          <ul className="account-summary">
            <li>your email, name and sign-in providers;</li>
            <li>your shop emails, unlocks, download records, likes, feed link and mail choices.</li>
          </ul>
          <p>
            Your shop purchases and Patreon pledges stay in the creator&apos;s accounts with nothing that names you (see the{" "}
            <Link to="/infos#privacy">privacy page</Link>).
          </p>
        </div>
        <p>
          Want a copy first? <Link to="/account/export">Export my data</Link>.
        </p>
        {!hasPassword ? (
          <Form method="post" className="stack">
            <p>Your account has no password: we mail a code to {email ?? "your address"} to confirm it is you.</p>
            {result?.intent === "send-code" ? (
              <p className={result.ok ? "" : "form-error"} role={result.ok ? "status" : "alert"}>
                {result.message}
              </p>
            ) : null}
            <SubmitButton intent="send-code" className="button-secondary" pendingLabel="Sending...">
              Mail me a code
            </SubmitButton>
          </Form>
        ) : null}
        <Form method="post" className="stack" aria-label="Delete my account">
          {hasPassword ? (
            <Field label="Your password" name="password" type="password" autoComplete="current-password" required error={result?.fields.password} />
          ) : (
            <Field label="Code from the mail" name="code" inputMode="numeric" autoComplete="one-time-code" required error={result?.fields.code} />
          )}
          {failed ? (
            <p className="form-error" role="alert">
              {failed}
            </p>
          ) : null}
          <SubmitButton intent="delete" className="button-danger" pendingLabel="Deleting...">
            Delete my account
          </SubmitButton>
        </Form>
      </section>
    </AccountArea>
  );
}
