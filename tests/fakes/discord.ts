// A fake of the Discord REST API (v10) on 127.0.0.1, written from Discord's "Guild" and "Rate
// Limits" documentation: one server (guild) whose members hold roles, the member-role endpoints
// (PUT / DELETE /guilds/{guild}/members/{user}/roles/{role}, 204), the member endpoint (GET
// /guilds/{guild}/members/{user}, 404 code 10007 for a non-member), channel webhooks (POST
// /webhooks/{id}/{token}, 204), `Authorization: Bot <token>`, X-RateLimit-* headers on every
// answer, and 429 answers on demand: JSON { message, retry_after, global } with Retry-After. A
// bucket that answered 429 keeps answering 429 until its retry_after has passed, as Discord does.
// Shared by tests and the local demo.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeDiscordRequest = {
  method: string;
  path: string;
  /** Milliseconds (Date.now()) when the request arrived. */
  at: number;
  status: number;
  /** The X-Audit-Log-Reason header, decoded. */
  reason: string | null;
  body: unknown;
};

export type FakeDiscordOptions = { token?: string; guildId?: string };

export type FakeDiscord = {
  /** The base to use as DISCORD_API_BASE. */
  apiBase: string;
  token: string;
  guildId: string;
  /** A channel webhook address on the fake. */
  webhookUrl: string;
  requests: FakeDiscordRequest[];
  /** Adds a member to the server (with roles). */
  addMember(userId: string, roles?: string[]): void;
  /** The member's roles, or null when not in the server. */
  roles(userId: string): string[] | null;
  /** Changes a member's roles by hand (as a moderator would in the Discord app). */
  setRoles(userId: string, roles: string[]): void;
  /** Messages posted to channel webhooks. */
  webhookMessages: { url: string; body: unknown; at: number }[];
  /**
   * The next `count` requests whose method and path match answer 429 with `retryAfter` seconds
   * (global or for the route's bucket); the bucket then stays limited until that time passes.
   */
  /** Ends every running and planned 429. */
  clearLimits(): void;
  rateLimitNext(options: { count?: number; retryAfter: number; global?: boolean; match?: (method: string, path: string) => boolean }): void;
  stop(): Promise<void>;
};

type Limit = { count: number; retryAfter: number; global: boolean; match: (method: string, path: string) => boolean };

/** Discord names buckets by route without the ids of users and roles. */
function bucketOf(method: string, path: string): string {
  if (/^\/guilds\/[^/]+\/members\/[^/]+\/roles\/[^/]+$/.test(path)) return `member-roles-${method}`;
  if (/^\/guilds\/[^/]+\/members\/[^/]+$/.test(path)) return "member-get";
  if (path.startsWith("/webhooks/")) return `webhook-${path.split("/")[2]}`;
  return "other";
}

export async function startFakeDiscord({ token = "fake-bot-token", guildId = "111111111111111111" }: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const members = new Map<string, Set<string>>();
  const requests: FakeDiscordRequest[] = [];
  const webhookMessages: FakeDiscord["webhookMessages"] = [];
  const limits: Limit[] = [];
  const limitedUntil = new Map<string, { until: number; global: boolean }>();
  let globalUntil = 0;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };

  async function readBody(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    if (!text) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }

  const server = createServer((req, res) => {
    void (async () => {
      const at = Date.now();
      const url = new URL(req.url ?? "/", "http://fake");
      const method = req.method ?? "GET";
      const path = url.pathname.replace(/^\/api\/v10/, "");
      const rawReason = req.headers["x-audit-log-reason"];
      const reason = typeof rawReason === "string" ? decodeURIComponent(rawReason) : null;
      const body = await readBody(req);
      const bucket = bucketOf(method, path);
      const record = (status: number) => requests.push({ method, path, at, status, reason, body });
      const rateHeaders = { "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset-After": "1", "X-RateLimit-Bucket": bucket };

      const tooMany = (retryAfter: number, global: boolean) => {
        record(429);
        send(
          res,
          429,
          { message: "You are being rate limited.", retry_after: retryAfter, global },
          {
            "Retry-After": String(Math.ceil(retryAfter)),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": String(retryAfter),
            "X-RateLimit-Bucket": bucket,
            "X-RateLimit-Scope": global ? "global" : "user",
            ...(global ? { "X-RateLimit-Global": "true" } : {}),
          },
        );
      };

      // A limit still running answers 429 again with what is left of it.
      const running = Math.max(globalUntil, limitedUntil.get(bucket)?.until ?? 0);
      if (running > at) return tooMany((running - at) / 1000, globalUntil > at);
      const limit = limits.find((item) => item.count > 0 && item.match(method, path));
      if (limit) {
        limit.count -= 1;
        const until = at + limit.retryAfter * 1000;
        if (limit.global) globalUntil = until;
        else limitedUntil.set(bucket, { until, global: false });
        return tooMany(limit.retryAfter, limit.global);
      }

      if (path.startsWith("/webhooks/")) {
        if (method !== "POST") {
          record(405);
          return send(res, 405, { message: "405: Method Not Allowed", code: 0 });
        }
        webhookMessages.push({ url: `${apiBase}${path}`, body, at });
        record(204);
        return send(res, 204, undefined, rateHeaders);
      }

      if (req.headers.authorization !== `Bot ${token}`) {
        record(401);
        return send(res, 401, { message: "401: Unauthorized", code: 0 });
      }
      const roleMatch = /^\/guilds\/([^/]+)\/members\/([^/]+)\/roles\/([^/]+)$/.exec(path);
      const memberMatch = /^\/guilds\/([^/]+)\/members\/([^/]+)$/.exec(path);
      const guild = roleMatch?.[1] ?? memberMatch?.[1];
      if (guild !== undefined && guild !== guildId) {
        record(404);
        return send(res, 404, { message: "Unknown Guild", code: 10004 });
      }
      if (roleMatch && (method === "PUT" || method === "DELETE")) {
        const roles = members.get(roleMatch[2]!);
        if (!roles) {
          record(404);
          return send(res, 404, { message: "Unknown Member", code: 10007 });
        }
        if (method === "PUT") roles.add(roleMatch[3]!);
        else roles.delete(roleMatch[3]!);
        record(204);
        return send(res, 204, undefined, rateHeaders);
      }
      if (memberMatch && method === "GET") {
        const roles = members.get(memberMatch[2]!);
        if (!roles) {
          record(404);
          return send(res, 404, { message: "Unknown Member", code: 10007 });
        }
        record(200);
        return send(
          res,
          200,
          {
            user: { id: memberMatch[2], username: `user${memberMatch[2]}` },
            roles: [...roles],
            joined_at: new Date(0).toISOString(),
            deaf: false,
            mute: false,
          },
          rateHeaders,
        );
      }
      record(404);
      send(res, 404, { message: "404: Not Found", code: 0 });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v10`;

  return {
    apiBase,
    token,
    guildId,
    webhookUrl: `${apiBase}/webhooks/222222222222222222/fake-webhook-token`,
    requests,
    webhookMessages,
    addMember(userId, roles = []) {
      members.set(userId, new Set(roles));
    },
    roles(userId) {
      const roles = members.get(userId);
      return roles ? [...roles].sort() : null;
    },
    setRoles(userId, roles) {
      members.set(userId, new Set(roles));
    },
    clearLimits() {
      limits.length = 0;
      limitedUntil.clear();
      globalUntil = 0;
    },
    rateLimitNext({ count = 1, retryAfter, global = false, match = () => true }) {
      limits.push({ count, retryAfter, global, match });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
