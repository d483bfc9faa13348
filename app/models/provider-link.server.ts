import type { ProviderName } from "~/integrations/oauth.server";
import { exchangeLoginCode, finishProviderSignIn, PROVIDER_LABELS } from "~/models/auth.server";
import { getCurrentUser } from "~/models/session.server";
import { redirectWithSuccess } from "~/toast.server";

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
): Promise<{ response: Response; outcome: "signed-in" | "linked" | "other" }> {
  const signedIn = await getCurrentUser(request);
  const response = await finishProviderSignIn(provider, request);
  const location = response.headers.get("Location");
  if (!location?.startsWith(CODE_REDIRECT)) return { response, outcome: "other" };
  if (!signedIn) return { response, outcome: "signed-in" };
  const code = new URL(location, "http://localhost").searchParams.get("code");
  if (code) await exchangeLoginCode(code);
  return { response: await redirectWithSuccess("/login", `${PROVIDER_LABELS[provider]} account linked.`), outcome: "linked" };
}
