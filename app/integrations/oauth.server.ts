// Sign-in with the support platform (Patreon), the general identity provider (Google) and the
// chat-community provider (Discord) through remix-auth-oauth2. Every endpoint comes from
// configuration, so tests and the local demo use the fake providers of scripts/fake-providers.ts.
import { Cookie } from "@mjackson/headers";
import { ArcticFetchError, OAuth2Tokens } from "arctic";
import { Authenticator } from "remix-auth";
import { OAuth2RequestError, OAuth2Strategy, UnexpectedErrorResponseBodyError, UnexpectedResponseError } from "remix-auth-oauth2";
import { env } from "~/env.server";
import { parseIdentity, type JsonApiDocument } from "~/integrations/patreon.server";
import type { CallbackErrorCode } from "~/utils/auth-callback-errors";
import { withinTime } from "~/utils/within-time";

export type ProviderName = "patreon" | "google" | "discord";

export type ProviderProfile = {
  provider: ProviderName;
  /** The provider's stable id (google `sub`, discord `id`, patreon user id). */
  id: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  discordTag?: string | null;
  /** Patreon: the currently entitled tier (null when none). */
  currentTierId?: string | null;
};

type ProviderConfig = {
  clientId: string;
  clientSecret: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  redirectURI: string;
  scopes: string[];
};

/** Where each provider sends the browser back to (registered with the provider). */
export const CALLBACK_PATHS: Record<ProviderName, string> = {
  patreon: "/api/auth/patreon-callback",
  google: "/api/google/callback",
  discord: "/api/discord/callback",
};

function providerConfig(provider: ProviderName): ProviderConfig | null {
  const config = env();
  const redirectURI = `${config.APP_URL}${CALLBACK_PATHS[provider]}`;
  switch (provider) {
    case "patreon":
      if (!config.PATREON_CLIENT_ID || !config.PATREON_CLIENT_SECRET) return null;
      return {
        clientId: config.PATREON_CLIENT_ID,
        clientSecret: config.PATREON_CLIENT_SECRET,
        authorizationEndpoint: config.PATREON_AUTHORIZE_URL,
        tokenEndpoint: config.PATREON_TOKEN_URL,
        redirectURI,
        scopes: ["identity", "identity[email]", "identity.memberships"],
      };
    case "google":
      if (!config.GOOGLE_CLIENT_ID || !config.GOOGLE_CLIENT_SECRET) return null;
      return {
        clientId: config.GOOGLE_CLIENT_ID,
        clientSecret: config.GOOGLE_CLIENT_SECRET,
        authorizationEndpoint: config.GOOGLE_AUTHORIZE_URL,
        tokenEndpoint: config.GOOGLE_TOKEN_URL,
        redirectURI,
        scopes: ["openid", "email", "profile"],
      };
    case "discord":
      if (!config.DISCORD_CLIENT_ID || !config.DISCORD_CLIENT_SECRET) return null;
      return {
        clientId: config.DISCORD_CLIENT_ID,
        clientSecret: config.DISCORD_CLIENT_SECRET,
        authorizationEndpoint: config.DISCORD_AUTHORIZE_URL,
        tokenEndpoint: config.DISCORD_TOKEN_URL,
        redirectURI,
        scopes: ["identify", "email"],
      };
  }
}

/** The provider sent the browser back with a `state` this browser never started (no cookie). */
export class SignInStateError extends Error {
  constructor() {
    super("the state of the callback matches no sign-in this browser started");
    this.name = "SignInStateError";
  }
}

/**
 * remix-auth-oauth2 answers a missing or foreign state with a bare ReferenceError/RangeError,
 * which a bug of ours could throw too. So the callback's state and code are checked here first,
 * each with an error of its own; the library's checks then never fire for them.
 */
class CheckedOAuth2Strategy<User> extends OAuth2Strategy<User> {
  override async authenticate(request: Request): Promise<User> {
    const url = new URL(request.url);
    const state = url.searchParams.get("state");
    if (state !== null) {
      if (!this.startedHere(request, state)) throw new SignInStateError();
      if (!url.searchParams.has("error") && !url.searchParams.get("code")) throw new ProviderError("callback without a code");
    }
    return super.authenticate(request);
  }

  /** Arctic's token call takes no signal: the sign-in gives it up once the provider has had PROVIDER_TIMEOUT_MS. */
  protected override validateAuthorizationCode(code: string, codeVerifier: string): Promise<OAuth2Tokens> {
    const limitMs = env().PROVIDER_TIMEOUT_MS;
    return withinTime(super.validateAuthorizationCode(code, codeVerifier), limitMs, () => new ProviderError(`provider did not answer within ${limitMs} ms`));
  }

  /** Whether a state cookie of this strategy (named `<cookie>:<id>`, one per started sign-in) holds `state`. */
  private startedHere(request: Request, state: string): boolean {
    // providerAuthenticator always names the cookie (`oauth2_<provider>`).
    const prefix = (this.options.cookie as { name: string }).name;
    const cookies = new Cookie(request.headers.get("Cookie") ?? "");
    return cookies.names.some((name) => name.startsWith(prefix) && new URLSearchParams(cookies.get(name) ?? "").has(state));
  }
}

/** Patreon refuses HTTP Basic client auth: its token call carries the credentials in the body. */
class PatreonStrategy<User> extends CheckedOAuth2Strategy<User> {
  protected override async validateAuthorizationCode(code: string, codeVerifier: string): Promise<OAuth2Tokens> {
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: String(this.options.redirectURI),
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret ?? "",
      code_verifier: codeVerifier,
    });
    const response = await providerFetch(String(this.options.tokenEndpoint), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body,
    });
    const data: unknown = await response.json().catch(() => null);
    if (!response.ok || !data || typeof data !== "object" || !("access_token" in data)) {
      throw new ProviderError(`token exchange failed (${response.status})`);
    }
    return new OAuth2Tokens(data);
  }
}

/** The provider answered something we cannot use (a failed call, a profile without an id). */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderError";
  }
}

/**
 * The callback error code of a failed provider round trip, by the error's type: the library's
 * (arctic, remix-auth-oauth2) and ours above. Null for anything else: that is a bug, not the
 * user's browser or the provider, and must surface as one.
 */
export function providerFailureCode(error: unknown): CallbackErrorCode | null {
  if (error instanceof SignInStateError) return "state_mismatch";
  if (error instanceof OAuth2RequestError) return error.code === "access_denied" ? "access_denied" : "provider_error";
  if (error instanceof ProviderError || error instanceof ArcticFetchError) return "provider_error";
  if (error instanceof UnexpectedResponseError || error instanceof UnexpectedErrorResponseBodyError) return "provider_error";
  return null;
}

/**
 * A call to the provider, its body included, within PROVIDER_TIMEOUT_MS; an unreachable or
 * silent provider is the provider's failure, not ours.
 */
async function providerFetch(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(env().PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    throw new ProviderError(`provider unreachable: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function getJson(url: string, accessToken: string): Promise<Record<string, unknown>> {
  const response = await providerFetch(url, { headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" } });
  if (!response.ok) throw new ProviderError(`profile request failed (${response.status})`);
  const body: unknown = await response.json().catch(() => null);
  if (!body || typeof body !== "object") throw new ProviderError("profile is not a JSON object");
  return body as Record<string, unknown>;
}

const asString = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : typeof value === "number" ? String(value) : null);

export async function fetchGoogleProfile(accessToken: string): Promise<ProviderProfile> {
  const info = await getJson(env().GOOGLE_USERINFO_URL, accessToken);
  const id = asString(info.sub);
  if (!id) throw new ProviderError("profile has no sub");
  return { provider: "google", id, email: asString(info.email), emailVerified: info.email_verified === true, name: asString(info.name) };
}

export async function fetchDiscordProfile(accessToken: string): Promise<ProviderProfile> {
  const info = await getJson(`${env().DISCORD_API_URL}/users/@me`, accessToken);
  const id = asString(info.id);
  if (!id) throw new ProviderError("profile has no id");
  const username = asString(info.username);
  const discriminator = asString(info.discriminator);
  return {
    provider: "discord",
    id,
    email: asString(info.email),
    emailVerified: info.verified === true,
    name: asString(info.global_name) ?? username,
    discordTag: username && discriminator && discriminator !== "0" ? `${username}#${discriminator}` : username,
  };
}

type JsonApiResource = { type?: string; id?: string; attributes?: Record<string, unknown>; relationships?: Record<string, { data?: unknown }> };

/** The Patreon user and the tier they are entitled to now (an active membership's first tier). */
export async function fetchPatreonProfile(accessToken: string): Promise<ProviderProfile> {
  const params = new URLSearchParams({
    include: "memberships,memberships.currently_entitled_tiers",
    "fields[user]": "full_name,email,is_email_verified",
    "fields[member]": "patron_status,currently_entitled_amount_cents",
    "fields[tier]": "title,amount_cents",
  });
  const document = await getJson(`${env().PATREON_API_URL}/identity?${params}`, accessToken);
  let identity;
  try {
    // Only the membership in this creator's campaign counts (PATREON_CAMPAIGN_ID when set).
    identity = parseIdentity(document as JsonApiDocument, env().PATREON_CAMPAIGN_ID ?? null);
  } catch {
    throw new ProviderError("identity has no user id");
  }
  const user = document.data as JsonApiResource | undefined;
  return {
    provider: "patreon",
    id: identity.patreonUserId,
    email: identity.email,
    emailVerified: user?.attributes?.is_email_verified === true,
    name: identity.fullName,
    currentTierId: identity.membership?.entitledTiers[0]?.id ?? null,
  };
}

const profileFetchers: Record<ProviderName, (accessToken: string) => Promise<ProviderProfile>> = {
  patreon: fetchPatreonProfile,
  google: fetchGoogleProfile,
  discord: fetchDiscordProfile,
};

/**
 * An authenticator whose strategies are built from the current configuration. `authenticate`
 * throws a redirect to the provider on the way out, and answers the provider's profile on the
 * way back (state and PKCE checked by remix-auth-oauth2).
 */
export function providerAuthenticator(provider: ProviderName): Authenticator<ProviderProfile> | null {
  const config = providerConfig(provider);
  if (!config) return null;
  const options = {
    ...config,
    cookie: {
      name: `oauth2_${provider}`,
      httpOnly: true as const,
      sameSite: "Lax" as const,
      path: "/",
      ...(env().APP_URL.startsWith("https://") ? { secure: true as const } : {}),
    },
  };
  const verify = async ({ tokens }: { tokens: OAuth2Tokens }) => profileFetchers[provider](tokens.accessToken());
  const strategy = provider === "patreon" ? new PatreonStrategy(options, verify) : new CheckedOAuth2Strategy(options, verify);
  return new Authenticator<ProviderProfile>().use(strategy, provider);
}
