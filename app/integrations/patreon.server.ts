// The support platform (Patreon API v2): JSON:API documents parsed into plain members, the
// creator's member pages (cursor pagination, rate-limit aware), the user identity, and webhook
// signatures. Every address comes from PATREON_API_URL, so tests and the demo use a local fake.
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "~/env.server";

export type PledgeEventData = {
  id: string;
  type: string;
  date: Date;
  amountCents: number;
  currencyCode: string | null;
  paymentStatus: string | null;
  tierId: string | null;
  tierTitle: string | null;
};

export type MemberData = {
  memberId: string | null;
  /** The platform's user id (our User.patreonId). */
  patreonUserId: string | null;
  email: string | null;
  fullName: string | null;
  patronStatus: string | null;
  lastChargeStatus: string | null;
  /** When the platform last charged this member (orders deliveries of the member's state). */
  lastChargeDate: Date | null;
  /** Entitled tiers, highest amount first. */
  entitledTiers: { id: string; title: string | null; amountCents: number | null }[];
  /** Present only when the document included pledge history. */
  pledgeHistory: PledgeEventData[] | null;
};

type ResourceRef = { type: string; id: string };
type Resource = {
  type: string;
  id: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: ResourceRef | ResourceRef[] | null } | undefined>;
};
export type JsonApiDocument = {
  data: Resource | Resource[];
  included?: Resource[];
  links?: { next?: string | null };
  meta?: { pagination?: { cursors?: { next?: string | null }; total?: number } };
};

export class PatreonApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function str(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}
function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function refs(resource: Resource, name: string): ResourceRef[] {
  const data = resource.relationships?.[name]?.data;
  if (!data) return [];
  return Array.isArray(data) ? data : [data];
}

function indexIncluded(included: Resource[] | undefined) {
  const map = new Map<string, Resource>();
  for (const resource of included ?? []) map.set(`${resource.type}:${resource.id}`, resource);
  return (ref: ResourceRef) => map.get(`${ref.type}:${ref.id}`);
}

function dateOf(value: unknown): Date | null {
  const date = typeof value === "string" ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

function parsePledgeEvent(resource: Resource): PledgeEventData | null {
  const a = resource.attributes ?? {};
  const date = str(a.date) ? new Date(a.date as string) : null;
  if (!date || Number.isNaN(date.getTime())) return null;
  const tierRef = refs(resource, "tier")[0];
  return {
    id: resource.id,
    type: str(a.type) ?? resource.id.split(":")[0] ?? "unknown",
    date,
    amountCents: num(a.amount_cents) ?? 0,
    currencyCode: str(a.currency_code),
    paymentStatus: str(a.payment_status),
    tierId: str(a.tier_id) ?? tierRef?.id ?? null,
    tierTitle: str(a.tier_title),
  };
}

/** One `member` resource, joined with the document's `included` resources. */
export function parseMember(resource: Resource, included: Resource[] | undefined): MemberData {
  const find = indexIncluded(included);
  const a = resource.attributes ?? {};
  const userRef = refs(resource, "user")[0];
  const user = userRef ? find(userRef) : undefined;
  const entitledTiers = refs(resource, "currently_entitled_tiers")
    .map((ref) => {
      const tier = find(ref);
      return { id: ref.id, title: str(tier?.attributes?.title), amountCents: num(tier?.attributes?.amount_cents) };
    })
    .sort((x, y) => (y.amountCents ?? -1) - (x.amountCents ?? -1));
  const historyRelation = resource.relationships?.pledge_history;
  const pledgeHistory = historyRelation
    ? refs(resource, "pledge_history")
        .map((ref) => find(ref))
        .filter((event): event is Resource => Boolean(event))
        .map(parsePledgeEvent)
        .filter((event): event is PledgeEventData => event !== null)
    : null;
  return {
    memberId: resource.type === "member" ? resource.id : null,
    patreonUserId: userRef?.id ?? null,
    email: str(a.email) ?? str(user?.attributes?.email),
    fullName: str(a.full_name) ?? str(user?.attributes?.full_name),
    patronStatus: str(a.patron_status),
    lastChargeStatus: str(a.last_charge_status),
    lastChargeDate: dateOf(a.last_charge_date),
    entitledTiers,
    pledgeHistory,
  };
}

export type IdentityData = {
  patreonUserId: string;
  email: string | null;
  fullName: string | null;
  /** The membership in the creator's campaign (or the first one), if any. */
  membership: MemberData | null;
};

/** The identity document (`/identity?include=memberships,...`) of a user token. */
export function parseIdentity(document: JsonApiDocument, campaignId?: string | null): IdentityData {
  const user = Array.isArray(document.data) ? document.data[0] : document.data;
  if (!user || user.type !== "user") throw new PatreonApiError("identity document has no user", 502);
  const find = indexIncluded(document.included);
  const memberships = refs(user, "memberships")
    .map((ref) => find(ref))
    .filter((member): member is Resource => Boolean(member));
  const chosen = memberships.find((member) => !campaignId || refs(member, "campaign")[0]?.id === campaignId) ?? (campaignId ? undefined : memberships[0]);
  const membership = chosen
    ? { ...parseMember({ ...chosen, relationships: { ...chosen.relationships, user: { data: { type: "user", id: user.id } } } }, document.included) }
    : null;
  return {
    patreonUserId: user.id,
    email: str(user.attributes?.email),
    fullName: str(user.attributes?.full_name),
    membership,
  };
}

// ---------------------------------------------------------------- HTTP

const MEMBER_FIELDS = {
  include: "currently_entitled_tiers,user,pledge_history",
  "fields[member]": "full_name,email,patron_status,currently_entitled_amount_cents,last_charge_status,last_charge_date,pledge_relationship_start",
  "fields[user]": "full_name,email",
  "fields[tier]": "title,amount_cents",
  "fields[pledge-event]": "type,date,amount_cents,currency_code,payment_status,tier_id,tier_title",
};

export type Sleep = (ms: number) => Promise<void>;
const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export type PatreonClientOptions = {
  accessToken: string;
  apiUrl?: string;
  sleep?: Sleep;
  /** How often one request is retried after a 429 before giving up. */
  maxRetries?: number;
  /** Longest wait honoured for one retry_after (longer waits fail the request). */
  maxRetryWaitMs?: number;
  fetchImpl?: typeof fetch;
};

/** Seconds to wait from a 429: `errors[].retry_after_seconds`, else Retry-After, else 2. */
async function retryAfterSeconds(response: Response): Promise<number> {
  try {
    const body = (await response.json()) as { errors?: { retry_after_seconds?: number }[] };
    const fromBody = body.errors?.map((error) => error.retry_after_seconds).find((value) => typeof value === "number");
    if (typeof fromBody === "number" && fromBody >= 0) return fromBody;
  } catch {
    // No JSON body: fall back to the header.
  }
  const header = Number(response.headers.get("Retry-After"));
  return Number.isFinite(header) && header >= 0 ? header : 2;
}

export function createPatreonClient(options: PatreonClientOptions) {
  const apiUrl = (options.apiUrl ?? env().PATREON_API_URL).replace(/\/$/, "");
  const sleep = options.sleep ?? realSleep;
  const maxRetries = options.maxRetries ?? 5;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 5 * 60 * 1000;
  const doFetch = options.fetchImpl ?? fetch;
  let retries = 0;

  async function get(pathOrUrl: string, query?: Record<string, string>): Promise<JsonApiDocument> {
    const url = pathOrUrl.startsWith("http") ? new URL(pathOrUrl) : new URL(`${apiUrl}${pathOrUrl}`);
    // A `links.next` must stay on the configured API host: never send the token elsewhere.
    if (url.origin !== new URL(apiUrl).origin) throw new PatreonApiError(`refusing to follow ${url.origin}`, 502);
    for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, value);
    for (let attempt = 0; ; attempt++) {
      const response = await doFetch(url, {
        headers: { Authorization: `Bearer ${options.accessToken}`, Accept: "application/vnd.api+json, application/json" },
        signal: AbortSignal.timeout(30_000),
      });
      if (response.status === 429 && attempt < maxRetries) {
        const waitMs = (await retryAfterSeconds(response)) * 1000;
        if (waitMs > maxRetryWaitMs) throw new PatreonApiError(`rate limited for ${waitMs / 1000} s`, 429);
        retries += 1;
        await sleep(waitMs);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new PatreonApiError(`GET ${url.pathname} answered ${response.status}`, response.status);
      }
      return (await response.json()) as JsonApiDocument;
    }
  }

  return {
    get retries() {
      return retries;
    },
    async identity(): Promise<JsonApiDocument> {
      return get("/identity", {
        include: "memberships,memberships.currently_entitled_tiers,memberships.campaign",
        "fields[user]": "full_name,email",
        "fields[member]": MEMBER_FIELDS["fields[member]"],
        "fields[tier]": "title,amount_cents",
      });
    },
    async firstCampaignId(): Promise<string> {
      const document = await get("/campaigns");
      const campaigns = Array.isArray(document.data) ? document.data : [document.data];
      const first = campaigns[0];
      if (!first) throw new PatreonApiError("the creator token has no campaign", 502);
      return first.id;
    },
    /** Pages of the campaign's members, each already parsed; follows the cursor until none. */
    async *memberPages(campaignId: string, startCursor?: string): AsyncGenerator<{ members: MemberData[]; cursor: string | null }> {
      let cursor: string | null = startCursor ?? null;
      let next: string | null = null;
      for (;;) {
        const query: Record<string, string> = { ...MEMBER_FIELDS, "page[count]": "500" };
        if (cursor) query["page[cursor]"] = cursor;
        const document: JsonApiDocument = next ? await get(next) : await get(`/campaigns/${encodeURIComponent(campaignId)}/members`, query);
        const resources = Array.isArray(document.data) ? document.data : [document.data];
        const members = resources.filter((resource) => resource.type === "member").map((resource) => parseMember(resource, document.included));
        yield { members, cursor };
        const nextCursor = document.meta?.pagination?.cursors?.next ?? null;
        const nextLink = document.links?.next ?? null;
        if (!nextCursor && !nextLink) return;
        cursor = nextCursor;
        // Prefer the cursor on our own URL (keeps our fields); the link is the fallback.
        next = nextCursor ? null : nextLink;
      }
    },
  };
}

// ---------------------------------------------------------------- webhooks

/** X-Patreon-Signature: hex HMAC-MD5 of the raw body with the webhook secret, compared in constant time. */
export function patreonSignatureValid(rawBody: Buffer | string, signature: string | null, secret: string | undefined): boolean {
  if (!secret || !signature || !/^[0-9a-f]{32}$/i.test(signature.trim())) return false;
  const expected = createHmac("md5", secret).update(rawBody).digest();
  const given = Buffer.from(signature.trim(), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
