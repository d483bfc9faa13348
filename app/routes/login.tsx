// /login: log in and sign up for guests; the account page for logged-in users (welcome view,
// admin mode, unverified views, passwords, shop-email and support-platform panels). Every form
// is a plain POST that works without JavaScript; with it, Remix submits in place with pending
// states and the flash toasts.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import type { ZodType, ZodTypeDef } from "zod";
import { AccountLibraryPanel } from "~/components/account-library-panel";
import { AccountResendButton } from "~/components/account-resend-button";
import { EmailText } from "~/components/email-text";
import { Field, SubmitButton } from "~/components/form";
import { LoginKofibuyOverlay } from "~/components/login-kofibuy-overlay";
import { LoginProviderButtons } from "~/components/login-provider-buttons";
import { accountPanelLinks, ShopEmailPanel } from "~/components/shop-email-panel";
import { SupportPlatformPanel } from "~/components/support-platform-panel";
import type { User } from "~/generated/prisma/client";
import {
  AccountError,
  allowedCallback,
  cancelEmailVerification,
  changePassword,
  clientAddress,
  passwordAuthenticator,
  refusalMessage,
  refusalStatus,
  resendVerification,
  setPassword,
  setUsername,
  toggleAdmin,
  verificationResendWait,
  verifiesByUsername,
  verifyEmail,
} from "~/models/auth.server";
import { createUserSession, destroyUserSession, getCurrentUser, readSessionId } from "~/models/session.server";
import { shopEmailPanelData } from "~/models/shop-email.server";
import { listTiers } from "~/models/tier.server";
import { getUserWithShopEmails, toUserData } from "~/models/user.server";
import { jsonWithError, redirectWithError, redirectWithSuccess } from "~/toast.server";
import { changePasswordFormSchema, fieldErrors, setPasswordFormSchema, usernameSchema, verifyEmailFormSchema } from "~/utils/auth-schemas";
import { withQueryParam } from "~/utils/url";
import stylesheet from "~/styles/login.css";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: stylesheet }, ...accountPanelLinks()];

export const meta: MetaFunction = () => [{ title: "Login · Creator Library" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const current = await getCurrentUser(request);

  // /login?callback=URL hands userData (or an error text) to an allow-listed origin only.
  const callback = url.searchParams.get("callback");
  if (callback !== null) {
    const target = allowedCallback(callback);
    if (!target) {
      return json({ view: "callback-refused" as const, message: "This callback address is not allowed. Sign-in data is only sent to the sites configured for it." }, { status: 400 });
    }
    let location: string;
    try {
      const user = current ? await getUserWithShopEmails(current.id) : null;
      location = user ? withQueryParam(target, "userData", JSON.stringify(toUserData(user))) : withQueryParam(target, "error", "Not authenticated");
    } catch (error) {
      console.warn("callback user lookup failed", error);
      location = withQueryParam(target, "error", "Authentication failed");
    }
    return redirect(location, { headers: { "Cache-Control": "no-store" } });
  }

  const tab = url.searchParams.get("tab") === "signup" ? ("signup" as const) : ("login" as const);
  if (!current) return json({ view: "guest" as const, tab });
  const [user, tiers, resendWait, shopEmails] = await Promise.all([
    getUserWithShopEmails(current.id),
    listTiers(),
    verificationResendWait(current),
    shopEmailPanelData(current.id),
  ]);
  if (!user) return json({ view: "guest" as const, tab });
  const providerAccount = verifiesByUsername(user);
  return json({
    view: "account" as const,
    user: { ...toUserData(user), providerAccount },
    tiers: tiers.map((tier) => ({ tierId: tier.tierId, title: tier.title })),
    resendWait,
    shopEmailResendWait: shopEmails.pending?.resendInSeconds ?? 0,
    // Changes on every load so the countdown restarts after a resend.
    loadedAt: Date.now(),
  });
}

type ActionResult = { intent: string; errors: Record<string, string>; email?: string };

const FAILURES: Record<string, string> = {
  login: "Failed to log in.",
  signup: "Failed to sign up.",
  logout: "Logout failed.",
  "toggle-admin": "Failed to toggle admin status.",
  "set-username": "Failed to set username.",
  "verify-email": "Failed to verify email.",
  resend: "Failed to resend verification code.",
  cancel: "Failed to verify email.",
  "change-password": "Failed to change password.",
  "set-password": "Failed to set password.",
};

function parseForm<T>(schema: ZodType<T, ZodTypeDef, unknown>, values: Record<string, FormDataEntryValue | null>): T {
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw new AccountError(400, parsed.error.issues[0]!.message, fieldErrors(parsed.error));
  return parsed.data;
}

async function requireFormUser(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  // redirectWithError returns a promise: throw the Response itself, not the promise.
  if (!user) throw await redirectWithError("/login", "Not authenticated");
  return user;
}

export async function action({ request, context }: ActionFunctionArgs) {
  // The connection's address, remembered for the form strategies' per-address limits.
  clientAddress(request, context);
  // remix-auth-form reads the body itself: look at a copy to route the intent.
  const form = await request.clone().formData();
  const intent = String(form.get("intent") ?? "");
  try {
    return await runIntent(intent, form, request);
  } catch (error) {
    if (error instanceof Response) return error;
    const message = refusalMessage(error);
    if (!message) console.error(FAILURES[intent] ?? "login action failed", error);
    if (intent === "logout") return redirectWithError("/login", "Logout failed.");
    const fields = error instanceof AccountError ? error.fields : {};
    const status = refusalStatus(error);
    const shown = message ?? FAILURES[intent] ?? "Something went wrong.";
    // A refused login or sign-up keeps the typed email (never a password), also without JavaScript.
    const email = intent === "login" || intent === "signup" ? String(form.get("email") ?? "").slice(0, 320) : undefined;
    return jsonWithError<ActionResult>({ intent, errors: { form: shown, ...fields }, email }, shown, { status });
  }
}

async function runIntent(intent: string, form: FormData, request: Request): Promise<Response> {
  switch (intent) {
    case "login": {
      const user = await passwordAuthenticator.authenticate("login", request);
      return redirectWithSuccess("/login", "Logged in successfully.", { headers: { "Set-Cookie": await createUserSession(user.id) } });
    }
    case "signup": {
      const user = await passwordAuthenticator.authenticate("signup", request);
      return redirectWithSuccess("/login", "Account created and logged in successfully.", { headers: { "Set-Cookie": await createUserSession(user.id) } });
    }
    case "logout":
      return redirectWithSuccess("/login", "Logged out successfully.", { headers: { "Set-Cookie": await destroyUserSession(request) } });
    case "toggle-admin": {
      await toggleAdmin(await requireFormUser(request));
      return redirectWithSuccess("/login", "Admin status updated.");
    }
    case "set-username": {
      const user = await requireFormUser(request);
      const { username } = parseForm(usernameSchema, { username: form.get("username") });
      await setUsername(user, username);
      return redirectWithSuccess("/login", "Username set successfully! Your account is now verified.");
    }
    case "verify-email": {
      const user = await requireFormUser(request);
      const input = parseForm(verifyEmailFormSchema, { username: form.get("username"), code: form.get("code") });
      if (!user.email) throw new AccountError(400, "Your account has no email address.");
      await verifyEmail({ email: user.email, code: input.code, username: input.username, client: clientAddress(request) });
      return redirectWithSuccess("/login", "Email verified and username set successfully.");
    }
    case "resend": {
      const user = await requireFormUser(request);
      if (!user.email) throw new AccountError(400, "Your account has no email address.");
      await resendVerification(user.email, clientAddress(request));
      return redirectWithSuccess("/login", "Verification code resent to your email.");
    }
    case "cancel": {
      const user = await requireFormUser(request);
      await cancelEmailVerification(user);
      return redirectWithSuccess("/login", "Verification cancelled.", { headers: { "Set-Cookie": await destroyUserSession(request) } });
    }
    case "change-password": {
      const user = await requireFormUser(request);
      const input = parseForm(changePasswordFormSchema, Object.fromEntries(["currentPassword", "newPassword", "confirmPassword"].map((key) => [key, form.get(key)])));
      await changePassword(user, input, await readSessionId(request));
      return redirectWithSuccess("/login", "Password changed successfully.");
    }
    case "set-password": {
      const user = await requireFormUser(request);
      const input = parseForm(setPasswordFormSchema, { newPassword: form.get("newPassword"), confirmPassword: form.get("confirmPassword") });
      await setPassword(user, input.newPassword);
      return redirectWithSuccess("/login", "Password set successfully.");
    }
    default:
      throw new AccountError(400, "Unknown action.");
  }
}

// ---------------------------------------------------------------- views

function useErrors(intent: string): Record<string, string> {
  const data = useActionData<typeof action>() as ActionResult | undefined;
  return data && data.intent === intent ? data.errors : {};
}

/** The email a refused login or sign-up sent, to put back in its field. */
function useSentEmail(intent: string): string | undefined {
  const data = useActionData<typeof action>() as ActionResult | undefined;
  return data && data.intent === intent ? data.email : undefined;
}

function FormError({ message }: { message?: string }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

export default function LoginPage() {
  const data = useLoaderData<typeof loader>();
  if (data.view === "callback-refused") {
    return (
      <div className="login-page">
        <section className="card">
          <h1>Login</h1>
          <p className="form-error" role="alert">
            {data.message}
          </p>
          <Link to="/login">Go to the login page</Link>
        </section>
      </div>
    );
  }
  if (data.view === "guest") return <GuestView tab={data.tab} />;
  return <AccountView {...data} />;
}

function GuestView({ tab }: { tab: "login" | "signup" }) {
  const location = useLocation();
  const hash = location.hash;
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
        With an account you can download everything your Patreon tier or your Ko-fi purchases unlock, see which posts were updated
        since your last download, and vote on inspirations.
      </p>
      <LoginProviderButtons />
      <p className="login-divider">or with your email</p>
      <Form method="post" action="/login?tab=signup" className="stack" aria-label="Create an account with email">
        <Field label="Email" name="email" type="email" autoComplete="email" required error={errors.email} defaultValue={email} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          error={errors.password}
          aria-description="At least 8 characters and 1 uppercase."
        />
        <Field label="Confirm password" name="confirmPassword" type="password" autoComplete="new-password" required error={errors.confirmPassword} />
        <FormError message={!errors.email && !errors.password && !errors.confirmPassword ? errors.form : undefined} />
        <SubmitButton intent="signup" pendingLabel="Creating account...">
          Create My Account
        </SubmitButton>
      </Form>
    </>
  );
}

type AccountData = Extract<ReturnType<typeof useLoaderData<typeof loader>>, { view: "account" }>;

function LogoutSubmit() {
  return (
    <SubmitButton intent="logout" className="button-secondary" pendingLabel="Logging out..." formNoValidate>
      Logout
    </SubmitButton>
  );
}

function LogoutButton() {
  return (
    <Form method="post" action="/login">
      <LogoutSubmit />
    </Form>
  );
}

function AccountView({ user, tiers, resendWait, shopEmailResendWait, loadedAt }: AccountData) {
  if (!user.mailVerified) {
    return (
      <div className="login-page">
        {user.providerAccount ? <ProviderWelcome /> : <EmailVerification email={user.email ?? ""} resendWait={resendWait} loadedAt={loadedAt} />}
        <LoginKofibuyOverlay loggedIn />
      </div>
    );
  }
  return (
    <div className="login-page account-page">
      <section className="card" aria-labelledby="welcome-title">
        <h1 id="welcome-title">Welcome{user.fullName ? `, ${user.fullName}` : ""}!</h1>
        <dl className="account-facts">
          <dt>Email</dt>
          <dd>{user.email ? <EmailText email={user.email} /> : "None"}</dd>
          <dt>Full Name</dt>
          <dd>{user.fullName ?? "None"}</dd>
          <dt>Is Admin</dt>
          <dd>{user.isAdmin ? "Yes" : "No"}</dd>
        </dl>
        <div className="button-row">
          {user.isAdmin && user.canBeAdmin ? (
            <Form method="post" action="/login">
              <SubmitButton intent="toggle-admin" className="button-secondary" pendingLabel="Saving...">
                Disable Admin
              </SubmitButton>
            </Form>
          ) : null}
          {user.isAdmin ? (
            <Link className="button" to="/admin">
              To Admin Page
            </Link>
          ) : null}
          {user.canBeAdmin && !user.isAdmin ? (
            <Form method="post" action="/login">
              <SubmitButton intent="toggle-admin" className="button-secondary" pendingLabel="Saving...">
                Enable Admin
              </SubmitButton>
            </Form>
          ) : null}
          <LogoutButton />
        </div>
      </section>
      {/* Anchor of the thank-you overlay's "Link Account". */}
      <div id="shop-email" tabIndex={-1}>
        <ShopEmailPanel user={user} resendInSeconds={shopEmailResendWait} />
      </div>
      <SupportPlatformPanel user={user} tiers={tiers} />
      {user.hasPassword ? <ChangePasswordForm /> : <SetPasswordForm />}
      <AccountLibraryPanel />
      <LoginKofibuyOverlay loggedIn />
    </div>
  );
}

function ProviderWelcome() {
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

function EmailVerification({ email, resendWait, loadedAt }: { email: string; resendWait: number; loadedAt: number }) {
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
        <Field label="Verification code" name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required error={errors.code} />
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

function ChangePasswordForm() {
  const errors = useErrors("change-password");
  return (
    <section className="card" aria-labelledby="change-password-title">
      <h2 id="change-password-title">Change Your Password</h2>
      <Form method="post" action="/login" className="stack">
        <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" required error={errors.currentPassword} />
        <Field label="New password" name="newPassword" type="password" autoComplete="new-password" required error={errors.newPassword} />
        <Field label="Confirm new password" name="confirmPassword" type="password" autoComplete="new-password" required error={errors.confirmPassword} />
        <FormError message={!errors.currentPassword && !errors.newPassword && !errors.confirmPassword ? errors.form : undefined} />
        <SubmitButton intent="change-password" pendingLabel="Saving...">
          Change Password
        </SubmitButton>
      </Form>
    </section>
  );
}

function SetPasswordForm() {
  const errors = useErrors("set-password");
  return (
    <section className="card" aria-labelledby="set-password-title">
      <h2 id="set-password-title">Set Your Password</h2>
      <p className="muted">Add a password to also log in with your email.</p>
      <Form method="post" action="/login" className="stack">
        <Field label="New password" name="newPassword" type="password" autoComplete="new-password" required error={errors.newPassword} />
        <Field label="Confirm new password" name="confirmPassword" type="password" autoComplete="new-password" required error={errors.confirmPassword} />
        <FormError message={!errors.newPassword && !errors.confirmPassword ? errors.form : undefined} />
        <SubmitButton intent="set-password" pendingLabel="Saving...">
          Set Password
        </SubmitButton>
      </Form>
    </section>
  );
}
