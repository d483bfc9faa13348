// Support-platform membership of our users: the current tier and the pledge history, applied
// from the platform's member documents (members sync, webhooks, right after an OAuth link).
// Applying the same document twice changes nothing.
import { db, Prisma } from "~/db.server";
import { env } from "~/env.server";
import { createPatreonClient, parseMember, patreonSignatureValid, type JsonApiDocument, type MemberData, type Sleep } from "~/integrations/patreon.server";
import { DomainError } from "~/models/errors";
import { recomputeUnlocks } from "~/models/unlocks.server";
import { toApiPledgeEvent } from "~/models/user.server";

type Client = Prisma.TransactionClient | typeof db;

/**
 * Where a member's pledge stands. The platform counts only a `Paid` charge as success: a pending
 * one gives no tier yet (the webhook that reports it paid does), and a declined, refunded or
 * other one ends the tier like a pledge that is no longer active. No charge yet (null) is not a
 * failure: the patron status alone decides.
 */
type PledgeStanding = "pending" | "paid" | "ended";

function pledgeStandingOf(member: Pick<MemberData, "patronStatus" | "lastChargeStatus">): PledgeStanding {
  if (member.patronStatus !== "active_patron") return "ended";
  if (member.lastChargeStatus === "Pending") return "pending";
  return member.lastChargeStatus === null || member.lastChargeStatus === "Paid" ? "paid" : "ended";
}

/**
 * Two deliveries about the same instant (same last charge) are ordered by standing: a pending
 * charge becomes paid, and either may end, never the other way round. So a late or replayed
 * delivery cannot take a paid tier back to pending, nor revive an ended pledge.
 */
const STANDING_ORDER: Record<PledgeStanding, number> = { pending: 0, paid: 1, ended: 2 };

/** The tier a member is entitled to now (their highest), or null when not a paid, active patron. */
export function currentTierIdOf(member: Pick<MemberData, "patronStatus" | "lastChargeStatus" | "entitledTiers">): string | null {
  return pledgeStandingOf(member) === "paid" ? (member.entitledTiers[0]?.id ?? null) : null;
}

/**
 * Stores the tiers a member document names, with the platform's title and price, so every tier a
 * member can hold exists here for the admin to give posts. A tier new to us is neither paid nor
 * voting until an admin says so (the known ones come with migration 0030); one whose title was
 * not included keeps what it has.
 */
async function saveTiers(tiers: MemberData["entitledTiers"], client: Client) {
  for (const tier of tiers) {
    const platform = { ...(tier.title ? { title: tier.title } : {}), ...(tier.amountCents !== null ? { amountCents: tier.amountCents } : {}) };
    await client.tier.upsert({
      where: { id: tier.id },
      create: { id: tier.id, title: tier.title ?? `Tier ${tier.id}`, amountCents: tier.amountCents },
      update: platform,
    });
  }
}

/** Stores pledge events by their platform id; a known event is updated in place. */
export async function savePledgeHistory(userId: string, events: NonNullable<MemberData["pledgeHistory"]>, client: Client = db) {
  for (const event of events) {
    const data = {
      userId,
      type: event.type,
      amountCents: event.amountCents,
      date: event.date,
      tierId: event.tierId,
      tierTitle: event.tierTitle,
      paymentStatus: event.paymentStatus,
    };
    await client.pledgeEvent.upsert({ where: { id: event.id }, create: { id: event.id, ...data }, update: data });
  }
}

export type MemberApplied = { userId: string; currentTierId: string | null; changed: boolean } | null;

/**
 * The moment a member document describes: its last charge or its latest pledge event, whichever
 * is later. Null when it carries neither (it cannot be ordered against what is stored).
 */
export function memberStateTime(member: Pick<MemberData, "lastChargeDate" | "pledgeHistory">): Date | null {
  const times = [member.lastChargeDate?.getTime(), ...(member.pledgeHistory ?? []).map((event) => event.date.getTime())].filter(
    (time): time is number => time !== undefined && Number.isFinite(time),
  );
  return times.length > 0 ? new Date(Math.max(...times)) : null;
}

/**
 * Moves the stored state of a platform user forward: to a later moment, or at the same moment to
 * a standing no earlier in STANDING_ORDER. False when the document's moment is older, or when it
 * would take the standing back; then nothing is written. This statement is the one place that
 * decides, so a webhook and a members sync racing each other cannot both win.
 */
async function recordMemberState(patreonUserId: string, at: Date, standing: PledgeStanding, client: Client): Promise<boolean> {
  const written = await client.$executeRaw`
    INSERT INTO patreon_member_states (patreon_user_id, state_at, active, charge_pending, updated_at)
    VALUES (${patreonUserId}, ${at}, ${standing !== "ended"}, ${standing === "pending"}, now())
    ON CONFLICT (patreon_user_id) DO UPDATE SET state_at = EXCLUDED.state_at, active = EXCLUDED.active, charge_pending = EXCLUDED.charge_pending, updated_at = now()
    WHERE patreon_member_states.state_at < EXCLUDED.state_at
       OR (patreon_member_states.state_at = EXCLUDED.state_at
           AND ${STANDING_ORDER[standing]}::int >= CASE WHEN NOT patreon_member_states.active THEN ${STANDING_ORDER.ended}::int
                                                        WHEN patreon_member_states.charge_pending THEN ${STANDING_ORDER.pending}::int
                                                        ELSE ${STANDING_ORDER.paid}::int END)`;
  return written > 0;
}

export type DeliveryOutcome = { matched: boolean; stale?: true };

const MEMBER_TRIGGERS = new Set([
  "members:create",
  "members:update",
  "members:delete",
  "members:pledge:create",
  "members:pledge:update",
  "members:pledge:delete",
]);

export type WebhookAnswer = { ok: true; matched: boolean } | { ok: true; ignored: string };

/**
 * A member webhook delivery: the signature (hex HMAC-MD5 of the raw body) is checked before the
 * body is even parsed (401), then the body must be a member document (400). Unknown triggers are
 * acknowledged so the platform does not queue them forever.
 */
export async function receivePatreonWebhook(delivery: {
  raw: Buffer;
  signature: string | null;
  event: string;
  secret: string | undefined;
}): Promise<WebhookAnswer> {
  if (!patreonSignatureValid(delivery.raw, delivery.signature, delivery.secret)) throw new DomainError(401, "Invalid signature.");
  let document: JsonApiDocument;
  try {
    document = JSON.parse(delivery.raw.toString("utf8")) as JsonApiDocument;
  } catch {
    throw new DomainError(400, "Invalid webhook payload.");
  }
  const resource = Array.isArray(document?.data) ? document.data[0] : document?.data;
  if (!resource || resource.type !== "member") throw new DomainError(400, "Invalid webhook payload.");
  if (!MEMBER_TRIGGERS.has(delivery.event)) return { ok: true, ignored: delivery.event || "missing event" };
  // What happens follows the signed document, not the unsigned event name: a "delete" is a
  // document whose member no longer has an active pledge.
  const outcome = await applyMemberDelivery(parseMember(resource, document.included));
  return outcome.stale ? { ok: true, ignored: "stale" } : { ok: true, matched: outcome.matched };
}

/**
 * A signed webhook delivery. Its effect comes from the member document alone (the event name
 * is not signed), and a document older than the state already applied for that member is
 * ignored: a captured delivery replayed later cannot roll a membership back or revive an ended
 * one. Deliveries of one member are applied one at a time.
 */
export async function applyMemberDelivery(member: MemberData): Promise<DeliveryOutcome> {
  const patreonUserId = member.patreonUserId;
  if (!patreonUserId) return { matched: false };
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext(${`patreon-member:${patreonUserId}`}))`;
    const at = memberStateTime(member);
    // A document with no moment cannot be ordered: it is applied only to a member with no state yet.
    const movesForward =
      at === null
        ? (await tx.patreonMemberState.count({ where: { patreonUserId } })) === 0
        : await recordMemberState(patreonUserId, at, pledgeStandingOf(member), tx);
    if (!movesForward) return { matched: false, stale: true };
    const applied = await applyMemberDocument(member, tx);
    return { matched: applied !== null };
  });
}

/**
 * Applies one member document to the account linked to that platform user; null when no account
 * is linked (the member has not signed in here yet). Rule-5 unlocks are recomputed when the
 * pledge history came with the document.
 */
export async function applyMember(member: MemberData, client: Client = db): Promise<MemberApplied> {
  if (!member.patreonUserId) return null;
  // The members sync moves the stored state forward too, so a replayed webhook cannot undo it.
  const at = memberStateTime(member);
  if (at) await recordMemberState(member.patreonUserId, at, pledgeStandingOf(member), client);
  return applyMemberDocument(member, client);
}

/** The document's tiers, the linked account's current tier and its pledge history. */
async function applyMemberDocument(member: MemberData, client: Client): Promise<MemberApplied> {
  if (!member.patreonUserId) return null;
  await saveTiers(member.entitledTiers, client);
  const user = await client.user.findUnique({ where: { patreonId: member.patreonUserId }, select: { id: true, currentTierId: true } });
  if (!user) return null;
  const currentTierId = currentTierIdOf(member);
  if (currentTierId !== user.currentTierId) {
    await client.user.update({ where: { id: user.id }, data: { currentTierId } });
  }
  if (member.pledgeHistory) {
    await savePledgeHistory(user.id, member.pledgeHistory, client);
    await recomputeUnlocks(user.id, client);
  }
  return { userId: user.id, currentTierId, changed: currentTierId !== user.currentTierId };
}

/** The user's pledge history as the /api layer shows it (spec `pledge_history`), oldest first. */
export async function pledgeHistoryOf(userId: string) {
  const events = await db.pledgeEvent.findMany({ where: { userId }, orderBy: { date: "asc" } });
  return events.map(toApiPledgeEvent);
}

/** How recently an account must have been linked to be picked up by `syncRecentlyLinkedMembers`. */
export const RECENT_LINK_MS = 10 * 60 * 1000;

/**
 * Right after a support-platform sign-in or link: the identity document carries no pledge
 * history (only the creator's members list does), so look up the accounts linked in the last
 * minutes that have no history yet in the campaign's members and apply them, instead of waiting
 * for the next interval run. Does nothing without the creator's token.
 */
export async function syncRecentlyLinkedMembers({ sleep, now = new Date() }: { sleep?: Sleep; now?: Date } = {}): Promise<number> {
  const config = env();
  if (!config.PATREON_CREATOR_ACCESS_TOKEN) return 0;
  const waiting = await db.user.findMany({
    where: { patreonId: { not: null }, updatedAt: { gte: new Date(now.getTime() - RECENT_LINK_MS) }, pledgeEvents: { none: {} } },
    select: { patreonId: true },
  });
  const pending = new Set(waiting.map((user) => user.patreonId!));
  if (pending.size === 0) return 0;
  const client = createPatreonClient({ accessToken: config.PATREON_CREATOR_ACCESS_TOKEN, sleep });
  const campaignId = config.PATREON_CAMPAIGN_ID ?? (await client.firstCampaignId());
  let applied = 0;
  for await (const page of client.memberPages(campaignId)) {
    const found = page.members.filter((member) => member.patreonUserId && pending.has(member.patreonUserId));
    if (found.length > 0) {
      await db.$transaction(async (tx) => {
        for (const member of found) if (await applyMember(member, tx)) applied += 1;
      });
      for (const member of found) pending.delete(member.patreonUserId!);
    }
    if (pending.size === 0) break;
  }
  return applied;
}
