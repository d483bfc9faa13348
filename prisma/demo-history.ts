// A past for the demo site, so every chart of the admin's insights has something to say on the
// first visit: generated supporters (example.com addresses, no passwords) with 90 days of
// downloads, pledges moving between tiers, shop sales and a vote round, all dated back from the
// day of seeding and never later than its start. The demo accounts are left as they are.
//
// Drawn from one fixed pseudo-random sequence whose use never depends on the time of day, so a
// given day always gives the same accounts, pledges, orders and likes, and the same downloads
// per day, post and access source; only the moments of downloads on the day a post or a version
// came out (and, rarely, which version they got) follow the time of seeding. Who may download what is the entitlement rule's own answer
// (`unlockReason`), so the access sources are the ones the site would have recorded itself.
import { randomBytes } from "node:crypto";
import type { Prisma } from "~/generated/prisma/client";
import type { DownloadAccess } from "~/generated/prisma/enums";
import { downloadAccessFor } from "~/utils/download-access";
import { pledgedTierAt, unlockReason, type EntitlementPost, type EntitlementViewer, type PledgeRecord, type UnlockReason } from "~/utils/entitlement";

const DAY = 24 * 60 * 60 * 1000;
/** Days of downloads before the day of seeding. */
export const HISTORY_DAYS = 90;
/** How far back the oldest pledges and shop orders go. */
const PLEDGE_DAYS = 330;
const SHOP_DAYS = 180;
/** The vote round: likes over the last days before seeding. */
const VOTE_DAYS = 12;
const MEMBERS = 32;
const FREE_ACCOUNTS = 16;
/** Free accounts that also buy in the shop with their account's address (verified shop email). */
const BUYERS = 8;
/** Digest subscribers among the generated accounts, and how long ago they opted in. */
const SUBSCRIBERS = 4;
const OPTED_IN_DAYS_AGO = 20;

const FIRST_NAMES = [
  "Ava",
  "Ben",
  "Chloe",
  "Daniel",
  "Elena",
  "Felix",
  "Grace",
  "Hugo",
  "Iris",
  "Jonas",
  "Kira",
  "Leo",
  "Maya",
  "Nils",
  "Olivia",
  "Pablo",
  "Rosa",
  "Sami",
  "Tara",
  "Umar",
  "Vera",
  "Wes",
  "Yuki",
  "Zoe",
];
const LAST_NAMES = [
  "Adler",
  "Brooks",
  "Costa",
  "Dubois",
  "Evans",
  "Fischer",
  "Garcia",
  "Hansen",
  "Ito",
  "Jensen",
  "Kowalski",
  "Laurent",
  "Moreau",
  "Nakamura",
  "Okafor",
  "Petrov",
  "Quinn",
  "Rossi",
  "Silva",
  "Tanaka",
  "Ueda",
  "Varga",
  "Weber",
  "Young",
];

export type HistoryTier = { id: string; title: string; amountCents: number; canVote: boolean };

export type HistoryPost = {
  id: string;
  paidContent: boolean;
  isKofiOnly: boolean;
  kofiId: string | null;
  currentTierIds: readonly string[];
  firstTierIds: readonly string[];
  published: Date;
  /** The post's version rows, oldest first. */
  versions: { id: string; label: string; createdAt: Date }[];
};

export type DemoHistory = {
  users: Prisma.UserCreateManyInput[];
  pledgeEvents: Prisma.PledgeEventCreateManyInput[];
  shopEmails: Prisma.ShopEmailCreateManyInput[];
  unlocks: Prisma.UnlockedContentCreateManyInput[];
  purchases: Prisma.PurchaseCreateManyInput[];
  downloads: Prisma.DownloadCreateManyInput[];
  likes: Prisma.InspirationLikeCreateManyInput[];
  subscriptions: Prisma.UpdateSubscriptionCreateManyInput[];
};

type Person = {
  id: string;
  email: string;
  createdAt: Date;
  /** How often this account downloads, relative to the others. */
  activity: number;
  pledges: (PledgeRecord & { id: string })[];
  unlocks: { postId: string; source: "ADMIN" | "SYNC"; at: Date }[];
  purchases: { code: string; at: Date }[];
  buysWithAccountEmail: boolean;
};

/** The demo's tiers (DEMO_TIERS) that members join and move between. */
const TIER_1 = "8824971";
const TIER_2 = "8825009";
const TIER_3 = "21786318";
const EARLY_ACCESS = "10477032";
const LEGACY = "8652254";
/** One step up, or down, the price ladder. */
const UPGRADE: Record<string, string> = { [EARLY_ACCESS]: TIER_1, [TIER_1]: TIER_2, [TIER_2]: TIER_3 };
const DOWNGRADE: Record<string, string> = { [TIER_3]: TIER_2, [TIER_2]: TIER_1, [TIER_1]: EARLY_ACCESS };
const JOIN_TIERS: [string, number][] = [
  [TIER_1, 0.42],
  [TIER_2, 0.3],
  [TIER_3, 0.16],
  [EARLY_ACCESS, 0.12],
];
/** Likes per idea, relative: the round has a favourite and a long tail. */
const IDEA_APPEAL = [2.5, 1, 4, 1.5, 1, 3, 0.6, 1.8];
const SHOP_PRICES_CENTS = [450, 500, 650, 750, 900];

/**
 * The generated past, as rows for createMany. `random` is the seeded sequence; `now` the moment
 * of seeding (only its UTC day matters, apart from the posts' own dates).
 */
export function buildDemoHistory({
  random,
  now,
  tiers,
  posts,
  ideaIds,
}: {
  random: () => number;
  now: Date;
  tiers: readonly HistoryTier[];
  posts: readonly HistoryPost[];
  ideaIds: readonly string[];
}): DemoHistory {
  const today = Math.floor(now.getTime() / DAY) * DAY;
  /** A moment on the day `daysAgo` days before today, `fraction` of the way through it. */
  const at = (daysAgo: number, fraction: number) => new Date(today - daysAgo * DAY + Math.floor(fraction * DAY));
  const tierOf = new Map(tiers.map((tier) => [tier.id, tier]));
  const pick = <T>(weighted: readonly [T, number][]): T => {
    const total = weighted.reduce((sum, [, weight]) => sum + weight, 0);
    let draw = random() * total;
    for (const [value, weight] of weighted) {
      draw -= weight;
      if (draw < 0) return value;
    }
    return weighted[weighted.length - 1]![0];
  };

  const users: Prisma.UserCreateManyInput[] = [];
  const pledgeEvents: Prisma.PledgeEventCreateManyInput[] = [];
  const people: Person[] = [];
  // Whether a pledge changed before or after a post with first tiers came out would depend on
  // the time of seeding on its release day: no pledge event falls on such a day.
  const releaseDays = new Set(posts.filter((post) => post.firstTierIds.length > 0).map((post) => Math.ceil((today - post.published.getTime()) / DAY)));
  const pledgeDay = (daysAgo: number) => (releaseDays.has(daysAgo) ? daysAgo + 1 : daysAgo);

  // ------------------------------------------------------------ accounts and pledge history
  for (let index = 0; index < MEMBERS + FREE_ACCOUNTS; index++) {
    const first = FIRST_NAMES[index % FIRST_NAMES.length]!;
    const last = LAST_NAMES[(index * 7 + Math.floor(index / FIRST_NAMES.length)) % LAST_NAMES.length]!;
    const member = index < MEMBERS;
    const number = String(index + 1).padStart(2, "0");
    const id = member ? `demo-member-${number}` : `demo-account-${number}`;
    const email = `${first}.${last}@example.com`.toLowerCase();
    const person: Person = { id, email, createdAt: new Date(0), activity: 0, pledges: [], unlocks: [], purchases: [], buysWithAccountEmail: false };
    if (member) {
      // Two long-standing members on the legacy tier; the others joined over the last months,
      // more of them recently (the campaign grows).
      const legacy = index < 2;
      let daysAgo = pledgeDay(legacy ? 300 + Math.floor(random() * 30) : 2 + Math.floor((PLEDGE_DAYS - 2) * random() ** 1.6));
      let tier = legacy ? LEGACY : pick(JOIN_TIERS);
      const joined = at(daysAgo, random());
      person.createdAt = new Date(joined.getTime() - Math.floor(random() * 3 * DAY));
      person.activity = 0.6 + 2 * random();
      const event = (type: string, date: Date, tierId: string | null, paymentStatus: string | null = "Paid") => {
        const tierRow = tierId ? tierOf.get(tierId) : undefined;
        const row = { id: `${type}:demo${index + 1}${String(person.pledges.length).padStart(2, "0")}`, type, date, tierId, paymentStatus };
        person.pledges.push(row);
        pledgeEvents.push({ ...row, userId: id, amountCents: tierRow?.amountCents ?? 0, tierTitle: tierRow?.title ?? null });
      };
      event("pledge_start", joined, tier);
      let active = true;
      // Later moves, a few weeks to months apart: up or down the ladder, a failed charge, leaving
      // and sometimes coming back.
      for (;;) {
        daysAgo = pledgeDay(daysAgo - 14 - Math.floor(random() * 90));
        const draw = random();
        const fraction = random();
        if (daysAgo < 1) break;
        const date = at(daysAgo, fraction);
        if (!active) {
          if (draw >= 0.45) break;
          tier = pick(JOIN_TIERS);
          event("pledge_start", date, tier);
          active = true;
        } else if (draw < 0.3 && UPGRADE[tier]) {
          tier = UPGRADE[tier]!;
          event("pledge_upgrade", date, tier);
        } else if (draw < 0.45 && DOWNGRADE[tier]) {
          tier = DOWNGRADE[tier]!;
          event("pledge_downgrade", date, tier);
        } else if (draw < 0.55) {
          event("pledge_delete", date, null, null);
          active = false;
        } else if (draw < 0.6 && UPGRADE[tier]) {
          // An upgrade whose charge was declined: no tier until a later paid event.
          event("pledge_upgrade", date, UPGRADE[tier]!, "Declined");
          active = false;
        }
      }
    } else {
      person.createdAt = at(5 + Math.floor(random() * 280), random());
      person.activity = 0.25 + random();
      person.buysWithAccountEmail = index - MEMBERS < BUYERS;
    }
    people.push(person);
    const currentTierId = pledgedTierAt(person.pledges, now);
    const provider = member ? "PATREON" : index % 2 === 0 ? "GOOGLE" : "DISCORD";
    users.push({
      id,
      email,
      fullName: `${first} ${last}`,
      mailVerified: true,
      emailVerifiedBy: provider,
      signUpMethod: provider,
      tosAccepted: true,
      currentTierId,
      createdAt: person.createdAt,
      ...(provider === "PATREON"
        ? { patreonId: `demo-patron-${number}` }
        : provider === "GOOGLE"
          ? { googleId: `demo-google-${number}` }
          : { discordId: `demo-discord-${number}`, discordTag: `${first.toLowerCase()}${number}` }),
    });
  }

  // ------------------------------------------------------------ unlocks the sync and admins gave
  const unlocks: Prisma.UnlockedContentCreateManyInput[] = [];
  // The members sync keeps a post for whoever was pledged at one of its first tiers when it came out.
  for (const post of posts) {
    if (!post.paidContent || post.isKofiOnly || post.firstTierIds.length === 0) continue;
    for (const person of people) {
      const tier = pledgedTierAt(person.pledges, post.published);
      if (!tier || !post.firstTierIds.includes(tier)) continue;
      person.unlocks.push({ postId: post.id, source: "SYNC", at: post.published });
    }
  }
  // Two free accounts were given a paid post by an admin (a competition prize, a bug report).
  const tierPosts = posts.filter((post) => post.paidContent && !post.isKofiOnly);
  for (const [offset, daysAgo] of [
    [0, 40],
    [3, 12],
  ] as const) {
    const person = people[MEMBERS + BUYERS + offset]!;
    const older = tierPosts.filter((post) => post.published.getTime() < today - (daysAgo + 1) * DAY);
    const post = older[Math.floor(random() * older.length)]!;
    person.unlocks.push({ postId: post.id, source: "ADMIN", at: at(daysAgo, random()) });
  }
  for (const person of people) {
    for (const unlock of person.unlocks) unlocks.push({ userId: person.id, postId: unlock.postId, source: unlock.source, createdAt: unlock.at });
  }

  // ------------------------------------------------------------ shop sales
  const shopPosts = posts.filter((post) => post.kofiId);
  const priceOf = new Map(shopPosts.map((post, index) => [post.kofiId!, SHOP_PRICES_CENTS[index % SHOP_PRICES_CENTS.length]!]));
  const purchases: Prisma.PurchaseCreateManyInput[] = [];
  const shopEmails: Prisma.ShopEmailCreateManyInput[] = [];
  const buyers = people.filter((person) => person.buysWithAccountEmail);
  for (const buyer of buyers) {
    shopEmails.push({ userId: buyer.id, email: buyer.email, verifiedEmail: buyer.email, verifiedAt: buyer.createdAt, createdAt: buyer.createdAt });
  }
  const orders = 46;
  for (let order = 0; order < orders; order++) {
    // Sales pick up over the half year; orders before amounts were stored came in by CSV.
    const daysAgo = 1 + Math.floor((SHOP_DAYS - 1) * random() ** 1.4);
    const time = at(daysAgo, random());
    const byAccount = random() < 0.6;
    const buyer = byAccount ? buyers[Math.floor(random() * buyers.length)]! : null;
    const email = buyer ? buyer.email : `shop.guest${String(order + 1).padStart(2, "0")}@example.com`;
    const available = shopPosts.filter((post) => post.published.getTime() < today - (daysAgo + 1) * DAY);
    const itemCount = random() < 0.2 ? 2 : 1;
    const items = new Set<string>();
    for (let item = 0; item < itemCount && available.length > 0; item++) items.add(available[Math.floor(random() * available.length)]!.kofiId!);
    const legacyImport = daysAgo > 120 && random() < 0.35;
    const currency = random() < 0.25 ? "USD" : "EUR";
    const amountCents = [...items].reduce((sum, code) => sum + priceOf.get(code)!, 0);
    for (const code of items) {
      purchases.push({
        email,
        kofiItemCode: code,
        transactionId: `demo-order-${String(order + 1).padStart(3, "0")}`,
        source: legacyImport ? "CSV" : "WEBHOOK",
        purchasedAt: time,
        createdAt: time,
        amountCents: legacyImport ? null : amountCents,
        currency: legacyImport ? null : currency,
      });
      buyer?.purchases.push({ code, at: time });
    }
  }

  // ------------------------------------------------------------ downloads
  const viewerAt = (person: Person, time: Date): EntitlementViewer => ({
    isAdmin: false,
    restricted: false,
    currentTierId: pledgedTierAt(person.pledges, time),
    unlockedPostIds: new Set(person.unlocks.filter((unlock) => unlock.at <= time).map((unlock) => unlock.postId)),
    purchasedKofiCodes: new Set(person.purchases.filter((purchase) => purchase.at <= time).map((purchase) => purchase.code)),
    pledges: person.pledges,
    voterPostIds: new Set(),
  });
  const sourceOf = (reason: UnlockReason, person: Person, postId: string): DownloadAccess =>
    downloadAccessFor(reason, person.unlocks.find((unlock) => unlock.postId === postId)?.source ?? null);
  const entitlementPost = (post: HistoryPost): EntitlementPost => ({
    id: post.id,
    enabled: true,
    paidContent: post.paidContent,
    isKofiOnly: post.isKofiOnly,
    kofiId: post.kofiId,
    currentTierIds: post.currentTierIds,
    firstTierIds: post.firstTierIds,
    firstPublishedAt: post.published,
    publishAt: null,
    releaseSteps: [],
  });
  /** The label before a post's first version row: its file was replaced before versions were kept. */
  const earlierLabel = (label: string) => {
    const match = /^V(\d+)\.(\d+)$/.exec(label);
    if (!match) return "V0.9";
    const [major, minor] = [Number(match[1]), Number(match[2])];
    return minor > 0 ? `V${major}.${minor - 1}` : `V${Math.max(major - 1, 0)}.9`;
  };
  /**
   * A moment on day `daysAgo` when the post existed: the day is cut at the post's publication and
   * at each new version; `segmentDraw` picks a part and `timeDraw` a moment in it, so which
   * version is served does not depend on the time of seeding.
   */
  const momentOn = (post: HistoryPost, daysAgo: number, segmentDraw: number, timeDraw: number) => {
    const start = Math.max(today - daysAgo * DAY, post.published.getTime() + 1);
    const end = today - (daysAgo - 1) * DAY;
    const cuts = [start, ...post.versions.map((version) => version.createdAt.getTime()).filter((time) => time > start && time < end), end];
    const part = Math.floor(segmentDraw * (cuts.length - 1));
    const time = cuts[part]! + Math.floor(timeDraw * (cuts[part + 1]! - cuts[part]!));
    return { time, partEnd: cuts[part + 1]! };
  };
  /** The version a download at `time` got: the latest row by then, else the label before the first row. */
  const servedAt = (post: HistoryPost, time: number) => {
    const served = [...post.versions].reverse().find((version) => version.createdAt.getTime() <= time);
    return { label: served?.label ?? earlierLabel(post.versions[0]?.label ?? "V1.0"), versionId: served?.id ?? null };
  };
  /** The last moment of that day the account's standing changed (joined, pledged, bought, was given a post). */
  const lastChangeOn = (person: Person, dayStart: number, dayEnd: number) => {
    const moments = [
      person.createdAt,
      ...person.pledges.map((event) => event.date),
      ...person.purchases.map((purchase) => purchase.at),
      ...person.unlocks.map((unlock) => unlock.at),
    ];
    return Math.max(0, ...moments.map((date) => date.getTime()).filter((time) => time >= dayStart && time < dayEnd));
  };

  const downloads: Prisma.DownloadCreateManyInput[] = [];
  const owned = new Set<string>();
  const appeal = new Map(posts.map((post) => [post.id, (post.paidContent ? (post.isKofiOnly ? 1 : 1.8) : 2.6) * (0.6 + 0.8 * random())]));
  const record = (person: Person, post: HistoryPost, version: { label: string; versionId: string | null }, time: number, source: DownloadAccess) => {
    owned.add(`${person.id}:${post.id}`);
    downloads.push({
      userId: person.id,
      postId: post.id,
      version: version.label,
      versionId: version.versionId,
      createdAt: new Date(time),
      accessSource: source,
    });
  };
  for (let daysAgo = HISTORY_DAYS; daysAgo >= 1; daysAgo--) {
    const dayStart = today - daysAgo * DAY;
    const dayEnd = dayStart + DAY;
    // Who may download is asked at the day's last moment, which never depends on the time of
    // seeding; the download is then placed after the account's last change of that day.
    const checkAt = new Date(dayEnd - 1);
    const viewers = new Map(people.filter((person) => person.createdAt <= checkAt).map((person) => [person, viewerAt(person, checkAt)]));
    const weekday = new Date(dayStart).getUTCDay();
    // Weekends are busier, and the site grows over the quarter.
    const busy = (weekday === 0 || weekday === 6 ? 1.3 : 1) * (0.75 + (0.5 * (HISTORY_DAYS - daysAgo)) / HISTORY_DAYS);
    for (const post of posts) {
      const countDraw = random();
      const age = Math.floor((dayStart - post.published.getTime()) / DAY) + 1;
      if (age < 0) continue;
      // A release peaks in its first week, then settles into a steady trickle.
      const rate = appeal.get(post.id)! * busy * (0.4 + 3 * Math.exp(-age / 5));
      const count = Math.floor(rate) + (countDraw < rate - Math.floor(rate) ? 1 : 0);
      if (count === 0) continue;
      const target = entitlementPost(post);
      const allowed: [Person, UnlockReason][] = [];
      for (const [person, viewer] of viewers) {
        const reason = unlockReason(target, viewer);
        if (reason) allowed.push([person, reason]);
      }
      for (let n = 0; n < count; n++) {
        const [segmentDraw, timeDraw, personDraw] = [random(), random(), random()];
        if (allowed.length === 0) continue;
        // Mostly new owners; some download again (another computer, a lost file).
        const weights = allowed.map(([person]) => person.activity * (owned.has(`${person.id}:${post.id}`) ? 0.12 : 1));
        let draw = personDraw * weights.reduce((sum, weight) => sum + weight, 0);
        const [chosen, reason] = allowed[weights.findIndex((weight) => (draw -= weight) < 0)] ?? allowed[allowed.length - 1]!;
        const moment = momentOn(post, daysAgo, segmentDraw, timeDraw);
        // Never before the account could: a change late in the part moves it into a later one.
        const time = Math.min(Math.max(moment.time, lastChangeOn(chosen, dayStart, dayEnd) + 60_000), dayEnd - 1);
        record(chosen, post, servedAt(post, time), time, sourceOf(reason, chosen, post.id));
      }
    }
  }
  // Buyers and granted accounts fetch their new item within hours.
  for (const person of people) {
    const fresh = [
      ...person.purchases.map((purchase) => ({ at: purchase.at, post: shopPosts.find((post) => post.kofiId === purchase.code)! })),
      ...person.unlocks
        .filter((unlock) => unlock.source === "ADMIN")
        .map((unlock) => ({ at: unlock.at, post: posts.find((post) => post.id === unlock.postId)! })),
    ];
    for (const { at: since, post } of fresh) {
      const time = new Date(since.getTime() + Math.floor(random() * 4 * 60 * 60 * 1000));
      if (time.getTime() >= today || time.getTime() < today - HISTORY_DAYS * DAY) continue;
      const reason = unlockReason(entitlementPost(post), viewerAt(person, time));
      if (!reason) continue;
      record(person, post, servedAt(post, time.getTime()), time.getTime(), sourceOf(reason, person, post.id));
    }
  }
  downloads.sort((a, b) => (a.createdAt as Date).getTime() - (b.createdAt as Date).getTime());

  // ------------------------------------------------------------ the vote round
  const likes: Prisma.InspirationLikeCreateManyInput[] = [];
  const ideaWeights = ideaIds.map((id, index): [string, number] => [id, IDEA_APPEAL[index % IDEA_APPEAL.length]!]);
  for (const person of people) {
    const daysAgo = 1 + Math.floor(random() * VOTE_DAYS);
    // Not in the day's last hour, so the minutes between one voter's likes stay on that day.
    const time = at(daysAgo, random() * 0.95);
    const tier = pledgedTierAt(person.pledges, time);
    const count = 1 + Math.floor(random() * 3);
    if (!tier || !tierOf.get(tier)?.canVote || ideaWeights.length === 0) continue;
    const liked = new Set<string>();
    for (let n = 0; n < count; n++) liked.add(pick(ideaWeights));
    let offset = 0;
    for (const panelId of liked) likes.push({ userId: person.id, panelId, kind: "LIKE", createdAt: new Date(time.getTime() + offset++ * 60_000) });
    // A linked member's second vote, on their favourite.
    if (random() < 0.7) likes.push({ userId: person.id, panelId: [...liked][0]!, kind: "PATREON", createdAt: new Date(time.getTime() + offset * 60_000) });
  }

  // ------------------------------------------------------------ update mails
  // A few accounts asked for update mails before the latest releases, so the admin's "Send
  // update digests now" has something to send on a fresh demo: members on Tier 2 or 3 (those
  // who own a post with a new version first) and one free account, for the new free post.
  const optedIn = at(OPTED_IN_DAYS_AGO, 0.5);
  const updated = new Set(posts.filter((post) => post.versions.length > 1).map((post) => post.id));
  const ownsUpdated = (person: Person) => downloads.some((row) => row.userId === person.id && updated.has(row.postId));
  const members = people.filter((person) => [TIER_2, TIER_3].includes(pledgedTierAt(person.pledges, now) ?? ""));
  const subscribers = [
    ...[...members.filter(ownsUpdated), ...members.filter((person) => !ownsUpdated(person))].slice(0, SUBSCRIBERS - 1),
    ...people.filter((person) => person.pledges.length === 0).slice(0, 1),
  ];
  const subscriptions: Prisma.UpdateSubscriptionCreateManyInput[] = subscribers.map((person) => ({
    userId: person.id,
    notifyNewVersions: true,
    notifyNewPosts: true,
    newVersionsSince: optedIn,
    newPostsSince: optedIn,
    // Random, never derived from the seed: it works as the account's one-click unsubscribe link.
    unsubscribeToken: randomBytes(32).toString("base64url"),
    createdAt: optedIn,
  }));

  return { users, pledgeEvents, shopEmails, unlocks, purchases, downloads, likes, subscriptions };
}
