// The HTTP side of a provider sign-in: the redirect to the provider, its redirect back, and the
// hop to /auth/callback with a one-time login code bound to this browser by a cookie. Redirects
// and cookies are HTTP, so this lives beside the routes; the rules are in the models
// (provider-account.server.ts, login-code.server.ts).
import { redirect } from "@remix-run/node";
import type { User } from "~/generated/prisma/client";
import { providerAuthenticator, providerFailureCode, type ProviderName, type ProviderProfile } from "~/integrations/oauth.server";
import { MINUTE } from "~/models/account.server";
import { isDomainError } from "~/models/errors";
import { createLoginCode, exchangeLoginCode, redeemLoginCode } from "~/models/login-code.server";
import { PROVIDER_LABELS, signInWithProvider } from "~/models/provider-account.server";
import { enforceAddressLimit } from "~/models/rate-limit.server";
import { createUserSession, getCurrentUser } from "~/models/session.server";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import { clearCookie, loginCodeCookie, readCookieValue } from "~/utils/auth-cookies.server";
import { isCallbackErrorCode, type CallbackErrorCode } from "~/utils/auth-callback-errors";
import { clientAddress } from "~/utils/client-address.server";
import { errorFields, log } from "~/logger.server";

/** GET /api/auth/login, /api/google/auth, /api/discord/auth: a full-page redirect to the provider. */
export async function startProviderSignIn(provider: ProviderName, request: Request): Promise<Response> {
  const authenticator = providerAuthenticator(provider);
  if (!authenticator) return redirectWithError("/login", `Sign-in with ${PROVIDER_LABELS[provider]} is not configured.`);
  // Without query parameters, so a stray `state` cannot turn this into a callback.
  const url = new URL(request.url);
  const clean = new Request(`${url.origin}${url.pathname}`, { headers: request.headers });
  try {
    await authenticator.authenticate(provider, clean);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
  return redirect("/login");
}

function callbackError(code: CallbackErrorCode): Response {
  return redirect(`/auth/callback?error=${code}`);
}

/** A model's refusal of the sign-in (a limit, a refused link) as its callback code; null for a bug. */
function refusalCode(error: unknown): CallbackErrorCode | null {
  if (!isDomainError(error)) return null;
  return isCallbackErrorCode(error.code) ? error.code : "failed";
}

/**
 * The provider's redirect back: checks state and PKCE, fetches the profile, finds or links the
 * account, then sends the browser to /auth/callback with a one-time login code bound to it.
 * Failures of the browser or the provider go to /auth/callback in our words; anything else is a
 * bug and is thrown (logged, 500).
 */
async function finishProviderSignIn(provider: ProviderName, request: Request, context: unknown, signedIn: User | null): Promise<Response> {
  let profile: ProviderProfile;
  let user: User;
  try {
    await enforceAddressLimit("provider-sign-in", clientAddress(request, context), 30, 15 * MINUTE);
    const authenticator = providerAuthenticator(provider);
    if (!authenticator) return callbackError("not_configured");
    try {
      profile = await authenticator.authenticate(provider, request);
    } catch (thrown) {
      if (thrown instanceof Response) return thrown;
      const code = providerFailureCode(thrown);
      if (!code) throw thrown;
      log().warn({ provider, code, ...errorFields(thrown) }, `${PROVIDER_LABELS[provider]} sign-in failed (${code})`);
      return callbackError(code);
    }
    user = await signInWithProvider(profile, signedIn);
  } catch (thrown) {
    const code = refusalCode(thrown);
    if (!code) throw thrown;
    return callbackError(code);
  }
  const code = await createLoginCode(user.id);
  return redirect(`/auth/callback?code=${encodeURIComponent(code)}`, { headers: { "Set-Cookie": await loginCodeCookie().serialize(code) } });
}

const CODE_REDIRECT = "/auth/callback?code=";

/**
 * A provider's redirect back. For a visitor it is a sign-in and goes on to /auth/callback. For
 * someone already logged in it links the provider to that account (never another one), so the
 * session they have stays: the one-time code is spent here and the page says "linked" rather
 * than "Logged in successfully.". Anything else (an error, or the hop to the provider) is
 * passed on unchanged as "other".
 */
export async function finishProviderRedirect(
  provider: ProviderName,
  request: Request,
  context: unknown,
): Promise<{ response: Response; outcome: "signed-in" | "linked" | "other" }> {
  const signedIn = await getCurrentUser(request);
  const response = await finishProviderSignIn(provider, request, context, signedIn);
  const location = response.headers.get("Location");
  if (!location?.startsWith(CODE_REDIRECT)) return { response, outcome: "other" };
  if (!signedIn) return { response, outcome: "signed-in" };
  const code = new URL(location, "http://localhost").searchParams.get("code");
  if (code) await exchangeLoginCode(code);
  return { response: await redirectWithSuccess("/login", `${PROVIDER_LABELS[provider]} account linked.`), outcome: "linked" };
}

/** POST /api/auth/callback and the callback page's form: the Set-Cookie headers of the new session. */
export async function exchangeProviderLoginCode(request: Request, context: unknown, code: string): Promise<Headers> {
  const userId = await redeemLoginCode({ code, boundCode: await readCookieValue(loginCodeCookie(), request), client: clientAddress(request, context) });
  const headers = new Headers();
  headers.append("Set-Cookie", await createUserSession(userId));
  headers.append("Set-Cookie", await clearCookie(loginCodeCookie()));
  return headers;
}
