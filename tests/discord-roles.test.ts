// Discord roles that follow access (docs/product.md#discord-roles), against the fake Discord REST
// API (tests/fakes/discord.ts): a linked account's roles are in step after each kind of change
// (a support-platform webhook, the members sync, a grant, a release step opening, a lapse, a
// self-delete) after one run of the 20-second job; the hourly reconcile puts back a role removed
// by hand and takes one added by hand; a 429 is honoured (the retry comes no sooner than
// retry_after, by the fake's own clock); a release step's announcement is posted once and names
// only the roles it newly opens to; every change is in the audit log with its reason.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { resetDiscordLimits } from "~/integrations/discord.server";
import type { MemberData } from "~/integrations/patreon.server";
import { updateUserAsAdmin } from "~/models/admin-user-edits.server";
import { deleteOwnAccount } from "~/models/account-deletion.server";
import { loadExplainedViewer, loadExplainedViewers } from "~/models/access.server";
import { accountDiscordRoles, createRoleMapping, reconcileDiscordRoles, runDiscordRoleSync } from "~/models/discord-roles.server";
import { applyMember, applyMemberDelivery } from "~/models/patreon-membership.server";
import { listLibraryPosts } from "~/models/library-listing.server";
import { setReleaseSteps } from "~/models/release.server";
import * as accountRolesRoute from "~/routes/api.account.discord-roles";
import * as loginRoute from "~/routes/login";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";
import { startFakeDiscord, type FakeDiscord } from "./fakes/discord";
import { setEnv } from "./env";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const GOLD = "500000000000000001";
const EARLY = "500000000000000002";
const GRANTED = "500000000000000003";

let discord: FakeDiscord;
let admin: User;
let discordCounter = 0;

function nextDiscordId(): string {
  discordCounter += 1;
  return `70000000000000${String(discordCounter).padStart(4, "0")}`;
}

/** A verified account linked to a Discord member of the fake server. */
async function linkedUser(data: Parameters<typeof createTestUser>[0] = {}): Promise<User & { discordId: string }> {
  const discordId = nextDiscordId();
  discord.addMember(discordId);
  return (await createTestUser({ discordId, ...data })) as User & { discordId: string };
}

function member(patreonUserId: string, tierId: string | null, at: Date): MemberData {
  return {
    memberId: `m-${patreonUserId}`,
    patreonUserId,
    email: null,
    fullName: null,
    patronStatus: tierId ? "active_patron" : "former_patron",
    lastChargeStatus: tierId ? "Paid" : null,
    lastChargeDate: at,
    entitledTiers: tierId ? [{ id: tierId, title: null, amountCents: null }] : [],
    pledgeHistory: null,
  };
}

const run = (now?: Date) => runDiscordRoleSync({ now });

beforeAll(async () => {
  discord = await startFakeDiscord();
  setEnv("DISCORD_BOT_TOKEN", discord.token);
  setEnv("DISCORD_GUILD_ID", discord.guildId);
  setEnv("DISCORD_API_BASE", discord.apiBase);
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
});

afterAll(async () => {
  setEnv("DISCORD_BOT_TOKEN", undefined);
  setEnv("DISCORD_GUILD_ID", undefined);
  setEnv("DISCORD_API_BASE", undefined);
  await discord.stop();
});

beforeEach(async () => {
  resetDiscordLimits();
  await db.discordJob.deleteMany();
  await db.discordRoleState.deleteMany();
  await db.discordRoleMapping.deleteMany();
  // Each case starts with only its own linked accounts.
  await db.user.updateMany({ where: { discordId: { not: null } }, data: { discordId: null } });
  discord.clearLimits();
  discord.requests.length = 0;
  discord.webhookMessages.length = 0;
});

describe("the planner's facts", () => {
  it("are loaded for every linked account in one batch, each the same as the account's own load", async () => {
    const post = await createPost({ tiers: [TIER_2] });
    const supporter = await linkedUser({ currentTierId: TIER_2 });
    const granted = await linkedUser();
    await db.unlockedContent.create({ data: { userId: granted.id, postId: post.id, source: "ADMIN" } });
    const plain = await linkedUser();
    const restricted = await linkedUser({ restricted: true, currentTierId: TIER_3 });
    const users = [supporter, granted, plain, restricted];
    const batch = await loadExplainedViewers(users);
    expect([...batch.keys()]).toEqual(users.map((user) => user.id));
    for (const user of users) expect(batch.get(user.id), user.id).toEqual(await loadExplainedViewer(user));
    expect(batch.get(granted.id)?.unlockedPostIds.has(post.id)).toBe(true);
  });
});

describe("roles in step after each kind of change", () => {
  it("a support-platform webhook gives @Gold, a lapse takes it, both audited with their reasons", async () => {
    await createRoleMapping(admin, { role_id: GOLD, role_name: "@Gold", rule: "TIER_AT_LEAST", tier_id: TIER_2 });
    const user = await linkedUser({ patreonId: "p-webhook" });
    await run();
    expect(discord.roles(user.discordId)).toEqual([]);

    await applyMemberDelivery(member("p-webhook", TIER_3, new Date(Date.now() - 2 * MINUTE)));
    const given = await run();
    expect(given.delivery).toMatchObject({ done: 1 });
    expect(discord.roles(user.discordId)).toEqual([GOLD]);
    const put = discord.requests.find((request) => request.method === "PUT");
    expect(put?.path).toBe(`/guilds/${discord.guildId}/members/${user.discordId}/roles/${GOLD}`);
    expect(put?.reason).toBe("Your Tier 3 membership");
    expect(await accountDiscordRoles(await db.user.findUniqueOrThrow({ where: { id: user.id } }))).toMatchObject({
      roles: [{ sentence: "You have @Gold because: Your Tier 3 membership" }],
    });

    // The page says it too.
    const page = await callRoute(loginRoute, { path: "/login", cookie: await sessionCookie(user.id) });
    expect(JSON.stringify(await page.json())).toContain("You have @Gold because: Your Tier 3 membership");
    // And /api.
    const api = await callRoute(accountRolesRoute, { path: "/api/account/discord-roles", cookie: await sessionCookie(user.id) });
    expect(await api.json()).toMatchObject({ enabled: true, linked: true, roles: [{ roleName: "Gold", reason: "Your Tier 3 membership" }] });

    // A second run changes nothing: the applied state is what is deserved.
    expect(await run()).toMatchObject({ queued: 0 });

    // The pledge ends (a later member document: a lapse).
    await applyMemberDelivery(member("p-webhook", null, new Date(Date.now() - MINUTE)));
    await run();
    expect(discord.roles(user.discordId)).toEqual([]);
    const audit = await db.auditEntry.findMany({ where: { targetId: user.id, action: { startsWith: "discord.role" } }, orderBy: { createdAt: "asc" } });
    expect(audit.map((entry) => [entry.action, (entry.after as { reason: string }).reason])).toEqual([
      ["discord.role.add", "Your Tier 3 membership"],
      ["discord.role.remove", "No longer qualifies for @Gold"],
    ]);
  });

  it("the members sync moving a member below the tier takes the role; a tier below never gets it", async () => {
    await createRoleMapping(admin, { role_id: GOLD, role_name: "Gold", rule: "TIER_AT_LEAST", tier_id: TIER_2 });
    const gold = await linkedUser({ patreonId: "p-sync", currentTierId: TIER_2 });
    const low = await linkedUser({ currentTierId: TIER_1 });
    await run();
    expect(discord.roles(gold.discordId)).toEqual([GOLD]);
    expect(discord.roles(low.discordId)).toEqual([]);
    // The sync applies the member document the platform lists now.
    await applyMember(member("p-sync", TIER_1, new Date()));
    await run();
    expect(discord.roles(gold.discordId)).toEqual([]);
  });

  it("an admin's grant gives the grant role, and taking it back takes the role", async () => {
    const post = await createPost({ tiers: [TIER_3], title: "Granted Pack" });
    await createRoleMapping(admin, { role_id: GRANTED, role_name: "Insider", rule: "HOLDS_GRANT", post_id: post.id });
    const user = await linkedUser();
    await run();
    expect(discord.roles(user.discordId)).toEqual([]);
    await updateUserAsAdmin(admin.id, user.id, { unlocked_content: [post.id] });
    await run();
    expect(discord.roles(user.discordId)).toEqual([GRANTED]);
    expect((await accountDiscordRoles(user)).roles[0]?.sentence).toBe("You have @Insider because: “Granted Pack”: Granted by the creator");
    await updateUserAsAdmin(admin.id, user.id, { unlocked_content: [] });
    await run();
    expect(discord.roles(user.discordId)).toEqual([]);
  });

  it("a release step opening to the member's tier gives the post's role at that instant, not before", async () => {
    const post = await createPost({ tiers: [TIER_3], title: "Cascade Pack", firstPublishedAt: new Date(Date.now() - DAY) });
    await createRoleMapping(admin, { role_id: EARLY, role_name: "Cascade", rule: "OWNS_POST", post_id: post.id });
    const opensAt = new Date(Date.now() + 10 * MINUTE);
    await setReleaseSteps(admin, post.id, { steps: [{ audience: TIER_2, opens_on: opensAt }] });
    const user = await linkedUser({ currentTierId: TIER_2 });
    await run(new Date(opensAt.getTime() - MINUTE));
    expect(discord.roles(user.discordId)).toEqual([]);
    await run(new Date(opensAt.getTime() + 1000));
    expect(discord.roles(user.discordId)).toEqual([EARLY]);
    const state = await db.discordRoleState.findFirstOrThrow({ where: { discordUserId: user.discordId } });
    expect(state.reason).toMatch(/^“Cascade Pack”: Released to Tier 2 on /);
  });

  it("a self-deleted account's roles are removed", async () => {
    await createRoleMapping(admin, { role_id: GOLD, role_name: "Gold", rule: "TIER_AT_LEAST", tier_id: TIER_2 });
    const user = await linkedUser({ currentTierId: TIER_3 });
    await run();
    expect(discord.roles(user.discordId)).toEqual([GOLD]);
    await deleteOwnAccount(user.id, { password: "Password1!" });
    await run();
    expect(discord.roles(user.discordId)).toEqual([]);
    expect(await db.discordRoleState.count({ where: { discordUserId: user.discordId } })).toBe(0);
    const removal = discord.requests.find((request) => request.method === "DELETE");
    expect(removal?.reason).toBe("The account is deleted or no longer linked to this Discord account");
    // Nothing keeps the deleted account's id or its Discord id once the role is gone.
    expect(await db.discordJob.count({ where: { OR: [{ userId: user.id }, { discordUserId: user.discordId }] } })).toBe(0);
    const removed = await db.auditEntry.findFirstOrThrow({ where: { action: "discord.role.remove" }, orderBy: { createdAt: "desc" } });
    expect(JSON.stringify(removed)).not.toContain(user.discordId);
  });
});

describe("the hourly reconcile", () => {
  it("puts back a mapped role removed by hand, and takes one added by hand to an account that does not qualify", async () => {
    await createRoleMapping(admin, { role_id: GOLD, role_name: "Gold", rule: "TIER_AT_LEAST", tier_id: TIER_2 });
    const gold = await linkedUser({ currentTierId: TIER_3 });
    const other = await linkedUser({ currentTierId: null });
    await run();
    expect(discord.roles(gold.discordId)).toEqual([GOLD]);
    // A moderator changes roles by hand; an unmapped role stays untouched.
    discord.setRoles(gold.discordId, ["999"]);
    discord.setRoles(other.discordId, [GOLD]);
    const result = await reconcileDiscordRoles();
    expect(result).toMatchObject({ repaired: 2 });
    expect(discord.roles(gold.discordId)).toEqual([GOLD, "999"].sort());
    expect(discord.roles(other.discordId)).toEqual([]);
    const drift = await db.auditEntry.findMany({ where: { action: "discord.role.drift" } });
    expect(drift).toHaveLength(2);
  });
});

describe("Discord's rate limits", () => {
  it("a 429 is honoured: the retry comes no sooner than retry_after after the 429", async () => {
    await createRoleMapping(admin, { role_id: GOLD, role_name: "Gold", rule: "TIER_AT_LEAST", tier_id: TIER_2 });
    const user = await linkedUser({ currentTierId: TIER_2 });
    discord.rateLimitNext({ retryAfter: 0.4, match: (method) => method === "PUT" });
    await run();
    expect(discord.roles(user.discordId)).toEqual([GOLD]);
    const puts = discord.requests.filter((request) => request.method === "PUT");
    expect(puts.map((request) => request.status)).toEqual([429, 204]);
    expect(puts[1]!.at - puts[0]!.at).toBeGreaterThanOrEqual(400);
  });

  it("a long global limit is handed back to the queue: the job waits for its next attempt instead of retrying at once", async () => {
    await createRoleMapping(admin, { role_id: GOLD, role_name: "Gold", rule: "TIER_AT_LEAST", tier_id: TIER_2 });
    const user = await linkedUser({ currentTierId: TIER_2 });
    discord.rateLimitNext({ retryAfter: 60, global: true });
    const first = await run();
    expect(first.delivery).toMatchObject({ done: 0, retrying: 1 });
    expect(discord.requests.filter((request) => request.method === "PUT")).toHaveLength(1);
    const job = await db.discordJob.findFirstOrThrow({ where: { discordUserId: user.discordId } });
    expect(job.status).toBe("PENDING");
    expect(job.nextAttemptAt.getTime() - discord.requests[0]!.at).toBeGreaterThanOrEqual(59_000);
    // The next run does not ask Discord again before then, and queues no duplicate.
    const second = await run();
    expect(second).toMatchObject({ queued: 0 });
    expect(discord.requests.filter((request) => request.method === "PUT")).toHaveLength(1);
  });
});

describe("release announcements", () => {
  it("posts one announcement per step, mentioning only the mapped roles it newly opens to", async () => {
    await createRoleMapping(admin, { role_id: GOLD, role_name: "Gold", rule: "TIER_AT_LEAST", tier_id: TIER_2 });
    await createRoleMapping(admin, { role_id: EARLY, role_name: "Top", rule: "TIER_AT_LEAST", tier_id: TIER_3 });
    const post = await createPost({ tiers: [TIER_3], title: "Announced Pack", firstPublishedAt: new Date(Date.now() - DAY) });
    const opensAt = new Date(Date.now() + 5 * MINUTE);
    await setReleaseSteps(admin, post.id, { steps: [{ audience: TIER_2, opens_on: opensAt, announce_url: discord.webhookUrl }] });
    await run(new Date(opensAt.getTime() - 1000));
    expect(discord.webhookMessages).toHaveLength(0);
    await run(new Date(opensAt.getTime() + 1000));
    await run(new Date(opensAt.getTime() + 30_000));
    expect(discord.webhookMessages).toHaveLength(1);
    const body = discord.webhookMessages[0]!.body as { content: string; allowed_mentions: { roles: string[]; parse: string[] } };
    // Tier 3 had it already: only @Gold (Tier 2 and above) is new.
    expect(body.allowed_mentions).toEqual({ parse: [], roles: [GOLD] });
    expect(body.content).toContain(`<@&${GOLD}>`);
    expect(body.content).not.toContain(`<@&${EARLY}>`);
    expect(body.content).toContain("“Announced Pack” is now available to Tier 2");
    // The address lets anyone post to the channel: only admins' listings carry it.
    const publicPost = (await listLibraryPosts(null)).posts.find((listed) => listed.postId === post.id);
    expect(publicPost).toBeDefined();
    expect(JSON.stringify(publicPost)).not.toContain("fake-webhook-token");
    const adminPost = (await listLibraryPosts(admin)).posts.find((listed) => listed.postId === post.id);
    expect(adminPost?.release_announce_urls).toEqual([discord.webhookUrl]);
    // Saving the same plan again does not announce the step again.
    await setReleaseSteps(admin, post.id, { steps: [{ audience: TIER_2, opens_on: opensAt, announce_url: discord.webhookUrl }] });
    await run(new Date(opensAt.getTime() + 60_000));
    expect(discord.webhookMessages).toHaveLength(1);
  });
});

describe("the feature is off without its configuration", () => {
  it("does nothing and says so", async () => {
    setEnv("DISCORD_BOT_TOKEN", undefined);
    try {
      await createRoleMapping(admin, { role_id: GOLD, role_name: "Gold", rule: "TIER_AT_LEAST", tier_id: TIER_2 });
      await linkedUser({ currentTierId: TIER_3 });
      expect(await run()).toMatchObject({ skipped: "off" });
      expect(discord.requests).toHaveLength(0);
    } finally {
      setEnv("DISCORD_BOT_TOKEN", discord.token);
    }
  });
});
