// /auth/callback: the end of a provider sign-in. Exchanges the one-time `code` for a session
// (POST /api/auth/callback), then goes to /login; on failure shows the error, and for blocked
// cookies (403) the cookie-help modal. Without JavaScript a button posts the same exchange.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { SubmitButton } from "~/components/form";
import { Modal } from "~/components/modal";
import { exchangeProviderLoginCode } from "~/provider-sign-in.server";
import { redirectWithSuccess } from "~/toast.server";
import { callbackErrorMessage } from "~/utils/auth-callback-errors";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import stylesheet from "~/styles/login.css?url";
import { readForm } from "~/utils/form-fields";
import { providerLoginCodeSchema } from "~/utils/auth-schemas";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: stylesheet }];

export const meta: MetaFunction = () => [{ title: "Signing in · Creator Library" }];

export const headers = personalPageHeaders;

const NO_CODE = "No authorization code found. Please try logging in again.";
const NO_RESPONSE = "No response from the server. Please check your network connection and try again.";
const COOKIE_HELP = "Your browser blocked the sign-in cookie. Cookies may be blocked by your browser settings or by an extension (ad or privacy blockers).";

export function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const code = url.searchParams.get("code");
  // Only our own words: a crafted ?error= shows the generic failure, never its text. A page
  // holding a sign-in code is never stored.
  return data({ code, error: callbackErrorMessage(url.searchParams.get("error")) }, code ? { headers: { "Cache-Control": "private, no-store" } } : undefined);
}

type Failure = { status: number; error: string };

/** The no-JavaScript path: the same exchange as POST /api/auth/callback. */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readPageForm(request);
  const parsed = readForm(form, providerLoginCodeSchema);
  if (!parsed.success) return data<Failure>({ status: 400, error: parsed.error.issues[0]!.message }, { status: 400 });
  try {
    const headers = await exchangeProviderLoginCode(request, context, parsed.data.code);
    return redirectWithSuccess("/login", "Logged in successfully.", { headers });
  } catch (error) {
    const refusal = formRefusal(error, "Authentication failed.");
    return data<Failure>({ status: refusal.status, error: refusal.message }, { status: refusal.status, headers: refusal.headers });
  }
}

function failureText(failure: Failure): string {
  return failure.status === 403 ? COOKIE_HELP : `Authentication failed: ${failure.error}`;
}

export default function AuthCallbackPage() {
  const { code, error } = useLoaderData<typeof loader>();
  const posted = useActionData<typeof action>();
  const [failure, setFailure] = useState<Failure | null>(posted ?? (error ? { status: 400, error } : null));
  const [working, setWorking] = useState(false);
  const [helpOpen, setHelpOpen] = useState(posted?.status === 403);
  const started = useRef(false);

  useEffect(() => {
    if (posted) {
      setFailure(posted);
      setHelpOpen(posted.status === 403);
    }
  }, [posted]);

  useEffect(() => {
    if (!code || error || started.current) return;
    started.current = true;
    setWorking(true);
    fetch("/api/auth/callback", {
      method: "POST",
      credentials: "include",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code }),
    })
      .then(async (response) => {
        if (response.ok) {
          // A full load, so the navigation and every loader see the new session.
          window.location.assign("/login");
          return;
        }
        const body = (await response.json().catch(() => ({}))) as { error?: string };
        setFailure({ status: response.status, error: body.error ?? response.statusText });
        setHelpOpen(response.status === 403);
        setWorking(false);
      })
      .catch(() => {
        setFailure({ status: 0, error: NO_RESPONSE });
        setWorking(false);
      });
  }, [code, error]);

  return (
    <div className="login-page">
      <section className="card" aria-labelledby="callback-title" aria-busy={working || undefined}>
        <h1 id="callback-title">Signing you in</h1>
        {!code && !error ? (
          <p className="form-error" role="alert">
            {NO_CODE}
          </p>
        ) : failure ? (
          <>
            <p className="form-error" role="alert">
              {failure.status === 0 ? failure.error : failureText(failure)}
            </p>
            {failure.status === 403 ? (
              <button type="button" className="button-secondary" onClick={() => setHelpOpen(true)}>
                How do I allow cookies?
              </button>
            ) : null}
          </>
        ) : (
          <>
            <p role="status">Please wait while we finish signing you in...</p>
            <noscript>
              <p>Press Continue to finish signing in.</p>
              <Form method="post">
                <input type="hidden" name="code" value={code ?? ""} />
                <SubmitButton>Continue</SubmitButton>
              </Form>
            </noscript>
          </>
        )}
        <p>
          <Link to="/login">Back to Login</Link>
        </p>
      </section>
      {helpOpen ? (
        <Modal title="Allow cookies to sign in" onClose={() => setHelpOpen(false)} testId="cookie-help">
          <p>Signing in needs a cookie from this site. To allow it:</p>
          <ul>
            <li>In your browser settings, allow cookies for this site (or stop blocking all cookies).</li>
            <li>Turn off ad blockers or privacy extensions for this site, or add it to their allow list.</li>
            <li>Do not use a private window that blocks cookies, then try again.</li>
          </ul>
          <div className="button-row">
            <Link className="button" to="/login">
              Try again
            </Link>
            <button type="button" className="button-secondary" onClick={() => setHelpOpen(false)}>
              Close
            </button>
          </div>
        </Modal>
      ) : null}
    </div>
  );
}
