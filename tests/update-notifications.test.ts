// The private Atom feed, the opt-in digest mails (through the real SMTP
// capture) and the one-click unsubscribe, against the real database.
import type { AddressInfo } from "node:net";
import express from "express";
import { parse as parseXml, validate as validateXml } from "fast-xml-parser";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { deliverDueMail } from "~/models/mail-outbox.server";
import { DIGEST_SUBJECT, runUpdateDigests } from "~/models/update-digest.server";
import { regenerateFeedToken, saveUpdatePreferences, UPDATE_MESSAGES } from "~/models/update-notifications.server";
import * as accountPage from "~/routes/account.notifications";
import * as feedRoute from "~/routes/feeds.$token[.]atom";
import * as unsubscribeRoute from "~/routes/unsubscribe.$token";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2, TIER_3 } from "./library-fixtures";
import { setEnv } from "./env";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();
const MINUTE = 60_000;

/** fast-xml-parser 3 leaves entities as written; these are the only ones the feed uses. */
function decodeXml(value: string): string {
  return value.replace(/&(lt|gt|quot|apos|amp);/g, (_match, name: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[name]!);
}

async function addVersion(postId: string, label: string, createdAt: Date, notes = "", hidden = false) {
  return db.postVersion.create({
    data: { postId, label, notes, createdAt, hidden, storageKey: `posts/${postId}/${label}.zip`, fileName: `${label}.zip`, size: 10n },
  });
}

function tokenOf(url: string): string {
  const match = /\/feeds\/([A-Za-z0-9_-]{43})\.atom$/.exec(url);
  if (!match) throw new Error(`not a feed address: ${url}`);
  return match[1]!;
}

const getFeed = (token: string) => callRoute(feedRoute, { path: `/feeds/${token}.atom`, params: { token } });

type AtomLink = { "@_rel"?: string; "@_href": string };
type AtomEntry = { id: string; title: string; updated: string; link: AtomLink; content: string };

function parseFeed(xml: string) {
  expect(validateXml(xml)).toBe(true);
  const document = parseXml(xml, {
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    parseNodeValue: false,
    textNodeName: "#text",
    arrayMode: (name: string) => name === "entry" || name === "link",
  });
  const feed = document.feed as {
    "@_xmlns": string;
    id: string;
    title: string;
    updated: string;
    link: AtomLink[];
    author: { name: string };
    entry?: (Omit<AtomEntry, "link" | "title" | "content"> & { link: AtomLink[]; title: { "#text": string }; content: { "#text"?: string } })[];
  };
  expect(feed["@_xmlns"]).toBe("http://www.w3.org/2005/Atom");
  const isDate = (value: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value);
  expect(feed.id).toBeTruthy();
  expect(feed.title).toBeTruthy();
  expect(isDate(feed.updated)).toBe(true);
  expect(feed.author.name).toBeTruthy();
  const entries = (feed.entry ?? []).map((entry) => ({
    id: entry.id,
    title: decodeXml(entry.title["#text"]),
    updated: entry.updated,
    link: entry.link[0]!,
    content: decodeXml(entry.content["#text"] ?? ""),
  }));
  for (const entry of entries) {
    expect(entry.id).toMatch(/^tag:/);
    expect(isDate(entry.updated)).toBe(true);
    expect(entry.link["@_href"]).toMatch(/^http:\/\/localhost:3999\/library\?search=/);
  }
  expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
  return { feed, self: feed.link.find((link) => link["@_rel"] === "self")?.["@_href"], entries };
}

describe("private Atom feed", () => {
  let member: User;
  let owned: Awaited<ReturnType<typeof createPost>>;
  let other: Awaited<ReturnType<typeof createPost>>;
  let fresh: Awaited<ReturnType<typeof createPost>>;
  let hiddenPost: Awaited<ReturnType<typeof createPost>>;

  beforeAll(async () => {
    await createTiers();
    member = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const day = 24 * 60 * MINUTE;
    owned = await createPost({ title: "Hats & <Shoes>", tiers: [TIER_2], firstPublishedAt: new Date(Date.now() - 10 * day) });
    await addVersion(owned.id, "V1.0", new Date(Date.now() - 10 * day), "first");
    await addVersion(owned.id, "V1.1", new Date(Date.now() - 2 * day), 'Fixed <b>hats</b> & "shoes"\nSecond line');
    await addVersion(owned.id, "V1.2-hidden", new Date(Date.now() - 1 * day), "hidden notes", true);
    other = await createPost({ title: "Tier 3 only", tiers: [TIER_3], firstPublishedAt: new Date(Date.now() - 3 * day) });
    await addVersion(other.id, "V1.0", new Date(Date.now() - 3 * day));
    await addVersion(other.id, "V2.0", new Date(Date.now() - 1 * day), "not for tier 2");
    fresh = await createPost({ title: "Brand new", tiers: [TIER_2], firstPublishedAt: new Date(Date.now() - 5 * MINUTE) });
    hiddenPost = await createPost({ title: "Disabled post", tiers: [TIER_2], enabled: false, firstPublishedAt: new Date(Date.now() - MINUTE) });
  });

  it("is valid Atom listing new posts and versions the user may download, newest first, and nothing else", async () => {
    const { url } = await regenerateFeedToken(member.id);
    const response = await getFeed(tokenOf(url));
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/atom+xml; charset=utf-8");
    expect(response.headers.get("Cache-Control")).toContain("private");
    const { self, entries } = parseFeed(await response.text());
    expect(self).toBe(url);
    const titles = entries.map((entry) => entry.title);
    expect(titles[0]).toBe("New post: Brand new");
    const version = entries.find((entry) => entry.title === "Hats & <Shoes> V1.1");
    expect(version?.content).toBe('Fixed <b>hats</b> & "shoes"\nSecond line');
    expect(titles).toContain("New post: Hats & <Shoes>");
    // The first version came with the post; hidden versions, locked and disabled posts stay out.
    expect(titles).not.toContain("Hats & <Shoes> V1.0");
    expect(titles.some((title) => title.includes("hidden"))).toBe(false);
    expect(titles.some((title) => title.includes("Tier 3 only") || title.includes("Disabled post"))).toBe(false);
    expect(entries.map((entry) => entry.id)).not.toContain(`tag:localhost,2026:post/${hiddenPost.id}`);
    expect(entries.map((entry) => entry.id)).not.toContain(`tag:localhost,2026:post/${other.id}`);
    const times = entries.map((entry) => Date.parse(entry.updated));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(entries.find((entry) => entry.title === "New post: Brand new")?.link["@_href"]).toBe(`http://localhost:3999/library?search=Brand%20new`);
    expect(fresh.id).toBeTruthy();
    expect(owned.id).toBeTruthy();
  });

  it("is empty for a restricted account, and holds at most 50 entries", async () => {
    const restricted = await createTestUser({ currentTierId: TIER_2, restricted: true });
    const { url } = await regenerateFeedToken(restricted.id);
    const { entries } = parseFeed(await (await getFeed(tokenOf(url))).text());
    expect(entries).toEqual([]);
    for (let index = 0; index < 55; index++)
      await createPost({ title: `Bulk ${index}`, paid: false, firstPublishedAt: new Date(Date.now() - (index + 20) * MINUTE) });
    const { url: memberUrl } = await regenerateFeedToken(member.id);
    expect(parseFeed(await (await getFeed(tokenOf(memberUrl))).text()).entries).toHaveLength(50);
  });

  it("regenerating from the account page shows the new address once; the old one answers 404 at once", async () => {
    const cookie = await sessionCookie(member.id);
    const first = await callRoute(accountPage, { method: "POST", path: "/account/notifications", cookie, form: { intent: "feed" } });
    const firstData = (await first.json()) as { ok: boolean; feedUrl: string; message: string };
    expect(firstData).toMatchObject({ ok: true, message: UPDATE_MESSAGES.feedCreated });
    expect((await getFeed(tokenOf(firstData.feedUrl))).status).toBe(200);
    const second = (await (await callRoute(accountPage, { method: "POST", path: "/account/notifications", cookie, form: { intent: "feed" } })).json()) as {
      feedUrl: string;
    };
    expect(second.feedUrl).not.toBe(firstData.feedUrl);
    expect((await getFeed(tokenOf(firstData.feedUrl))).status).toBe(404);
    expect((await getFeed(tokenOf(second.feedUrl))).status).toBe(200);
    // Only a hash is stored: the address is not in the database, and the page does not show it again.
    const row = await db.updateSubscription.findUniqueOrThrow({ where: { userId: member.id } });
    expect(row.feedTokenHash).not.toContain(tokenOf(second.feedUrl));
    const page = (await (await callRoute(accountPage, { path: "/account/notifications", cookie })).json()) as { settings: { hasFeed: boolean } };
    expect(page.settings.hasFeed).toBe(true);
    expect(JSON.stringify(page)).not.toContain(tokenOf(second.feedUrl));
    // Unknown and malformed tokens look alike.
    expect((await getFeed("A".repeat(43))).status).toBe(404);
    expect((await getFeed("short")).status).toBe(404);
  });

  it("needs a session for the account page", async () => {
    const response = await callRoute(accountPage, { path: "/account/notifications" });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toMatch(/^\/login/);
  });
});

describe("digest mails", () => {
  let subscriber: User;
  let optedOut: User;
  let lockedOut: User;
  let post: Awaited<ReturnType<typeof createPost>>;

  const mailsTo = (user: User) => mail().messages.filter((message) => message.to.includes(user.email!.toLowerCase()));
  const header = (raw: string, name: string) => {
    const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
    return head
      .split(/\r?\n/)
      .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
      ?.slice(name.length + 1)
      .trim();
  };

  beforeAll(async () => {
    await createTiers();
    post = await createPost({ title: "Owned mod", tiers: [TIER_2], firstPublishedAt: new Date(Date.now() - 20 * 24 * 60 * MINUTE) });
    await addVersion(post.id, "V1.0", new Date(Date.now() - 20 * 24 * 60 * MINUTE));
    subscriber = await createTestUser({ currentTierId: TIER_2, fullName: "Sub Scriber" });
    optedOut = await createTestUser({ currentTierId: TIER_2 });
    lockedOut = await createTestUser({ currentTierId: TIER_3 });
    for (const user of [subscriber, optedOut, lockedOut]) await db.download.create({ data: { userId: user.id, postId: post.id, version: "V1.0" } });
    await saveUpdatePreferences(subscriber.id, { newVersions: "on", newPosts: "on" });
    await saveUpdatePreferences(lockedOut.id, { newVersions: "on", newPosts: "on" });
    await saveUpdatePreferences(optedOut.id, {});
  });

  it("sends one digest per subscriber, with RFC 8058 headers; a retried run sends nothing again", async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await addVersion(post.id, "V2.0", new Date(), "New hats\n<script>x</script>");
    await createPost({ title: "Fresh for tier 2", tiers: [TIER_2], firstPublishedAt: new Date() });
    await createPost({ title: "Fresh for tier 3", tiers: [TIER_3], firstPublishedAt: new Date() });
    const now = new Date(Date.now() + 1000);

    const first = await runUpdateDigests({ now, ignorePeriod: true });
    // The subscriber: the new version and the tier-2 post; the tier-3 subscriber: the tier-3 post only.
    expect(first).toMatchObject({ skipped: null, mailed: 2, items: 3, failed: 0 });
    const digest = await mail().nextMailTo(subscriber.email!);
    expect(digest.subject).toBe(DIGEST_SUBJECT);
    expect(digest.text).toContain("New versions of posts you own");
    expect(digest.text).toContain("- Owned mod V2.0");
    expect(digest.text).toContain("New hats");
    expect(digest.text).toContain("- Fresh for tier 2");
    expect(digest.text).not.toContain("Fresh for tier 3");
    expect(digest.html).not.toContain("<script>");
    const row = await db.updateSubscription.findUniqueOrThrow({ where: { userId: subscriber.id } });
    expect(header(digest.raw, "List-Unsubscribe")).toBe(`<http://localhost:3999/unsubscribe/${row.unsubscribeToken}>`);
    expect(header(digest.raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(row.lastDigestAt?.getTime()).toBe(now.getTime());

    // The tier-3 subscriber may download neither the tier-2 post nor its new version; the one
    // who did not opt in gets nothing.
    const other = await mail().nextMailTo(lockedOut.email!);
    expect(other.text).toContain("- Fresh for tier 3");
    expect(other.text).not.toContain("Owned mod");
    expect(other.text).not.toContain("Fresh for tier 2");
    expect(mailsTo(optedOut)).toEqual([]);
    expect(await db.updateMailed.count({ where: { userId: subscriber.id } })).toBe(2);

    const retried = await runUpdateDigests({ now: new Date(now.getTime() + 1000), ignorePeriod: true });
    expect(retried).toMatchObject({ mailed: 0, items: 0 });
    // A timer run inside UPDATE_DIGEST_HOURS of the last finished run does nothing at all.
    expect(await runUpdateDigests({ now: new Date(now.getTime() + 2000) })).toMatchObject({ skipped: "recent" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(subscriber)).toHaveLength(1);
    expect(mailsTo(lockedOut)).toHaveLength(1);
  });

  it("one-click unsubscribe by POST works without a session and is recorded; later runs mail nothing", async () => {
    const { unsubscribeToken } = await db.updateSubscription.findUniqueOrThrow({ where: { userId: subscriber.id } });
    const page = await callRoute(unsubscribeRoute, { path: `/unsubscribe/${unsubscribeToken}`, params: { token: unsubscribeToken } });
    expect(page.status).toBe(200);
    expect(await page.json()).toEqual({ state: "subscribed" });
    expect((await db.updateSubscription.findUniqueOrThrow({ where: { userId: subscriber.id } })).notifyNewVersions).toBe(true);

    const response = await callRoute(unsubscribeRoute, {
      method: "POST",
      path: `/unsubscribe/${unsubscribeToken}`,
      params: { token: unsubscribeToken },
      form: { "List-Unsubscribe": "One-Click" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, message: UPDATE_MESSAGES.unsubscribed });
    const row = await db.updateSubscription.findUniqueOrThrow({ where: { userId: subscriber.id } });
    expect(row).toMatchObject({ notifyNewVersions: false, notifyNewPosts: false });
    expect(row.unsubscribedAt).toBeInstanceOf(Date);
    const again = await callRoute(unsubscribeRoute, {
      method: "POST",
      path: `/unsubscribe/${unsubscribeToken}`,
      params: { token: unsubscribeToken },
      form: {},
    });
    expect(await again.json()).toEqual({ ok: true, message: UPDATE_MESSAGES.alreadyUnsubscribed });
    expect(await (await callRoute(unsubscribeRoute, { path: `/unsubscribe/${unsubscribeToken}`, params: { token: unsubscribeToken } })).json()).toEqual({
      state: "unsubscribed",
    });

    await addVersion(post.id, "V3.0", new Date(), "after unsubscribing");
    expect(await runUpdateDigests({ now: new Date(Date.now() + 1000), ignorePeriod: true })).toMatchObject({ mailed: 0 });
    expect(mailsTo(subscriber)).toHaveLength(1);

    const unknown = await callRoute(unsubscribeRoute, { method: "POST", path: `/unsubscribe/${"B".repeat(43)}`, params: { token: "B".repeat(43) }, form: {} });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, message: UPDATE_MESSAGES.unknownLink });
    expect((await callRoute(unsubscribeRoute, { path: "/unsubscribe/nope", params: { token: "nope" } })).status).toBe(404);
  });

  it("switching an opt-in on from the account page mails only what comes after it", async () => {
    const cookie = await sessionCookie(optedOut.id);
    const saved = await callRoute(accountPage, { method: "POST", path: "/account/notifications", cookie, form: { intent: "preferences", newVersions: "on" } });
    expect(await saved.json()).toMatchObject({ ok: true, message: UPDATE_MESSAGES.preferencesSaved });
    // V2.0 and V3.0 came before the opt-in: nothing to mail yet.
    expect(await runUpdateDigests({ now: new Date(Date.now() + 1000), ignorePeriod: true })).toMatchObject({ mailed: 0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await addVersion(post.id, "V4.0", new Date(), "for the new subscriber");
    await createPost({ title: "Not asked for", tiers: [TIER_2], firstPublishedAt: new Date() });
    expect(await runUpdateDigests({ now: new Date(Date.now() + 1000), ignorePeriod: true })).toMatchObject({ mailed: 1, items: 1 });
    const digest = await mail().nextMailTo(optedOut.email!);
    expect(digest.text).toContain("Owned mod V4.0");
    expect(digest.text).not.toContain("Not asked for");
    expect(digest.text).not.toContain("V3.0");
  });
});

describe("digest delivery failures", () => {
  // The failed delivery is logged (console.error) on purpose.
  beforeAll(() => void ((globalThis as { __allowConsoleError?: boolean }).__allowConsoleError = true));
  afterAll(() => void ((globalThis as { __allowConsoleError?: boolean }).__allowConsoleError = false));

  it("a digest the SMTP server never took stays queued in the mail outbox and arrives, once, when it is back", async () => {
    await createTiers();
    const user = await createTestUser({ currentTierId: TIER_2 });
    await saveUpdatePreferences(user.id, { newPosts: "on" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await createPost({ title: "Delivered later", tiers: [TIER_2], firstPublishedAt: new Date() });
    const working = mail().url;
    const closed = express().listen(0, "127.0.0.1");
    await new Promise((resolve) => closed.once("listening", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    try {
      setEnv("SMTP_URL", `smtp://127.0.0.1:${port}`);
      expect(await runUpdateDigests({ now: new Date(Date.now() + 1000), ignorePeriod: true })).toMatchObject({ queued: 1, mailed: 0, failed: 1 });
      // Claimed in the ledger together with the queued mail: no later run lists it again.
      expect(await db.updateMailed.count({ where: { userId: user.id } })).toBe(1);
      expect(await db.outboxMail.count({ where: { userId: user.id, kind: "digest", status: "PENDING" } })).toBe(1);
    } finally {
      setEnv("SMTP_URL", working);
    }
    expect(await runUpdateDigests({ now: new Date(Date.now() + 2000), ignorePeriod: true })).toMatchObject({ queued: 0, mailed: 0 });
    // The outbox's sender, once the retry is due, delivers it.
    expect(await deliverDueMail({ now: new Date(Date.now() + 5 * 60_000) })).toMatchObject({ sent: 1 });
    expect((await mail().nextMailTo(user.email!)).text).toContain("Delivered later");
    expect(await deliverDueMail({ now: new Date(Date.now() + 60 * 60_000) })).toMatchObject({ sent: 0 });
    expect(mail().messages.filter((message) => message.to.includes(user.email!.toLowerCase()))).toHaveLength(1);
  });
});

describe("concurrent digest runs", () => {
  it("two runs at once (two app servers) mail each item once", async () => {
    await createTiers();
    const user = await createTestUser({ currentTierId: TIER_2 });
    await saveUpdatePreferences(user.id, { newPosts: "on" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await createPost({ title: "Raced post", tiers: [TIER_2], firstPublishedAt: new Date() });
    const now = new Date(Date.now() + 1000);
    const before = mail().messages.length;
    const runs = await Promise.all([runUpdateDigests({ now, ignorePeriod: true }), runUpdateDigests({ now, ignorePeriod: true })]);
    expect((await mail().nextMailTo(user.email!)).text).toContain("Raced post");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Other subscribers of earlier tests may get the post too, but nobody gets two mails.
    const recipients = mail()
      .messages.slice(before)
      .map((message) => message.to.join(","));
    expect(recipients).toContain(user.email!.toLowerCase());
    expect(new Set(recipients).size).toBe(recipients.length);
    expect(runs.reduce((sum, run) => sum + run.mailed, 0)).toBe(recipients.length);
  });
});
