// The account page before the account is verified: provider accounts choose a username, email
// accounts enter the mailed code with it.
import { Form } from "@remix-run/react";
import { AccountResendButton } from "~/components/account/resend-button";
import { FormError, useErrors } from "~/components/account/form-errors";
import { LogoutSubmit } from "~/components/account/logout";
import { EmailText } from "~/components/email-text";
import { Field, SubmitButton } from "~/components/form";

export function ProviderWelcome() {
  const errors = useErrors("set-username");
  return (
    <section className="card" aria-labelledby="welcome-title">
      <h1 id="welcome-title">Welcome</h1>
      <p>Choose the username shown on your account to finish signing up.</p>
      <Form method="post" action="/login" className="stack">
        <Field label="Username" name="username" autoComplete="nickname" required error={errors.username ?? errors.form} />
        <div className="action-row">
          <SubmitButton intent="set-username" pendingLabel="Saving...">
            Set My Username
          </SubmitButton>
          <LogoutSubmit />
        </div>
      </Form>
    </section>
  );
}

export function EmailVerification({ email, resendWait, loadedAt }: { email: string; resendWait: number; loadedAt: number }) {
  const errors = useErrors("verify-email");
  const resendErrors = useErrors("resend");
  const cancelErrors = useErrors("cancel");
  return (
    <section className="card" aria-labelledby="verify-title">
      <h1 id="verify-title">Verify your email</h1>
      <p>
        We sent a 6-digit code to{" "}
        <strong>
          <EmailText email={email} />
        </strong>
        . Enter it with the username you want, to finish creating your account.
      </p>
      <Form method="post" action="/login" className="stack">
        <Field label="Username" name="username" autoComplete="nickname" required error={errors.username} />
        <Field
          label="Verification code"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          error={errors.code}
        />
        <FormError message={!errors.username && !errors.code ? (errors.form ?? resendErrors.form ?? cancelErrors.form) : undefined} />
        {/* Every action of the card in one row; Logout posts this form too (its intent decides). */}
        <div className="action-row">
          <SubmitButton intent="verify-email" pendingLabel="Verifying...">
            Verify my mail and set my username
          </SubmitButton>
          <AccountResendButton key={loadedAt} seconds={resendWait} />
          <SubmitButton intent="cancel" className="button-danger" pendingLabel="Cancelling..." formNoValidate>
            Cancel Verification
          </SubmitButton>
          <LogoutSubmit />
        </div>
      </Form>
    </section>
  );
}
