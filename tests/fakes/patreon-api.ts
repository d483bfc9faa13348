// A fake of the support platform's API v2 (Patreon) on 127.0.0.1: /identity, /campaigns and
// /campaigns/{id}/members with real cursor pagination and JSON:API documents, plus webhook
// deliveries signed exactly as the platform signs them. Shared by tests and the local demo.
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakePledgeEvent = {
  id: string;
  type: "pledge_start" | "pledge_upgrade" | "pledge_downgrade" | "pledge_delete" | "subscription";
  date: string;
  amountCents: number;
  tierId: string | null;
  tierTitle: string | null;
  paymentStatus?: string | null;
};

export type FakeMember = {
  memberId: string;
  patreonUserId: string;
  email: string;
  fullName: string;
  patronStatus: "active_patron" | "declined_patron" | "former_patron" | null;
  lastChargeStatus?: string | null;
  /** ISO date of the last charge (the platform sends it with every member document). */
  lastChargeDate?: string | null;
  tierIds: string[];
  pledgeHistory?: FakePledgeEvent[];
};

export type FakeTier = { id: string; title: string; amountCents: number };

type Resource = { type: string; id: string; attributes: Record<string, unknown>; relationships?: Record<string, unknown> };

export type FakePatreonOptions = {
  members?: FakeMember[];
  tiers?: FakeTier[];
  campaignId?: string;
  creatorToken?: string;
  pageSize?: number;
  /** Access tokens of users (for /identity): token -> platform user id. */
  userTokens?: Record<string, string>;
};

export type FakePatreonApi = {
  /** Base address to use as PATREON_API_URL. */
  apiUrl: string;
  members: FakeMember[];
  requests: string[];
  /** The next request for `page` (0-based) answers 429 with retry_after_seconds, once. */
  rateLimitPageOnce(page: number, retryAfterSeconds: number): void;
  /** Requests for `page` answer `status` until cleared. */
  failPage(page: number | null, status?: number): void;
  stop(): Promise<void>;
};

function tierResource(tier: FakeTier): Resource {
  return { type: "tier", id: tier.id, attributes: { title: tier.title, amount_cents: tier.amountCents } };
}

function pledgeResource(event: FakePledgeEvent): Resource {
  return {
    type: "pledge-event",
    id: event.id,
    attributes: {
      type: event.type,
      date: event.date,
      amount_cents: event.amountCents,
      currency_code: "USD",
      payment_status: event.paymentStatus === undefined ? "Paid" : event.paymentStatus,
      tier_id: event.tierId,
      tier_title: event.tierTitle,
    },
  };
}

/** The JSON:API resources of one member: the member itself and what it includes. */
export function memberResources(member: FakeMember, tiers: FakeTier[], { withHistory = true } = {}) {
  const relationships: Record<string, unknown> = {
    user: { data: { type: "user", id: member.patreonUserId } },
    campaign: { data: { type: "campaign", id: "campaign-1" } },
    currently_entitled_tiers: { data: member.tierIds.map((id) => ({ type: "tier", id })) },
  };
  if (withHistory) relationships.pledge_history = { data: (member.pledgeHistory ?? []).map((event) => ({ type: "pledge-event", id: event.id })) };
  const data: Resource = {
    type: "member",
    id: member.memberId,
    attributes: {
      full_name: member.fullName,
      email: member.email,
      patron_status: member.patronStatus,
      last_charge_status: member.lastChargeStatus === undefined ? (member.patronStatus === "active_patron" ? "Paid" : null) : member.lastChargeStatus,
      last_charge_date: member.lastChargeDate ?? null,
      currently_entitled_amount_cents: Math.max(0, ...member.tierIds.map((id) => tiers.find((tier) => tier.id === id)?.amountCents ?? 0)),
    },
    relationships,
  };
  const included: Resource[] = [
    { type: "user", id: member.patreonUserId, attributes: { full_name: member.fullName, email: member.email } },
    ...member.tierIds.map((id) => tierResource(tiers.find((tier) => tier.id === id) ?? { id, title: `Tier ${id}`, amountCents: 0 })),
    ...(withHistory ? (member.pledgeHistory ?? []).map(pledgeResource) : []),
  ];
  return { data, included };
}

/** A webhook body as the platform sends it for members:* triggers. */
export function memberWebhookBody(member: FakeMember, tiers: FakeTier[]): string {
  const { data, included } = memberResources(member, tiers, { withHistory: Boolean(member.pledgeHistory) });
  return JSON.stringify({ data, included, links: { self: `https://www.patreon.com/api/oauth2/v2/members/${member.memberId}` } });
}

export function signPatreonWebhook(body: string, secret: string): string {
  return createHmac("md5", secret).update(body).digest("hex");
}

export async function startFakePatreonApi(options: FakePatreonOptions = {}): Promise<FakePatreonApi> {
  const members = options.members ?? [];
  const tiers = options.tiers ?? [];
  const campaignId = options.campaignId ?? "campaign-1";
  const creatorToken = options.creatorToken ?? "creator-token";
  const pageSize = options.pageSize ?? 2;
  const userTokens = options.userTokens ?? {};
  const requests: string[] = [];
  const rateLimited = new Map<number, number>();
  let failing: { page: number; status: number } | null = null;

  function send(response: ServerResponse, status: number, body: unknown) {
    response.writeHead(status, { "Content-Type": "application/vnd.api+json" });
    response.end(JSON.stringify(body));
  }

  function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const token = (request.headers.authorization ?? "").replace(/^Bearer /, "");
    const path = url.pathname.replace(/^\/api\/oauth2\/v2/, "");

    if (path === "/identity") {
      const userId = userTokens[token];
      if (!userId) return send(response, 401, { errors: [{ status: "401", title: "Unauthorized" }] });
      const member = members.find((candidate) => candidate.patreonUserId === userId);
      const user: Resource = {
        type: "user",
        id: userId,
        attributes: { full_name: member?.fullName ?? "Fake Patron", email: member?.email ?? `${userId}@patreon.example` },
        relationships: { memberships: { data: member ? [{ type: "member", id: member.memberId }] : [] } },
      };
      const parts = member ? memberResources(member, tiers, { withHistory: Boolean(member.pledgeHistory) }) : null;
      return send(response, 200, { data: user, included: parts ? [parts.data, ...parts.included.filter((r) => r.type !== "user")] : [] });
    }
    if (token !== creatorToken) return send(response, 401, { errors: [{ status: "401", title: "Unauthorized" }] });
    if (path === "/campaigns") {
      return send(response, 200, { data: [{ type: "campaign", id: campaignId, attributes: {} }], meta: { pagination: { total: 1 } } });
    }
    const match = /^\/campaigns\/([^/]+)\/members$/.exec(path);
    if (match && match[1] === campaignId) {
      const cursor = url.searchParams.get("page[cursor]");
      const offset = cursor ? Number(Buffer.from(cursor, "base64url").toString()) : 0;
      const page = Math.floor(offset / pageSize);
      const limited = rateLimited.get(page);
      if (limited !== undefined) {
        rateLimited.delete(page);
        response.setHeader("Retry-After", String(limited));
        return send(response, 429, { errors: [{ code: 1, status: "429", title: "Too Many Requests", retry_after_seconds: limited }] });
      }
      if (failing && failing.page === page) return send(response, failing.status, { errors: [{ status: String(failing.status), title: "Server Error" }] });
      const slice = members.slice(offset, offset + pageSize);
      const docs = slice.map((member) => memberResources(member, tiers));
      const included = new Map<string, Resource>();
      for (const doc of docs) for (const resource of doc.included) included.set(`${resource.type}:${resource.id}`, resource);
      const nextOffset = offset + pageSize;
      const next = nextOffset < members.length ? Buffer.from(String(nextOffset)).toString("base64url") : null;
      const nextUrl = next ? new URL(url.toString()) : null;
      if (nextUrl && next) nextUrl.searchParams.set("page[cursor]", next);
      return send(response, 200, {
        data: docs.map((doc) => doc.data),
        included: [...included.values()],
        links: next ? { next: `${apiUrl}${nextUrl!.pathname.replace(/^\/api\/oauth2\/v2/, "")}${nextUrl!.search}` } : {},
        meta: { pagination: { cursors: { next }, total: members.length } },
      });
    }
    return send(response, 404, { errors: [{ status: "404", title: "Not Found" }] });
  }

  const server = createServer((request, response) => {
    try {
      handle(request, response);
    } catch (error) {
      send(response, 500, { errors: [{ status: "500", detail: String(error) }] });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const apiUrl = `http://127.0.0.1:${port}/api/oauth2/v2`;

  return {
    apiUrl,
    members,
    requests,
    rateLimitPageOnce(page, retryAfterSeconds) {
      rateLimited.set(page, retryAfterSeconds);
    },
    failPage(page, status = 500) {
      failing = page === null ? null : { page, status };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
