// The Discord bot's REST client (docs/product.md#discord-roles): give and take a member's role,
// read a member's roles, post to a channel webhook. Written from Discord's "Guild" resource and
// "Rate Limits" pages: every answer carries X-RateLimit-Remaining / -Reset-After / -Bucket; a 429
// carries JSON { message, retry_after (seconds, fractional), global } and Retry-After. The client
// waits before a request while its bucket (or the global limit) is spent, and after a 429 waits
// retry_after before trying again; a wait longer than `maxWaitMs` is handed back to the caller
// (the queue sets the job's next attempt then) instead of holding the job runner.
import { env } from "~/env.server";

export type DiscordConfig = { token: string; guildId: string; apiBase: string };

/** The bot's configuration, or null when DISCORD_BOT_TOKEN or DISCORD_GUILD_ID is unset (the feature is off). */
export function discordConfig(): DiscordConfig | null {
  const config = env();
  if (!config.DISCORD_BOT_TOKEN || !config.DISCORD_GUILD_ID) return null;
  return { token: config.DISCORD_BOT_TOKEN, guildId: config.DISCORD_GUILD_ID, apiBase: config.DISCORD_API_BASE.replace(/\/+$/, "") };
}

/** Discord's JSON error codes this client tells apart. */
export const UNKNOWN_MEMBER = 10007;

/** A call Discord refused or that failed; `forGood` when retrying cannot help (4xx other than 429). */
export class DiscordCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: number | null,
    readonly forGood: boolean,
  ) {
    super(message);
    this.name = "DiscordCallError";
  }
}

/** Rate limited for longer than the client waits: try again after `retryAfterMs`. */
export class DiscordRateLimited extends Error {
  constructor(
    readonly retryAfterMs: number,
    readonly global: boolean,
  ) {
    super(`Rate limited by Discord for ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = "DiscordRateLimited";
  }
}

type Bucket = { remaining: number; resetAt: number };

/** What the client knows about the limits: per route, the bucket Discord named; per bucket, what is left. */
type Limits = { routeBuckets: Map<string, string>; buckets: Map<string, Bucket>; globalUntil: number };

// One record per bot token and base, shared by every client of this process.
const limitsByBot = new Map<string, Limits>();

function limitsFor(key: string): Limits {
  let limits = limitsByBot.get(key);
  if (!limits) {
    limits = { routeBuckets: new Map(), buckets: new Map(), globalUntil: 0 };
    limitsByBot.set(key, limits);
  }
  return limits;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function seconds(value: string | null): number | null {
  if (value === null || value.trim() === "") return null;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : null;
}

export type DiscordMember = { userId: string; roles: string[] };

export type DiscordClient = {
  addRole(userId: string, roleId: string, reason: string): Promise<void>;
  /** Taking a role the member does not have, or from someone no longer in the server, is done too. */
  removeRole(userId: string, roleId: string, reason: string): Promise<void>;
  /** The member's roles, or null when the user is not in the server. */
  getMember(userId: string): Promise<DiscordMember | null>;
  /** Posts a message to a channel webhook address. */
  postWebhook(url: string, body: unknown): Promise<void>;
};

export type ClientOptions = {
  /** The longest the client itself waits for a limit to pass; longer waits throw DiscordRateLimited. */
  maxWaitMs?: number;
  /** 429 answers in a row the client retries before handing the wait back. */
  maxRetries?: number;
  fetchImpl?: typeof fetch;
};

/** X-Audit-Log-Reason is a header: URL-encoded (Discord decodes it), at most 512 characters. */
function auditReason(reason: string): string {
  return encodeURIComponent(reason.slice(0, 400));
}

export function createDiscordClient(config: DiscordConfig, { maxWaitMs = 10_000, maxRetries = 3, fetchImpl = fetch }: ClientOptions = {}): DiscordClient {
  const limits = limitsFor(`${config.apiBase}\u0000${config.token}`);

  /** Waits while the route's bucket or the global limit is spent; throws when that is too long. */
  async function waitForLimits(route: string): Promise<void> {
    const now = Date.now();
    const bucketId = limits.routeBuckets.get(route);
    const bucket = bucketId ? limits.buckets.get(bucketId) : undefined;
    const bucketWait = bucket && bucket.remaining <= 0 ? bucket.resetAt - now : 0;
    const globalWait = limits.globalUntil - now;
    const wait = Math.max(bucketWait, globalWait, 0);
    if (wait > maxWaitMs) throw new DiscordRateLimited(wait, globalWait >= bucketWait);
    if (wait > 0) await sleep(wait);
  }

  function noteHeaders(route: string, headers: Headers): void {
    const bucketId = headers.get("X-RateLimit-Bucket") ?? route;
    limits.routeBuckets.set(route, bucketId);
    const remaining = seconds(headers.get("X-RateLimit-Remaining"));
    const resetAfter = seconds(headers.get("X-RateLimit-Reset-After"));
    if (remaining !== null && resetAfter !== null) limits.buckets.set(bucketId, { remaining, resetAt: Date.now() + resetAfter * 1000 });
  }

  async function call(method: string, url: string, route: string, { reason, body }: { reason?: string; body?: unknown } = {}): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      await waitForLimits(route);
      const headers: Record<string, string> = { "User-Agent": "CreatorLibrary (https://github.com, 1.0)" };
      // Channel webhooks carry their own token in the address; the bot's token goes only to the API.
      if (url.startsWith(config.apiBase)) headers.Authorization = `Bot ${config.token}`;
      if (reason) headers["X-Audit-Log-Reason"] = auditReason(reason);
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const response = await fetchImpl(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      noteHeaders(route, response.headers);
      if (response.status !== 429) return response;
      const data = (await response.json().catch(() => ({}))) as { retry_after?: unknown; global?: unknown };
      const retryAfter = typeof data.retry_after === "number" && data.retry_after >= 0 ? data.retry_after : (seconds(response.headers.get("Retry-After")) ?? 1);
      const global = data.global === true || response.headers.get("X-RateLimit-Global") === "true";
      const until = Date.now() + Math.ceil(retryAfter * 1000);
      if (global) limits.globalUntil = Math.max(limits.globalUntil, until);
      else limits.buckets.set(limits.routeBuckets.get(route) ?? route, { remaining: 0, resetAt: until });
      if (attempt >= maxRetries) throw new DiscordRateLimited(until - Date.now(), global);
      // The next loop waits for the limit (or hands a long wait back).
    }
  }

  async function failure(response: Response, what: string): Promise<DiscordCallError> {
    const data = (await response.json().catch(() => ({}))) as { code?: unknown; message?: unknown };
    const code = typeof data.code === "number" ? data.code : null;
    const message = typeof data.message === "string" ? data.message : response.statusText;
    // A missing permission or a bad token is the operator's setting: retried until fixed or given up.
    const forGood = response.status >= 400 && response.status < 500 && ![401, 403, 408].includes(response.status);
    return new DiscordCallError(`${what}: ${response.status}${code ? ` (${code})` : ""} ${message}`.slice(0, 500), response.status, code, forGood);
  }

  const guild = `${config.apiBase}/guilds/${encodeURIComponent(config.guildId)}`;
  const roleRoute = (method: string) => `${method} /guilds/${config.guildId}/members/:user/roles/:role`;

  return {
    async addRole(userId, roleId, reason) {
      const response = await call("PUT", `${guild}/members/${encodeURIComponent(userId)}/roles/${encodeURIComponent(roleId)}`, roleRoute("PUT"), { reason });
      if (!response.ok) throw await failure(response, "Adding the role failed");
    },
    async removeRole(userId, roleId, reason) {
      const response = await call("DELETE", `${guild}/members/${encodeURIComponent(userId)}/roles/${encodeURIComponent(roleId)}`, roleRoute("DELETE"), {
        reason,
      });
      if (response.ok) return;
      const error = await failure(response, "Removing the role failed");
      // Nobody to take it from: the member left the server; nothing left to do.
      if (error.code === UNKNOWN_MEMBER) return;
      throw error;
    },
    async getMember(userId) {
      const response = await call("GET", `${guild}/members/${encodeURIComponent(userId)}`, `GET /guilds/${config.guildId}/members/:user`);
      if (response.status === 404) {
        const error = await failure(response, "Reading the member failed");
        if (error.code === UNKNOWN_MEMBER) return null;
        throw error;
      }
      if (!response.ok) throw await failure(response, "Reading the member failed");
      const data = (await response.json()) as { roles?: unknown };
      return { userId, roles: Array.isArray(data.roles) ? data.roles.filter((role): role is string => typeof role === "string") : [] };
    },
    async postWebhook(url, body) {
      // A webhook's limit is its own (its id and token are the top-level resource).
      const response = await call("POST", url, `POST webhook ${url}`, { body });
      if (!response.ok) throw await failure(response, "Posting the announcement failed");
    },
  };
}

/** Forgets what the client learned about the limits (tests start each case afresh). */
export function resetDiscordLimits(): void {
  limitsByBot.clear();
}
