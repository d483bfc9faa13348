// The account page's password cards: change it, or set a first one (provider accounts).
import { Form } from "@remix-run/react";
import { FormError, useErrors } from "~/components/account/form-errors";
import { Field, SubmitButton } from "~/components/form";
import { PASSWORD_RULE_HINT } from "~/utils/form-hints";

export function ChangePasswordForm() {
  const errors = useErrors("change-password");
  return (
    <section className="card" aria-labelledby="change-password-title">
      <h2 id="change-password-title">Change Your Password</h2>
      <Form method="post" action="/login" className="stack">
        <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" required error={errors.currentPassword} />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          error={errors.newPassword}
          hint={PASSWORD_RULE_HINT}
        />
        <Field label="Confirm new password" name="confirmPassword" type="password" autoComplete="new-password" required error={errors.confirmPassword} />
        <FormError message={!errors.currentPassword && !errors.newPassword && !errors.confirmPassword ? errors.form : undefined} />
        <SubmitButton intent="change-password" pendingLabel="Saving...">
          Change Password
        </SubmitButton>
      </Form>
    </section>
  );
}

export function SetPasswordForm() {
  const errors = useErrors("set-password");
  return (
    <section className="card" aria-labelledby="set-password-title">
      <h2 id="set-password-title">Set Your Password</h2>
      <p className="muted">Add a password to also log in with your email.</p>
      <Form method="post" action="/login" className="stack">
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          error={errors.newPassword}
          hint={PASSWORD_RULE_HINT}
        />
        <Field label="Confirm new password" name="confirmPassword" type="password" autoComplete="new-password" required error={errors.confirmPassword} />
        <FormError message={!errors.newPassword && !errors.confirmPassword ? errors.form : undefined} />
        <SubmitButton intent="set-password" pendingLabel="Saving...">
          Set Password
        </SubmitButton>
      </Form>
    </section>
  );
}
