// Fake OAuth 2.0 providers for tests and the local demo: Google, Discord and Patreon speaking the
// authorization-code flow (state echo, PKCE S256, client credentials) and their user-info
// endpoints in the shapes of INTEGRATIONS.md. The authorize page is a small HTML form where the
// tester picks or enters a user and presses "Authorize", so browsers follow real redirects.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeProvider = "google" | "discord" | "patreon";

export type FakeUser = {
  /** The provider's stable id (google sub, discord id, patreon user id). */
  id: string;
  email: string | null;
  emailVerified?: boolean;
  name: string;
  /** Patreon: the currently entitled tier id. */
  tierId?: string | null;
};

export type FakeClient = { clientId: string; clientSecret: string };

export const FAKE_CLIENTS: Record<FakeProvider, FakeClient> = {
  google: { clientId: "fake-google-client", clientSecret: "fake-google-secret" },
  discord: { clientId: "fake-discord-client", clientSecret: "fake-discord-secret" },
  patreon: { clientId: "fake-patreon-client", clientSecret: "fake-patreon-secret" },
};

/** The app's environment variables that point every provider at the fake server. */
export function fakeProviderEnv(url: string): Record<string, string> {
  return {
    FAKE_PROVIDERS_URL: url,
    GOOGLE_CLIENT_ID: FAKE_CLIENTS.google.clientId,
    GOOGLE_CLIENT_SECRET: FAKE_CLIENTS.google.clientSecret,
    GOOGLE_AUTHORIZE_URL: `${url}/google/authorize`,
    GOOGLE_TOKEN_URL: `${url}/google/token`,
    GOOGLE_USERINFO_URL: `${url}/google/userinfo`,
    DISCORD_CLIENT_ID: FAKE_CLIENTS.discord.clientId,
    DISCORD_CLIENT_SECRET: FAKE_CLIENTS.discord.clientSecret,
    DISCORD_AUTHORIZE_URL: `${url}/discord/authorize`,
    DISCORD_TOKEN_URL: `${url}/discord/token`,
    DISCORD_API_URL: `${url}/discord`,
    PATREON_CLIENT_ID: FAKE_CLIENTS.patreon.clientId,
    PATREON_CLIENT_SECRET: FAKE_CLIENTS.patreon.clientSecret,
    PATREON_AUTHORIZE_URL: `${url}/patreon/authorize`,
    PATREON_TOKEN_URL: `${url}/patreon/token`,
    PATREON_API_URL: `${url}/patreon`,
  };
}

type Grant = { provider: FakeProvider; user: FakeUser; redirectUri: string; challenge: string | null; expiresAt: number };

export type FakeProviders = {
  url: string;
  addUser(provider: FakeProvider, user: FakeUser): void;
  /** Token requests received, for tests that check how the client authenticated. */
  tokenRequests: { provider: FakeProvider; clientAuth: "basic" | "body"; usedPkce: boolean }[];
  stop(): Promise<void>;
};

const PROVIDERS: FakeProvider[] = ["google", "discord", "patreon"];

// Loopback only: the fakes sign anyone in as anyone, so nothing off this machine may reach them.
const FAKE_HOST = "127.0.0.1";

export async function startFakeProviders({ port = 0 }: { port?: number } = {}): Promise<FakeProviders> {
  const host = FAKE_HOST;
  const users: Record<FakeProvider, FakeUser[]> = { google: [], discord: [], patreon: [] };
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, { provider: FakeProvider; user: FakeUser }>();
  const tokenRequests: FakeProviders["tokenRequests"] = [];

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      send(res, 500, { error: "server_error", error_description: String(error) });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    const [, provider, ...rest] = url.pathname.split("/") as [string, FakeProvider, ...string[]];
    const endpoint = rest.join("/");
    if (!PROVIDERS.includes(provider)) return send(res, 404, { error: "not_found" });
    const client = FAKE_CLIENTS[provider];

    if (endpoint === "authorize") {
      const params = req.method === "POST" ? new URLSearchParams(await readBody(req)) : url.searchParams;
      const redirectUri = params.get("redirect_uri") ?? "";
      if (params.get("client_id") !== client.clientId) return sendHtml(res, 400, "<h1>Unknown client_id</h1>");
      if (params.get("response_type") !== "code") return sendHtml(res, 400, "<h1>response_type must be code</h1>");
      if (!/^https?:\/\//.test(redirectUri)) return sendHtml(res, 400, "<h1>Bad redirect_uri</h1>");
      if (!params.get("state")) return sendHtml(res, 400, "<h1>state is required</h1>");
      if (req.method !== "POST") return sendHtml(res, 200, authorizePage(provider, params, users[provider]));

      const back = new URL(redirectUri);
      back.searchParams.set("state", params.get("state")!);
      if (params.get("decision") === "deny") {
        back.searchParams.set("error", "access_denied");
        return redirect(res, back.toString());
      }
      const user = chosenUser(provider, params);
      if (!user) return sendHtml(res, 400, "<h1>Please enter a user id</h1>");
      const code = randomBytes(16).toString("hex");
      const method = params.get("code_challenge_method");
      if (params.get("code_challenge") && method !== "S256") return sendHtml(res, 400, "<h1>Only S256 PKCE is supported</h1>");
      grants.set(code, { provider, user, redirectUri, challenge: params.get("code_challenge"), expiresAt: Date.now() + 60_000 });
      back.searchParams.set("code", code);
      return redirect(res, back.toString());
    }

    if (endpoint === "token" && req.method === "POST") {
      if (!(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
        return send(res, 400, { error: "invalid_request", error_description: "form-encoded body required" });
      }
      const body = new URLSearchParams(await readBody(req));
      let clientId = body.get("client_id");
      let clientSecret = body.get("client_secret");
      let clientAuth: "basic" | "body" = "body";
      const authorization = req.headers.authorization ?? "";
      if (authorization.startsWith("Basic ")) {
        // Patreon is reported to refuse Basic client authentication: so does this fake.
        if (provider === "patreon") return send(res, 401, { error: "invalid_client", error_description: "send client credentials in the body" });
        const decoded = Buffer.from(authorization.slice(6), "base64").toString("utf8");
        const colon = decoded.indexOf(":");
        clientId = decodeURIComponent(decoded.slice(0, colon));
        clientSecret = decodeURIComponent(decoded.slice(colon + 1));
        clientAuth = "basic";
      }
      if (clientId !== client.clientId || clientSecret !== client.clientSecret) return send(res, 401, { error: "invalid_client" });
      if (body.get("grant_type") !== "authorization_code") return send(res, 400, { error: "unsupported_grant_type" });
      const code = body.get("code") ?? "";
      const grant = grants.get(code);
      grants.delete(code);
      if (!grant || grant.provider !== provider || grant.expiresAt < Date.now()) return send(res, 400, { error: "invalid_grant" });
      if (grant.redirectUri !== body.get("redirect_uri")) return send(res, 400, { error: "invalid_grant", error_description: "redirect_uri mismatch" });
      const verifier = body.get("code_verifier");
      if (grant.challenge) {
        const expected = createHash("sha256")
          .update(verifier ?? "")
          .digest("base64url");
        if (expected !== grant.challenge) return send(res, 400, { error: "invalid_grant", error_description: "PKCE verification failed" });
      }
      tokenRequests.push({ provider, clientAuth, usedPkce: Boolean(grant.challenge) });
      const accessToken = randomBytes(16).toString("hex");
      tokens.set(accessToken, { provider, user: grant.user });
      return send(res, 200, { access_token: accessToken, token_type: "Bearer", expires_in: 3600, refresh_token: randomBytes(16).toString("hex"), scope: "" });
    }

    const bearer = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const session = tokens.get(bearer);
    const profileEndpoint = { google: "userinfo", discord: "users/@me", patreon: "identity" }[provider];
    if (endpoint === profileEndpoint && req.method === "GET") {
      if (!session || session.provider !== provider) return send(res, 401, { error: "invalid_token" });
      return send(res, 200, profileOf(provider, session.user));
    }
    return send(res, 404, { error: "not_found" });
  }

  function chosenUser(provider: FakeProvider, params: URLSearchParams): FakeUser | null {
    const preset = params.get("preset");
    if (preset) return users[provider].find((user) => user.id === preset) ?? null;
    const id = params.get("user_id")?.trim();
    if (!id) return null;
    return {
      id,
      email: params.get("email")?.trim() || null,
      emailVerified: params.get("email_verified") === "on",
      name: params.get("name")?.trim() || id,
      tierId: params.get("tier_id")?.trim() || null,
    };
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    tokenRequests,
    addUser(provider, user) {
      users[provider] = [...users[provider].filter((item) => item.id !== user.id), user];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function profileOf(provider: FakeProvider, user: FakeUser): unknown {
  switch (provider) {
    case "google":
      return { sub: user.id, email: user.email, email_verified: user.emailVerified ?? false, name: user.name, picture: null };
    case "discord":
      return {
        id: user.id,
        username: user.name.toLowerCase().replace(/\s+/g, ""),
        global_name: user.name,
        discriminator: "0",
        email: user.email,
        verified: user.emailVerified ?? false,
      };
    case "patreon": {
      const memberId = `member-${user.id}`;
      return {
        data: {
          type: "user",
          id: user.id,
          attributes: { full_name: user.name, email: user.email, is_email_verified: user.emailVerified ?? false },
          relationships: { memberships: { data: user.tierId ? [{ type: "member", id: memberId }] : [] } },
        },
        included: user.tierId
          ? [
              {
                type: "member",
                id: memberId,
                attributes: { patron_status: "active_patron", currently_entitled_amount_cents: 500 },
                relationships: { currently_entitled_tiers: { data: [{ type: "tier", id: user.tierId }] } },
              },
              { type: "tier", id: user.tierId, attributes: { title: `Tier ${user.tierId}`, amount_cents: 500 } },
            ]
          : [],
        links: { self: "/identity" },
      };
    }
  }
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function authorizePage(provider: FakeProvider, params: URLSearchParams, users: FakeUser[]): string {
  const hidden = ["client_id", "redirect_uri", "response_type", "state", "scope", "code_challenge", "code_challenge_method"]
    .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name) ?? "")}">`)
    .join("");
  const presets = users
    .map((user) => `<button type="submit" name="preset" value="${escapeHtml(user.id)}">Authorize as ${escapeHtml(user.name)}</button>`)
    .join(" ");
  const title = { google: "Fake Google", discord: "Fake Discord", patreon: "Fake Patreon" }[provider];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} sign-in</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}input[type=text],input[type=email]{width:100%;padding:.4rem}</style></head>
<body><h1>${title}</h1><p>A local stand-in for the real provider. Choose who signs in.</p>
<form method="post" action="/${provider}/authorize">${hidden}
${presets ? `<p>${presets}</p>` : ""}
<label>User id <input type="text" name="user_id" autocomplete="off"></label>
<label>Email <input type="email" name="email" autocomplete="off"></label>
<label><input type="checkbox" name="email_verified" checked> Email verified</label>
<label>Name <input type="text" name="name" autocomplete="off"></label>
${provider === "patreon" ? '<label>Entitled tier id <input type="text" name="tier_id" autocomplete="off"></label>' : ""}
<p><button type="submit" name="decision" value="allow">Authorize</button> <button type="submit" name="decision" value="deny">Deny</button></p>
</form></body></html>`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
      if (body.length > 100_000) req.destroy();
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
  res.end(JSON.stringify(body));
}

function sendHtml(res: ServerResponse, status: number, html: string) {
  res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
  res.end(html);
}

function redirect(res: ServerResponse, location: string) {
  res.writeHead(302, { Location: location });
  res.end();
}

// `node --import tsx scripts/fake-providers.ts` runs it alone and prints the app's settings.
if (import.meta.url === `file://${process.argv[1]}`) {
  const providers = await startFakeProviders({ port: Number(process.env.FAKE_PROVIDERS_PORT ?? 0) });
  console.log(`Fake providers at ${providers.url}. Settings for the app:`);
  for (const [key, value] of Object.entries(fakeProviderEnv(providers.url))) console.log(`${key}=${value}`);
}
