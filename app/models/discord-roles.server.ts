// Discord roles that follow access (docs/product.md#discord-roles, docs/decisions/021-discord-roles.md).
// An admin maps a Discord role to a rule. `deservedRoles` is the one answer to "which mapped roles
// does this account deserve now, and why": it asks the entitlement rule (explainAccess, fed by the
// viewer loader of the downloads) and the viewer's own facts, never restating who has access; a
// reason names a post only when the post-visibility rule lets the account see it.
//
// Nothing else has to call this module when access changes: the "discord-roles" job (every 20 s)
// recomputes every linked account's roles, diffs them against the roles last applied
// (discord_role_state) and queues the differences in discord_jobs, the durable queue of Discord
// calls (claimed FOR UPDATE SKIP LOCKED, retried with backoff, given up after 24 hours, like the
// mail outbox). A self-deleted or unlinked account has no linked user any more, so its applied
// roles are all taken back. The hourly reconcile reads each member's roles from Discord and repairs drift.
import { randomBytes } from "node:crypto";
import { db, Prisma, sqlTimestamp } from "~/db.server";
import { env } from "~/env.server";
import type { DiscordJob, DiscordRoleMapping, User } from "~/generated/prisma/client";
import {
  createDiscordClient,
  DiscordCallError,
  DiscordRateLimited,
  discordConfig,
  type DiscordClient,
  type DiscordConfig,
} from "~/integrations/discord.server";
import { loadExplainedViewer, loadExplainedViewers } from "~/models/access.server";
import { recordAudit } from "~/models/audit.server";
import { toEntitlementPost, withAccess } from "~/models/entitlement.server";
import { DomainError } from "~/models/errors";
import { retryDelayMs } from "~/models/mail-outbox.server";
import { grantWords, tierName } from "~/utils/access-words";
import { DISCORD_MESSAGES, DISCORD_RULE_WORDS, roleMappingSchema, type DiscordRule } from "~/utils/discord-schemas";
import { isPostPublic, isPostVisible } from "~/models/post-visibility.server";
import { explainAccess, tierIdsAt, type EntitlementPost, type EntitlementViewer } from "~/utils/entitlement";
import { audienceTierIds } from "~/utils/release-schemas";
import { log } from "~/logger.server";
import { parseInput } from "~/utils/input-words";

/** A role change or announcement not done within this time is given up (the next diff queues it again if still due). */
export const DISCORD_GIVE_UP_MS = 24 * 60 * 60 * 1000;
/** After a change was given up, the same change is not queued again for this long (a member not in the server, a role the bot may not manage). */
export const DISCORD_GIVEN_UP_PAUSE_MS = 60 * 60 * 1000;
/** A runner's claim lasts this long. */
const CLAIM_MS = 5 * 60 * 1000;
/** Release steps opened longer ago than this are not announced (turning the feature on does not announce the past). */
const ANNOUNCE_WITHIN_MS = 24 * 60 * 60 * 1000;
/** Done and given-up jobs are kept this long for the admin view. */
const KEEP_JOBS_MS = 30 * 24 * 60 * 60 * 1000;
const BATCH = 25;

type Actor = Pick<User, "id">;

// ---------------------------------------------------------------- mappings

export type RoleMappingRow = {
  id: string;
  roleId: string;
  roleName: string;
  rule: DiscordRule;
  ruleWords: string;
  /** The rule's target in words ("Gold", a post's title, a shop item code, an idea's title), or null. */
  target: string | null;
  tierId: string | null;
  postId: string | null;
  shopItem: string | null;
  ideaId: string | null;
  createdAt: string;
};

export async function listRoleMappings(): Promise<RoleMappingRow[]> {
  const mappings = await db.discordRoleMapping.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const [tiers, posts, panels] = await Promise.all([
    db.tier.findMany({ where: { id: { in: mappings.flatMap((m) => (m.tierId ? [m.tierId] : [])) } }, select: { id: true, title: true } }),
    db.post.findMany({ where: { id: { in: mappings.flatMap((m) => (m.postId ? [m.postId] : [])) } }, select: { id: true, title: true } }),
    db.inspirationPanel.findMany({ where: { id: { in: mappings.flatMap((m) => (m.panelId ? [m.panelId] : [])) } }, select: { id: true, title: true } }),
  ]);
  const titles = new Map([...tiers, ...posts].map((row) => [row.id, row.title]));
  const ideas = new Map(panels.map((row) => [row.id, row.title ?? "Untitled idea"]));
  return mappings.map((mapping) => ({
    id: mapping.id,
    roleId: mapping.roleId,
    roleName: mapping.roleName,
    rule: mapping.rule,
    ruleWords: DISCORD_RULE_WORDS[mapping.rule],
    target: mapping.tierId
      ? (titles.get(mapping.tierId) ?? "Unknown Tier")
      : mapping.postId
        ? (titles.get(mapping.postId) ?? "Deleted post")
        : mapping.shopItem
          ? mapping.shopItem
          : mapping.panelId
            ? (ideas.get(mapping.panelId) ?? "Deleted idea")
            : null,
    tierId: mapping.tierId,
    postId: mapping.postId,
    shopItem: mapping.shopItem,
    ideaId: mapping.panelId,
    createdAt: mapping.createdAt.toISOString(),
  }));
}

/** What the admin page's form offers as a rule's target. */
export async function mappingTargets() {
  const [tiers, posts, ideas] = await Promise.all([
    db.tier.findMany({ select: { id: true, title: true }, orderBy: [{ amountCents: "asc" }, { title: "asc" }] }),
    db.post.findMany({ select: { id: true, title: true }, orderBy: { title: "asc" } }),
    db.inspirationPanel.findMany({ select: { id: true, title: true }, orderBy: { createdAt: "desc" } }),
  ]);
  return { tiers, posts, ideas };
}

/** Saves a role mapping (admins; the route checks who may). 400 for bad input, 409 for a role already mapped. */
export async function createRoleMapping(actor: Actor, raw: unknown): Promise<RoleMappingRow> {
  const parsed = parseInput(roleMappingSchema, raw);
  if (!parsed.success) {
    const fields: Record<string, string> = {};
    for (const issue of parsed.error.issues) fields[String(issue.path[0] ?? "form")] ??= issue.message;
    throw new DomainError(400, parsed.error.issues[0]!.message, { fields });
  }
  const input = parsed.data;
  if (input.tierId && !(await db.tier.findUnique({ where: { id: input.tierId }, select: { id: true } })))
    throw new DomainError(400, DISCORD_MESSAGES.unknownTier, { fields: { tier_id: DISCORD_MESSAGES.unknownTier } });
  if (input.postId && !(await db.post.findUnique({ where: { id: input.postId }, select: { id: true } })))
    throw new DomainError(400, DISCORD_MESSAGES.unknownPost, { fields: { post_id: DISCORD_MESSAGES.unknownPost } });
  if (input.panelId && !(await db.inspirationPanel.findUnique({ where: { id: input.panelId }, select: { id: true } })))
    throw new DomainError(400, DISCORD_MESSAGES.unknownIdea, { fields: { idea_id: DISCORD_MESSAGES.unknownIdea } });
  const id = await db.$transaction(async (tx) => {
    const [row] = await tx.discordRoleMapping.createManyAndReturn({ data: [input], skipDuplicates: true, select: { id: true } });
    if (!row) throw new DomainError(409, DISCORD_MESSAGES.roleTaken, { fields: { role_id: DISCORD_MESSAGES.roleTaken } });
    await recordAudit({ actorId: actor.id, action: "discord.mapping.create", targetType: "discord_role", targetId: input.roleId, after: input }, tx);
    return row.id;
  });
  return (await listRoleMappings()).find((row) => row.id === id)!;
}

/** Removes a mapping; the next sync takes its role from the members who had it through it. */
export async function deleteRoleMapping(actor: Actor, id: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const mapping = await tx.discordRoleMapping.findUnique({ where: { id } });
    if (!mapping) throw new DomainError(404, DISCORD_MESSAGES.notFound);
    await tx.discordRoleMapping.delete({ where: { id } });
    await recordAudit({ actorId: actor.id, action: "discord.mapping.delete", targetType: "discord_role", targetId: mapping.roleId, before: mapping }, tx);
  });
}

// ---------------------------------------------------------------- which roles an account deserves

/** What every account's answer needs, loaded once per run. */
export type RoleInputs = {
  mappings: DiscordRoleMapping[];
  tiers: { id: string; title: string; isPaid: boolean; amountCents: number | null }[];
  titles: ReadonlyMap<string, string>;
  /** Posts the rules name, and every paid post (for "any paid access"), in the entitlement rule's shape. */
  posts: Map<string, EntitlementPost & { title: string }>;
  paidPostIds: string[];
  ideaTitles: ReadonlyMap<string, string>;
};

export async function loadRoleInputs(): Promise<RoleInputs> {
  const mappings = await db.discordRoleMapping.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const needsPaid = mappings.some((mapping) => mapping.rule === "ANY_PAID_ACCESS");
  const named = mappings.flatMap((mapping) => (mapping.postId ? [mapping.postId] : []));
  const [tiers, posts, panels] = await Promise.all([
    db.tier.findMany({ select: { id: true, title: true, isPaid: true, amountCents: true } }),
    named.length > 0 || needsPaid
      ? db.post.findMany({
          where: { OR: [{ id: { in: named } }, ...(needsPaid ? [{ paidContent: true }] : [])] },
          include: withAccess,
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        })
      : Promise.resolve([]),
    db.inspirationPanel.findMany({ where: { id: { in: mappings.flatMap((m) => (m.panelId ? [m.panelId] : [])) } }, select: { id: true, title: true } }),
  ]);
  return {
    mappings,
    tiers,
    titles: new Map(tiers.map((tier) => [tier.id, tier.title])),
    posts: new Map(posts.map((post) => [post.id, { ...toEntitlementPost(post), title: post.title }])),
    paidPostIds: posts.filter((post) => post.paidContent).map((post) => post.id),
    ideaTitles: new Map(panels.map((panel) => [panel.id, panel.title ?? "Untitled idea"])),
  };
}

export type DeservedRole = { roleId: string; roleName: string; reason: string };

type RoleAccount = { id: string; isAdmin: boolean; restricted: boolean; currentTierId: string | null };

/**
 * Which mapped roles this account deserves at `now`, and why (in the access explanation's words).
 * The facts are the viewer the downloads load (`loadExplainedViewer`) and the ideas it voted for;
 * post access is the entitlement rule's answer. Roles follow what a supporter has, so an admin's
 * account is judged as the supporter it is (admin mode opens every post, and gives no role). A
 * reason names a post only when that supporter may see it now (the post-visibility rule): the
 * reasons reach the account page, the queue, the audit log and Discord's own audit log.
 */
export function deservedRoles(viewer: EntitlementViewer | null, votedIdeaIds: ReadonlySet<string>, inputs: RoleInputs, now: Date = new Date()): DeservedRole[] {
  if (!viewer || viewer.restricted) return [];
  const supporter: EntitlementViewer = { ...viewer, isAdmin: false };
  const titles = viewer.details?.tierTitles.size ? viewer.details.tierTitles : inputs.titles;
  /** The reason's words, after the post's title when the account may see the post. */
  const about = (post: (EntitlementPost & { title: string }) | undefined, words: string): string =>
    post && isPostVisible(post, supporter, now) ? `“${post.title}”: ${words}` : words;
  const postAccess = (postId: string): string | null => {
    const post = inputs.posts.get(postId);
    if (!post) return null;
    const explanation = explainAccess(post, supporter, now);
    return explanation.allowed && explanation.grant ? about(post, grantWords(explanation.grant, titles)) : null;
  };
  const result: DeservedRole[] = [];
  for (const mapping of inputs.mappings) {
    let reason: string | null = null;
    switch (mapping.rule) {
      case "TIER_AT_LEAST": {
        // "Tier N or higher" is a release step's audience rule: the tier and every paid tier at least as dear.
        const tier = supporter.currentTierId;
        if (tier && mapping.tierId && audienceTierIds(mapping.tierId, inputs.tiers).includes(tier))
          reason = grantWords({ reason: "current-tier", tierId: tier }, titles);
        break;
      }
      case "OWNS_POST":
        reason = mapping.postId ? postAccess(mapping.postId) : null;
        break;
      case "OWNS_SHOP_ITEM":
        if (mapping.shopItem && supporter.purchasedKofiCodes.has(mapping.shopItem)) {
          // Not naming the shop email: reasons are kept in the queue and the audit log.
          reason = grantWords({ reason: "purchase", code: mapping.shopItem, purchase: null }, titles);
        }
        break;
      case "VOTED_FOR_IDEA":
        if (mapping.panelId && votedIdeaIds.has(mapping.panelId))
          reason = `You voted for the idea “${inputs.ideaTitles.get(mapping.panelId) ?? "Untitled idea"}”`;
        break;
      case "HOLDS_GRANT": {
        const held = mapping.postId ? (supporter.unlockedPostIds.has(mapping.postId) ? [mapping.postId] : []) : [...supporter.unlockedPostIds];
        const postId = held[0];
        if (postId) {
          const source = supporter.details?.grantSources.get(postId) ?? null;
          // A post the account may not see (disabled, scheduled) is not named.
          reason = about(inputs.posts.get(postId), grantWords({ reason: "unlocked-content", source, pledgedTierId: null, publishedAt: null }, titles));
        }
        break;
      }
      case "ANY_PAID_ACCESS":
        for (const postId of inputs.paidPostIds) {
          const post = inputs.posts.get(postId)!;
          const explanation = explainAccess(post, supporter, now);
          // Opened to everyone by a step: nobody pays for it any more.
          const grant = explanation.grant;
          if (!explanation.allowed || !grant || grant.reason === "free" || (grant.reason === "release" && grant.tierId === null)) continue;
          reason = about(post, grantWords(grant, titles));
          break;
        }
        break;
    }
    if (reason) result.push({ roleId: mapping.roleId, roleName: mapping.roleName, reason });
  }
  return result;
}

async function votedIdeasOf(userIds: string[], inputs: RoleInputs): Promise<Map<string, Set<string>>> {
  const panelIds = inputs.mappings.flatMap((mapping) => (mapping.panelId ? [mapping.panelId] : []));
  const byUser = new Map<string, Set<string>>();
  if (panelIds.length === 0 || userIds.length === 0) return byUser;
  const rows = await db.inspirationVoter.findMany({ where: { userId: { in: userIds }, panelId: { in: panelIds } }, select: { userId: true, panelId: true } });
  for (const row of rows) {
    let set = byUser.get(row.userId);
    if (!set) byUser.set(row.userId, (set = new Set()));
    set.add(row.panelId);
  }
  return byUser;
}

/** One account's deserved roles now (the account page and the admins' view). */
export async function deservedRolesOf(user: RoleAccount, now: Date = new Date()): Promise<DeservedRole[]> {
  const inputs = await loadRoleInputs();
  if (inputs.mappings.length === 0) return [];
  const [viewer, voted] = await Promise.all([loadExplainedViewer(user), votedIdeasOf([user.id], inputs)]);
  return deservedRoles(viewer, voted.get(user.id) ?? new Set(), inputs, now);
}

export type AccountDiscordRoles = {
  /** DISCORD_BOT_TOKEN and DISCORD_GUILD_ID are set. */
  enabled: boolean;
  linked: boolean;
  /** "You have @Gold because: …", one per deserved role. */
  roles: { roleName: string; reason: string; sentence: string }[];
};

/** The account page's Discord roles: what the linked account deserves now, with the reason. */
export async function accountDiscordRoles(user: RoleAccount & { discordId: string | null }): Promise<AccountDiscordRoles> {
  const enabled = discordConfig() !== null;
  if (!enabled || !user.discordId) return { enabled, linked: Boolean(user.discordId), roles: [] };
  const roles = await deservedRolesOf(user);
  return {
    enabled,
    linked: true,
    roles: roles.map((role) => ({ roleName: role.roleName, reason: role.reason, sentence: `You have @${role.roleName} because: ${role.reason}` })),
  };
}

// ---------------------------------------------------------------- the diff and the queue

export type DiscordSyncRun = {
  skipped: null | "off" | "locked";
  accounts: number;
  queued: number;
  replaced: number;
  announcements: number;
  delivery: DiscordDelivery | null;
};

function jobKey(kind: string, discordUserId: string, roleId: string, now: Date): string {
  return `${kind}:${discordUserId}:${roleId}:${now.getTime()}:${randomBytes(4).toString("hex")}`;
}

/**
 * Recomputes the roles of every linked account (and of every Discord member the site gave roles
 * to whose account is gone or unlinked), queues the differences from what was applied, queues
 * the announcements of release steps that opened, then delivers what is due. One run at a time
 * in the cluster (a transaction advisory lock); a run with the feature off does nothing.
 */
export async function runDiscordRoleSync({ now = new Date(), client }: { now?: Date; client?: DiscordClient } = {}): Promise<DiscordSyncRun> {
  const config = discordConfig();
  const run: DiscordSyncRun = { skipped: null, accounts: 0, queued: 0, replaced: 0, announcements: 0, delivery: null };
  if (!config) return { ...run, skipped: "off" };
  const planned = await db.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('discord-roles')) AS locked`;
      if (!lock?.locked) return { ...run, skipped: "locked" as const };
      const inputs = await loadRoleInputs();
      const [linked, applied, open, pausedRows] = await Promise.all([
        tx.user.findMany({
          where: { discordId: { not: null } },
          select: { id: true, discordId: true, isAdmin: true, restricted: true, currentTierId: true },
          orderBy: { id: "asc" },
        }),
        tx.discordRoleState.findMany(),
        tx.discordJob.findMany({
          where: { status: { in: ["PENDING", "SENDING"] }, kind: { in: ["add", "remove"] } },
          select: { id: true, kind: true, status: true, discordUserId: true, roleId: true },
        }),
        tx.discordJob.findMany({
          where: { status: "GIVEN_UP", kind: { in: ["add", "remove"] }, createdAt: { gt: new Date(now.getTime() - DISCORD_GIVEN_UP_PAUSE_MS) } },
          select: { kind: true, discordUserId: true, roleId: true, lastError: true },
        }),
      ]);
      const voted = await votedIdeasOf(
        linked.map((user) => user.id),
        inputs,
      );
      // What each Discord member should have: linked accounts by their rules, everyone else nothing.
      const desired = new Map<string, { userId: string | null; roles: Map<string, DeservedRole> }>();
      const viewers = inputs.mappings.length > 0 ? await loadExplainedViewers(linked) : new Map<string, null>();
      for (const user of linked) {
        const viewer = viewers.get(user.id) ?? null;
        const roles = deservedRoles(viewer, voted.get(user.id) ?? new Set(), inputs, now);
        desired.set(user.discordId!, { userId: user.id, roles: new Map(roles.map((role) => [role.roleId, role])) });
      }
      const appliedBy = new Map<string, Map<string, (typeof applied)[number]>>();
      for (const row of applied) {
        let roles = appliedBy.get(row.discordUserId);
        if (!roles) appliedBy.set(row.discordUserId, (roles = new Map<string, (typeof applied)[number]>()));
        roles.set(row.roleId, row);
      }
      const openBy = new Map(open.map((job) => [`${job.discordUserId}:${job.roleId}`, job]));
      const paused = new Set(pausedRows.map((job) => `${job.kind}:${job.discordUserId}:${job.roleId}`));
      const members = new Set([...desired.keys(), ...appliedBy.keys(), ...open.flatMap((job) => (job.discordUserId ? [job.discordUserId] : []))]);
      const roleNames = new Map(inputs.mappings.map((mapping) => [mapping.roleId, mapping.roleName]));
      const jobs: Prisma.DiscordJobCreateManyInput[] = [];
      for (const member of members) {
        const want = desired.get(member);
        const has = appliedBy.get(member) ?? new Map<string, (typeof applied)[number]>();
        const roleIds = new Set([
          ...(want?.roles.keys() ?? []),
          ...has.keys(),
          ...open.filter((job) => job.discordUserId === member).map((job) => job.roleId!),
        ]);
        for (const roleId of roleIds) {
          const deserved = want?.roles.get(roleId);
          const pending = openBy.get(`${member}:${roleId}`);
          const believed = pending ? pending.kind === "add" : has.has(roleId);
          if (believed === Boolean(deserved)) continue;
          if (pending) {
            // A change being sent right now: the next run looks again.
            if (pending.status === "SENDING") continue;
            await tx.discordJob.updateMany({
              where: { id: pending.id, status: "PENDING" },
              data: { status: "GIVEN_UP", lastError: "Replaced by a newer change.", claimToken: null, claimedUntil: null },
            });
            run.replaced += 1;
            if (has.has(roleId) === Boolean(deserved)) continue;
          }
          const kind = deserved ? "add" : "remove";
          if (paused.has(`${kind}:${member}:${roleId}`)) continue;
          const name = roleNames.get(roleId) ?? has.get(roleId)?.reason ?? roleId;
          const reason = deserved
            ? deserved.reason
            : !want
              ? "The account is deleted or no longer linked to this Discord account"
              : !roleNames.has(roleId)
                ? "The role is no longer mapped"
                : `No longer qualifies for @${name}`;
          jobs.push({
            idempotencyKey: jobKey(kind, member, roleId, now),
            kind,
            discordUserId: member,
            roleId,
            userId: want?.userId ?? has.get(roleId)?.userId ?? null,
            reason,
            nextAttemptAt: now,
            giveUpAt: new Date(now.getTime() + DISCORD_GIVE_UP_MS),
            createdAt: now,
          });
        }
      }
      if (jobs.length > 0) await tx.discordJob.createMany({ data: jobs, skipDuplicates: true });
      const announcements = await queueAnnouncements(tx, inputs, now);
      return { ...run, accounts: linked.length, queued: jobs.length, announcements };
    },
    { timeout: 5 * 60_000, maxWait: 10_000 },
  );
  if (planned.skipped) return planned;
  const delivery = await deliverDiscordJobs({ now, client: client ?? createDiscordClient(config), config });
  return { ...planned, delivery };
}

/**
 * Queues one announcement per release step that opened in the last day and carries a channel
 * webhook address, mentioning the mapped tier roles the step newly opens the post to. The key
 * names the post, the step and its instant, so a step is announced once however often this runs.
 */
async function queueAnnouncements(tx: Prisma.TransactionClient, inputs: RoleInputs, now: Date): Promise<number> {
  const steps = await tx.releaseStep.findMany({
    where: { announceUrl: { not: null }, opensAt: { lte: now, gt: new Date(now.getTime() - ANNOUNCE_WITHIN_MS) } },
    select: { postId: true, position: true, opensAt: true, announceUrl: true, audienceTierId: true, post: { include: withAccess } },
  });
  let queued = 0;
  for (const step of steps) {
    const post = toEntitlementPost(step.post);
    // Not announced while a guest may not see it: a channel's readers are anyone.
    if (!isPostPublic(post, now)) continue;
    const before = new Set(tierIdsAt(post, new Date(step.opensAt.getTime() - 1)));
    const after = tierIdsAt(post, step.opensAt);
    const wasFree = !post.paidContent || post.releaseSteps.some((other) => other.tierIds === null && other.opensAt < step.opensAt);
    const everyone = step.audienceTierId === null;
    const opened = new Set(after.filter((id) => !before.has(id)));
    const roles = wasFree
      ? []
      : inputs.mappings.filter((mapping) => {
          if (mapping.rule !== "TIER_AT_LEAST" || !mapping.tierId) return false;
          const reach = audienceTierIds(mapping.tierId, inputs.tiers);
          // A role whose members could all download it already is not told again.
          return everyone ? reach.some((id) => !before.has(id)) : reach.some((id) => opened.has(id));
        });
    const mentions = roles.map((mapping) => `<@&${mapping.roleId}>`).join(" ");
    const address = `${env().APP_URL}/library/${step.postId}`;
    const audience = everyone ? "everyone" : step.audienceTierId ? tierName(step.audienceTierId, inputs.titles) : "everyone";
    const content = `${mentions ? `${mentions} ` : ""}“${step.post.title}” is now available to ${audience}: ${address}`.slice(0, 2000);
    const [row] = await tx.discordJob.createManyAndReturn({
      data: [
        {
          idempotencyKey: `announce:${step.postId}:${step.position}:${step.opensAt.getTime()}`,
          kind: "announce",
          reason: `Release step ${step.position + 1} of “${step.post.title}” opened`,
          webhookUrl: step.announceUrl,
          // Only the mapped roles may ping: never @everyone, never a user.
          payload: { content, allowed_mentions: { parse: [], roles: roles.map((mapping) => mapping.roleId) } },
          nextAttemptAt: now,
          giveUpAt: new Date(now.getTime() + DISCORD_GIVE_UP_MS),
          createdAt: now,
          postId: step.postId,
        },
      ],
      skipDuplicates: true,
      select: { id: true },
    });
    if (row) queued += 1;
  }
  return queued;
}

export type DiscordDelivery = { done: number; retrying: number; givenUp: number };

async function claim(token: string, now: Date, limit: number): Promise<DiscordJob[]> {
  const claimed = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE discord_jobs SET status = 'SENDING', claim_token = $1, claimed_until = $3::timestamp(3), attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM discord_jobs
       WHERE give_up_at > $2::timestamp(3)
         AND ((status = 'PENDING' AND next_attempt_at <= $2::timestamp(3)) OR (status = 'SENDING' AND claimed_until <= $2::timestamp(3)))
       ORDER BY next_attempt_at, created_at
       LIMIT $4
       FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    token,
    sqlTimestamp(now),
    sqlTimestamp(new Date(now.getTime() + CLAIM_MS)),
    limit,
  );
  if (claimed.length === 0) return [];
  return db.discordJob.findMany({
    where: { id: { in: claimed.map((row) => row.id) }, claimToken: token },
    orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }],
  });
}

async function roleNameOf(roleId: string | null): Promise<string | null> {
  if (!roleId) return null;
  return (await db.discordRoleMapping.findUnique({ where: { roleId }, select: { roleName: true } }))?.roleName ?? null;
}

/** Records a done job: the applied state, the audit entry with its reason, and the job's end, in one transaction. */
async function settleDone(job: DiscordJob, token: string, now: Date): Promise<void> {
  const roleName = await roleNameOf(job.roleId);
  await db.$transaction(async (tx) => {
    const { count } = await tx.discordJob.updateMany({
      where: { id: job.id, claimToken: token, status: "SENDING" },
      data: { status: "DONE", doneAt: now, claimToken: null, claimedUntil: null },
    });
    if (count === 0) return;
    if (job.kind === "add") {
      await tx.discordRoleState.upsert({
        where: { discordUserId_roleId: { discordUserId: job.discordUserId!, roleId: job.roleId! } },
        create: { discordUserId: job.discordUserId!, roleId: job.roleId!, userId: job.userId, reason: job.reason, appliedAt: now },
        update: { userId: job.userId, reason: job.reason, appliedAt: now },
      });
    } else if (job.kind === "remove") {
      await tx.discordRoleState.deleteMany({ where: { discordUserId: job.discordUserId!, roleId: job.roleId! } });
      // Done for an account that is gone: the Discord member's id is not kept either.
      if (!job.userId)
        await tx.discordJob.updateMany({
          where: { discordUserId: job.discordUserId, userId: null, status: { in: ["DONE", "GIVEN_UP"] } },
          data: { discordUserId: null },
        });
    }
    const action = job.kind === "add" ? "discord.role.add" : job.kind === "remove" ? "discord.role.remove" : "discord.announce";
    await recordAudit(
      {
        actorId: null,
        action,
        targetType: job.kind === "announce" ? "post" : "user",
        targetId: job.kind === "announce" ? job.postId : job.userId,
        after:
          job.kind === "announce"
            ? { reason: job.reason, roles: (job.payload as { allowed_mentions?: { roles?: string[] } } | null)?.allowed_mentions?.roles ?? [] }
            : // A deleted account's Discord member is not kept: only which role went and why.
              { roleId: job.roleId, roleName, ...(job.userId ? { discordUserId: job.discordUserId } : {}), reason: job.reason },
      },
      tx,
    );
  });
}

async function settleFailed(job: DiscordJob, token: string, error: unknown, now: Date): Promise<"retrying" | "givenUp"> {
  const mine = { id: job.id, claimToken: token, status: "SENDING" as const };
  const text = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  if (error instanceof DiscordRateLimited) {
    // Not the job's fault: the same attempt again once the limit has passed.
    await db.discordJob.updateMany({
      where: mine,
      data: {
        status: "PENDING",
        attempts: { decrement: 1 },
        nextAttemptAt: new Date(now.getTime() + error.retryAfterMs),
        lastError: text,
        claimToken: null,
        claimedUntil: null,
      },
    });
    return "retrying";
  }
  if (error instanceof DiscordCallError && error.forGood) {
    await db.discordJob.updateMany({ where: mine, data: { status: "GIVEN_UP", lastError: text, claimToken: null, claimedUntil: null } });
    return "givenUp";
  }
  await db.discordJob.updateMany({
    where: mine,
    data: { status: "PENDING", nextAttemptAt: new Date(now.getTime() + retryDelayMs(job.attempts)), lastError: text, claimToken: null, claimedUntil: null },
  });
  return "retrying";
}

/** Claims and performs due jobs in batches until none is due; stops a pass early while Discord rate-limits for long. */
export async function deliverDiscordJobs({
  now,
  client,
  config = discordConfig(),
}: { now?: Date; client?: DiscordClient; config?: DiscordConfig | null } = {}): Promise<DiscordDelivery> {
  const result: DiscordDelivery = { done: 0, retrying: 0, givenUp: 0 };
  if (!config) return result;
  const api = client ?? createDiscordClient(config);
  const clock = () => now ?? new Date();
  const expired = await db.discordJob.updateMany({
    where: { giveUpAt: { lte: clock() }, OR: [{ status: "PENDING" }, { status: "SENDING", claimedUntil: { lte: clock() } }] },
    data: { status: "GIVEN_UP", lastError: "Not done before its give-up time.", claimToken: null, claimedUntil: null },
  });
  result.givenUp += expired.count;
  const token = randomBytes(12).toString("hex");
  for (let round = 0; round < 40; round++) {
    const batch = await claim(token, clock(), BATCH);
    if (batch.length === 0) break;
    let limited: DiscordRateLimited | null = null;
    for (const job of batch) {
      if (limited) {
        await settleFailed(job, token, limited, clock());
        result.retrying += 1;
        continue;
      }
      try {
        if (job.kind === "add") await api.addRole(job.discordUserId!, job.roleId!, job.reason);
        else if (job.kind === "remove") await api.removeRole(job.discordUserId!, job.roleId!, job.reason);
        else await api.postWebhook(job.webhookUrl!, job.payload);
      } catch (error) {
        const outcome = await settleFailed(job, token, error, clock());
        result[outcome] += 1;
        if (error instanceof DiscordRateLimited && error.global) limited = error;
        continue;
      }
      await settleDone(job, token, clock());
      result.done += 1;
    }
    if (limited) break;
  }
  return result;
}

// ---------------------------------------------------------------- the hourly reconcile

export type DiscordReconcile = { skipped: null | "off"; members: number; repaired: number; sync: DiscordSyncRun | null };

/**
 * Reads each linked member's roles from Discord and makes the applied state what Discord holds
 * (for mapped roles), then runs the sync, which queues what repairs the drift: a mapped role
 * removed by hand comes back to an account that deserves it; one added by hand to an account
 * that does not is taken. Members with a change in the queue are left to it.
 */
export async function reconcileDiscordRoles({ now = new Date(), client }: { now?: Date; client?: DiscordClient } = {}): Promise<DiscordReconcile> {
  const config = discordConfig();
  if (!config) return { skipped: "off", members: 0, repaired: 0, sync: null };
  const api = client ?? createDiscordClient(config);
  const [mappings, linked, applied, open] = await Promise.all([
    db.discordRoleMapping.findMany({ select: { roleId: true, roleName: true } }),
    db.user.findMany({ where: { discordId: { not: null } }, select: { id: true, discordId: true } }),
    db.discordRoleState.findMany(),
    db.discordJob.findMany({ where: { status: { in: ["PENDING", "SENDING"] }, kind: { in: ["add", "remove"] } }, select: { discordUserId: true } }),
  ]);
  const busy = new Set(open.map((job) => job.discordUserId));
  const userOf = new Map(linked.map((user) => [user.discordId!, user.id]));
  const mapped = new Map(mappings.map((mapping) => [mapping.roleId, mapping.roleName]));
  const members = new Set([...userOf.keys(), ...applied.map((row) => row.discordUserId)]);
  let repaired = 0;
  let seen = 0;
  for (const member of members) {
    if (busy.has(member)) continue;
    let actual: string[] | null;
    try {
      actual = (await api.getMember(member))?.roles ?? [];
    } catch (error) {
      log().warn({ member }, `discord reconcile: reading member ${member} failed: ${error instanceof Error ? error.message : String(error)}`);
      if (error instanceof DiscordRateLimited) break;
      continue;
    }
    seen += 1;
    const has = new Set(actual);
    const recorded = new Map(applied.filter((row) => row.discordUserId === member).map((row) => [row.roleId, row]));
    const userId = userOf.get(member) ?? null;
    for (const [roleId, roleName] of mapped) {
      const found = has.has(roleId);
      if (found === recorded.has(roleId)) continue;
      repaired += 1;
      await db.$transaction(async (tx) => {
        if (found)
          await tx.discordRoleState.create({ data: { discordUserId: member, roleId, userId, reason: "Found on Discord by the reconcile", appliedAt: now } });
        else await tx.discordRoleState.deleteMany({ where: { discordUserId: member, roleId } });
        await recordAudit(
          {
            actorId: null,
            action: "discord.role.drift",
            targetType: "user",
            targetId: userId,
            after: { roleId, roleName, discordUserId: member, reason: found ? "Added on Discord by hand" : "Removed on Discord by hand", onDiscord: found },
          },
          tx,
        );
      });
    }
  }
  const sync = await runDiscordRoleSync({ now, client: api });
  return { skipped: null, members: seen, repaired, sync };
}

// ---------------------------------------------------------------- housekeeping and the admins' view

/** Deletes done and given-up jobs older than 30 days. */
export async function pruneDiscordJobs(now = new Date()): Promise<number> {
  const { count } = await db.discordJob.deleteMany({
    where: { status: { in: ["DONE", "GIVEN_UP"] }, createdAt: { lt: new Date(now.getTime() - KEEP_JOBS_MS) } },
  });
  return count;
}

export type DiscordJobRow = {
  id: string;
  kind: string;
  roleId: string | null;
  discordUserId: string | null;
  reason: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
};

export type DiscordOverview = {
  enabled: boolean;
  guildId: string | null;
  mappings: RoleMappingRow[];
  /** Accounts with a linked Discord account. */
  linkedAccounts: number;
  /** Members holding each mapped role as last applied. */
  holders: Record<string, number>;
  queue: { pending: number; givenUp: number; recent: DiscordJobRow[] };
};

export async function discordOverview(): Promise<DiscordOverview> {
  const config = discordConfig();
  const [mappings, linkedAccounts, holders, pending, givenUp, recent] = await Promise.all([
    listRoleMappings(),
    db.user.count({ where: { discordId: { not: null } } }),
    db.discordRoleState.groupBy({ by: ["roleId"], _count: { _all: true } }),
    db.discordJob.count({ where: { status: { in: ["PENDING", "SENDING"] } } }),
    db.discordJob.count({ where: { status: "GIVEN_UP" } }),
    db.discordJob.findMany({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 25 }),
  ]);
  return {
    enabled: config !== null,
    guildId: config?.guildId ?? null,
    mappings,
    linkedAccounts,
    holders: Object.fromEntries(holders.map((row) => [row.roleId, row._count._all])),
    queue: {
      pending,
      givenUp,
      recent: recent.map((job) => ({
        id: job.id,
        kind: job.kind,
        roleId: job.roleId,
        discordUserId: job.discordUserId,
        reason: job.reason,
        status: job.status,
        attempts: job.attempts,
        lastError: job.lastError,
        createdAt: job.createdAt.toISOString(),
        nextAttemptAt: job.status === "PENDING" ? job.nextAttemptAt.toISOString() : null,
      })),
    },
  };
}
