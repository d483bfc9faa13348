// /forgot-password: step 1 mails a reset code, step 2 sets the new password, then /login.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { Field, SubmitButton } from "~/components/form";
import { PASSWORD_RESET_MESSAGE, requestPasswordReset, resetPassword } from "~/models/passwords.server";
import { redirectWithSuccess } from "~/toast.server";
import { forgotPasswordSchema, RESET_PASSWORD_RULE_HINT, resetPasswordSchema } from "~/utils/auth-schemas";
import { clientAddress } from "~/utils/client-address.server";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import stylesheet from "~/styles/login.css?url";
import { CHECKS_PASSWORD } from "~/request-policy.server";
import { fieldErrors, intentFormSchema, parseForm, readForm } from "~/utils/form-fields";

// Checks a password: a bounded wait for a turn and an answer budget under load (server/admission.ts).
export function requestPolicy() {
  return CHECKS_PASSWORD;
}

export const links: LinksFunction = () => [{ rel: "stylesheet", href: stylesheet }];

export const meta: MetaFunction = () => [{ title: "Forgot password · Creator Library" }];

export const headers = personalPageHeaders;

export function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const email = url.searchParams.get("email") ?? "";
  // The reset step names the address: never stored.
  return data(
    { step: url.searchParams.get("step") === "2" ? (2 as const) : (1 as const), email },
    email ? { headers: { "Cache-Control": "private, no-store" } } : undefined,
  );
}

type ActionResult = { intent: string; errors: Record<string, string> };

// Every refusal shows inline (the email field or the form's alert): data only, no toast as well.
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readPageForm(request);
  const { intent } = parseForm(form, intentFormSchema);
  const failure = intent === "reset" ? "Failed to reset password." : "Failed to send reset code. Please try again.";
  try {
    if (intent === "reset") {
      const parsed = readForm(form, resetPasswordSchema);
      if (!parsed.success) {
        const message = parsed.error.issues[0]!.message;
        return data<ActionResult>({ intent, errors: { form: message, ...fieldErrors(parsed.error) } }, { status: 400 });
      }
      await resetPassword({ ...parsed.data, client: clientAddress(request, context) });
      return redirectWithSuccess("/login", PASSWORD_RESET_MESSAGE);
    }
    const parsed = readForm(form, forgotPasswordSchema);
    if (!parsed.success) {
      const message = parsed.error.issues[0]!.message;
      return data<ActionResult>({ intent: "request", errors: { form: message, email: message } }, { status: 400 });
    }
    const message = await requestPasswordReset(parsed.data.email, clientAddress(request, context));
    return redirectWithSuccess(`/forgot-password?step=2&email=${encodeURIComponent(parsed.data.email)}`, message);
  } catch (error) {
    const refusal = formRefusal(error, failure);
    return data<ActionResult>({ intent, errors: { form: refusal.message } }, { status: refusal.status, headers: refusal.headers });
  }
}

export default function ForgotPasswordPage() {
  const { step, email } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const errors = result?.errors ?? {};
  return (
    <div className="login-page">
      <section className="card" aria-labelledby="forgot-title">
        <h1 id="forgot-title">{step === 1 ? "Forgot My Password" : "Reset Your Password"}</h1>
        {step === 1 ? (
          <>
            <p>Enter the email of your account and we will send you a code to reset your password.</p>
            <Form method="post" className="stack" noValidate>
              <Field label="Email" name="email" type="email" autoComplete="email" defaultValue={email} error={errors.email ?? errors.form} />
              <div className="button-row">
                <SubmitButton intent="request" pendingLabel="Sending...">
                  Send Reset Code
                </SubmitButton>
                <Link className="button-secondary" to="/login">
                  Back to Login
                </Link>
              </div>
            </Form>
          </>
        ) : (
          <>
            <p>Enter the code from the mail and your new password.</p>
            <Form method="post" className="stack" noValidate>
              <Field label="Email" name="email" type="email" autoComplete="email" defaultValue={email} error={errors.email} />
              <Field label="Reset code" name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} error={errors.code} />
              <Field
                label="New password"
                name="newPassword"
                type="password"
                autoComplete="new-password"
                error={errors.newPassword}
                hint={RESET_PASSWORD_RULE_HINT}
              />
              {errors.form && !errors.email && !errors.code && !errors.newPassword ? (
                <p className="form-error" role="alert">
                  {errors.form}
                </p>
              ) : null}
              <div className="button-row">
                <SubmitButton intent="reset" pendingLabel="Saving...">
                  Reset Password
                </SubmitButton>
                <Link className="button-secondary" to={`/forgot-password${email ? `?email=${encodeURIComponent(email)}` : ""}`}>
                  Back
                </Link>
              </div>
            </Form>
          </>
        )}
      </section>
    </div>
  );
}
