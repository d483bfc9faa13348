// /login: log in and sign up for guests; the account page for logged-in users (welcome view,
// admin mode, unverified views, passwords, shop-email and support-platform panels; the views are
// app/components/account/*). Every form is a plain POST that works without JavaScript; with it,
// Remix submits in place with pending states and the flash toasts.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { AccountView } from "~/components/account/account-view";
import type { AccountActionResult } from "~/components/account/form-errors";
import { GuestView } from "~/components/account/guest-view";
import { accountPanelLinks } from "~/components/account/shop-email-panel";
import { allowedCallback, setUsername, toggleAdmin, usernameStepMessage, verifiesByUsername } from "~/models/account.server";
import { cancelEmailVerification, ownEmail, resendVerification, verificationResendWait, verifyEmail } from "~/models/email-verification.server";
import { accountDiscordRoles } from "~/models/discord-roles.server";
import { DomainError } from "~/models/errors";
import { changePassword, formRequest, passwordAuthenticator, setPassword } from "~/models/passwords.server";
import { createUserSession, destroyUserSession, getCurrentUser, readSessionId, renewUserSession } from "~/models/session.server";
import { shopEmailPanelData } from "~/models/shop-email.server";
import { listTiers } from "~/models/tier.server";
import { getUserWithShopEmails, toUserData } from "~/models/user.server";
import { requireFormUser } from "~/session-guards.server";
import { dataWithError, redirectWithError, redirectWithSuccess } from "~/toast.server";
import { changePasswordFormSchema, setPasswordFormSchema, usernameSchema, verifyEmailFormSchema } from "~/utils/auth-schemas";
import { parseForm, text } from "~/utils/form-fields";
import { z } from "zod";
import { clientAddress } from "~/utils/client-address.server";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { withQueryParam } from "~/utils/url";
import stylesheet from "~/styles/login.css?url";
import { CHECKS_PASSWORD } from "~/request-policy.server";
import { errorFields, log } from "~/logger.server";

// Checks a password: a bounded wait for a turn and an answer budget under load (server/admission.ts).
export function requestPolicy() {
  return CHECKS_PASSWORD;
}

export const links: LinksFunction = () => [{ rel: "stylesheet", href: stylesheet }, ...accountPanelLinks()];

/** The tab's title says what the page is: the way in for guests, the account's settings once signed in. */
export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title:
      data?.view === "account"
        ? "Account settings · Creator Library"
        : data?.view === "guest" && data.tab === "signup"
          ? "Create My Account · Creator Library"
          : "Login · Creator Library",
  },
];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const current = await getCurrentUser(request);

  // /login?callback=URL hands userData (or an error text) to an allow-listed origin only.
  const callback = url.searchParams.get("callback");
  if (callback !== null) {
    const target = allowedCallback(callback);
    if (!target) {
      return data(
        { view: "callback-refused" as const, message: "This callback address is not allowed. Sign-in data is only sent to the sites configured for it." },
        { status: 400 },
      );
    }
    let location: string;
    try {
      const user = current ? await getUserWithShopEmails(current.id) : null;
      location = user ? withQueryParam(target, "userData", JSON.stringify(toUserData(user))) : withQueryParam(target, "error", "Not authenticated");
    } catch (error) {
      log().warn(errorFields(error), "callback user lookup failed");
      location = withQueryParam(target, "error", "Authentication failed");
    }
    return redirect(location, { headers: { "Cache-Control": "no-store" } });
  }

  const tab = url.searchParams.get("tab") === "signup" ? ("signup" as const) : ("login" as const);
  if (!current) return { view: "guest" as const, tab };
  const [user, tiers, resendWait, shopEmails, discord] = await Promise.all([
    getUserWithShopEmails(current.id),
    listTiers(),
    verificationResendWait(current),
    shopEmailPanelData(current.id),
    accountDiscordRoles(current),
  ]);
  if (!user) return { view: "guest" as const, tab };
  // The account view shows the email and linked accounts: never stored.
  return data(
    {
      view: "account" as const,
      user: { ...toUserData(user), providerAccount: verifiesByUsername(user) },
      tiers: tiers.map((tier) => ({ tierId: tier.tierId, title: tier.title })),
      resendWait,
      shopEmailResendWait: shopEmails.pending?.resendInSeconds ?? 0,
      loadedAt: Date.now(),
      discordRoles: discord.enabled && discord.linked ? discord.roles.map((role) => ({ roleName: role.roleName, sentence: role.sentence })) : null,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

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

/** The intents whose form shows a refusal inline (errors.form or a field error). */
const INLINE_ERRORS = new Set(["login", "signup", "set-username", "verify-email", "resend", "cancel", "change-password", "set-password"]);

/** Which form was posted, and the email a refused login or sign-up keeps (never a password). */
const loginPageFormSchema = z.object({ intent: text, email: text.transform((email) => email.slice(0, 320)) });

export async function action({ request, context }: ActionFunctionArgs) {
  const client = clientAddress(request, context);
  // Read once: the login and sign-up strategies get this same form (`formRequest`).
  const form = await readPageForm(request);
  const posted = parseForm(form, loginPageFormSchema);
  const { intent } = posted;
  try {
    return await runIntent(intent, form, request, client);
  } catch (error) {
    if (error instanceof Response) return error;
    const refusal = formRefusal(error, FAILURES[intent] ?? "Something went wrong.");
    if (intent === "logout") return redirectWithError("/login", "Logout failed.");
    // A refused login or sign-up keeps the typed email (never a password), also without JavaScript.
    const email = intent === "login" || intent === "signup" ? posted.email : undefined;
    const body: AccountActionResult = { intent, errors: { form: refusal.message, ...refusal.fields }, email };
    const init = { status: refusal.status, headers: refusal.headers };
    // Every form but Enable Admin shows its refusal inline: answered once, there, not toasted too.
    if (INLINE_ERRORS.has(intent)) return data<AccountActionResult>(body, init);
    return dataWithError<AccountActionResult>(body, refusal.message, init);
  }
}

async function runIntent(intent: string, form: FormData, request: Request, client: string | null): Promise<Response> {
  switch (intent) {
    case "login":
    case "signup": {
      const user = await passwordAuthenticator(client).authenticate(intent, formRequest(request.url, form));
      const message = intent === "login" ? "Logged in successfully." : "Account created and logged in successfully.";
      return redirectWithSuccess("/login", message, { headers: { "Set-Cookie": await createUserSession(user.id) } });
    }
    case "logout":
      return redirectWithSuccess("/login", "Logged out successfully.", { headers: { "Set-Cookie": await destroyUserSession(request) } });
    case "toggle-admin": {
      await toggleAdmin(await requireFormUser(request));
      return redirectWithSuccess("/login", "Admin status updated.");
    }
    case "set-username": {
      const user = await requireFormUser(request);
      const { username } = parseForm(form, usernameSchema);
      const updated = await setUsername(user, username);
      return redirectWithSuccess("/login", usernameStepMessage(updated));
    }
    case "verify-email": {
      const user = await requireFormUser(request);
      const input = parseForm(form, verifyEmailFormSchema);
      await verifyEmail({ email: ownEmail(user), code: input.code, username: input.username, client });
      // The proof ends every session of the account; this browser goes on in a fresh one.
      return redirectWithSuccess("/login", "Email verified and username set successfully.", {
        headers: { "Set-Cookie": await renewUserSession(request, user.id) },
      });
    }
    case "resend": {
      const user = await requireFormUser(request);
      await resendVerification(ownEmail(user), client);
      return redirectWithSuccess("/login", "Verification code resent to your email.");
    }
    case "cancel": {
      const user = await requireFormUser(request);
      await cancelEmailVerification(user);
      return redirectWithSuccess("/login", "Verification cancelled.", { headers: { "Set-Cookie": await destroyUserSession(request) } });
    }
    case "change-password": {
      const user = await requireFormUser(request);
      const input = parseForm(form, changePasswordFormSchema);
      await changePassword(user, input, await readSessionId(request));
      return redirectWithSuccess("/login", "Password changed successfully.");
    }
    case "set-password": {
      const user = await requireFormUser(request);
      const input = parseForm(form, setPasswordFormSchema);
      await setPassword(user, input.newPassword);
      return redirectWithSuccess("/login", "Password set successfully.");
    }
    default:
      throw new DomainError(400, "Unknown action.");
  }
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
