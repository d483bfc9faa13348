// /login for visitors: the login and sign-up tabs, each with the provider buttons and the email form.
import { Form, Link, useLocation } from "@remix-run/react";
import { FormError, useErrors, useSentEmail } from "~/components/account/form-errors";
import { Field, SubmitButton } from "~/components/form";
import { PASSWORD_RULE_HINT } from "~/utils/form-hints";
import { LoginKofibuyOverlay } from "~/components/account/kofibuy-overlay";
import { LoginProviderButtons } from "~/components/account/provider-buttons";

export function GuestView({ tab }: { tab: "login" | "signup" }) {
  const { hash } = useLocation();
  return (
    <div className="login-page">
      <h1 className="visually-hidden">Login</h1>
      <nav className="login-tabs" aria-label="Login or sign up">
        <Link to={`/login?tab=login${hash}`} className={tab === "login" ? "active" : undefined} aria-current={tab === "login" ? "page" : undefined}>
          Login
        </Link>
        <Link to={`/login?tab=signup${hash}`} className={tab === "signup" ? "active" : undefined} aria-current={tab === "signup" ? "page" : undefined}>
          Create My Account
        </Link>
      </nav>
      <section className="card login-card">{tab === "login" ? <LoginForm /> : <SignUpForm />}</section>
      <LoginKofibuyOverlay loggedIn={false} />
    </div>
  );
}

function LoginForm() {
  const errors = useErrors("login");
  const email = useSentEmail("login");
  return (
    <>
      <h2>Login</h2>
      <LoginProviderButtons />
      <p className="login-divider">or with your email</p>
      <Form method="post" action="/login" className="stack" aria-label="Login with email">
        <Field label="Email" name="email" type="email" autoComplete="email" required error={errors.email} defaultValue={email} />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required error={errors.password} />
        <FormError message={!errors.email && !errors.password ? errors.form : undefined} />
        <SubmitButton intent="login" pendingLabel="Logging in...">
          Login
        </SubmitButton>
      </Form>
      <p>
        <Link to="/forgot-password">Forgot My Password</Link>
      </p>
    </>
  );
}

function SignUpForm() {
  const errors = useErrors("signup");
  const email = useSentEmail("signup");
  return (
    <>
      <h2>Create My Account</h2>
      <p>
        With an account you can download everything your Patreon tier or your Ko-fi purchases unlock, see which posts were updated since your last download, and
        vote on inspirations.
      </p>
      <LoginProviderButtons />
      <p className="login-divider">or with your email</p>
      <Form method="post" action="/login?tab=signup" className="stack" aria-label="Create an account with email">
        <Field label="Email" name="email" type="email" autoComplete="email" required error={errors.email} defaultValue={email} />
        <Field label="Password" name="password" type="password" autoComplete="new-password" required error={errors.password} hint={PASSWORD_RULE_HINT} />
        <Field label="Confirm password" name="confirmPassword" type="password" autoComplete="new-password" required error={errors.confirmPassword} />
        <FormError message={!errors.email && !errors.password && !errors.confirmPassword ? errors.form : undefined} />
        <SubmitButton intent="signup" pendingLabel="Creating account...">
          Create My Account
        </SubmitButton>
      </Form>
    </>
  );
}
