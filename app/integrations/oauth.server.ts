// Sign-in with the support platform (Patreon), the general identity provider (Google) and the
// chat-community provider (Discord) through remix-auth-oauth2. Every endpoint comes from
// configuration, so tests and the local demo use the fake providers of scripts/fake-providers.ts.
import { createCookie } from "@remix-run/node";
import { OAuth2Tokens } from "arctic";
import { Authenticator } from "remix-auth";
import { OAuth2Strategy } from "remix-auth-oauth2";
import { env } from "~/env.server";
import { parseIdentity, type JsonApiDocument } from "~/integrations/patreon.server";

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

export function isProviderConfigured(provider: ProviderName): boolean {
  return providerConfig(provider) !== null;
}

/** Patreon refuses HTTP Basic client auth: its token call carries the credentials in the body. */
class PatreonStrategy<User> extends OAuth2Strategy<User> {
  protected override async validateAuthorizationCode(code: string, codeVerifier: string): Promise<OAuth2Tokens> {
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: String(this.options.redirectURI),
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret ?? "",
      code_verifier: codeVerifier,
    });
    const response = await fetch(String(this.options.tokenEndpoint), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body,
    });
    const data: unknown = await response.json().catch(() => null);
    if (!response.ok || !data || typeof data !== "object" || !("access_token" in data)) {
      throw new ProviderError(`token exchange failed (${response.status})`);
    }
    return new OAuth2Tokens(data as object);
  }
}

export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderError";
  }
}

async function getJson(url: string, accessToken: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" } });
  if (!response.ok) throw new ProviderError(`profile request failed (${response.status})`);
  return (await response.json()) as Record<string, unknown>;
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

function related(resource: JsonApiResource | undefined, name: string): { type: string; id: string }[] {
  const data = resource?.relationships?.[name]?.data;
  return Array.isArray(data) ? (data as { type: string; id: string }[]) : [];
}

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
  const strategy = provider === "patreon" ? new PatreonStrategy(options, verify) : new OAuth2Strategy(options, verify);
  return new Authenticator<ProviderProfile>().use(strategy, provider);
}

// The browser that started a sign-in must be the one that exchanges its login code: the code
// travels in the address, and this cookie proves the same browser holds it.
const loginCodeCookie = () =>
  createCookie("__login_code", {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: 120,
    secure: env().APP_URL.startsWith("https://"),
    secrets: env().SESSION_SECRET,
  });

export function serializeLoginCodeCookie(code: string): Promise<string> {
  return loginCodeCookie().serialize(code);
}

export function clearLoginCodeCookie(): Promise<string> {
  return loginCodeCookie().serialize("", { maxAge: 0 });
}

export async function readLoginCodeCookie(request: Request): Promise<string | null> {
  const value: unknown = await loginCodeCookie().parse(request.headers.get("Cookie"));
  return typeof value === "string" && value ? value : null;
}
