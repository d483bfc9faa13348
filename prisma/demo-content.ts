// Demo content for a fresh site: the support-platform tiers of the spec, posts of every kind
// with preview images and small downloadable files, home panels, an inspiration vote and
// demo accounts. Runs once: it does nothing when tiers already exist.
import { createHash } from "node:crypto";
import bcrypt from "bcryptjs";
import sharp from "sharp";
import type { PrismaClient } from "~/generated/prisma/client";
import type { Storage } from "~/integrations/storage.server";

export const DEMO_ADMIN = { email: "admin@example.com", password: "Admin1234!" };
export const DEMO_SUPPORTER = { email: "supporter@example.com", password: "Supporter1234!" };
export const DEMO_FAN = { email: "fan@example.com", password: "Fan12345!" };

/** Tiers of spec section 9; which ones are paid, may vote or carry a Subscribe label is data. */
export const DEMO_TIERS = [
  { id: "8824971", title: "Tier 1", amountCents: 300, isPaid: true, canVote: false, subscribeLabel: "Tier 1" },
  { id: "8825009", title: "Tier 2", amountCents: 500, isPaid: true, canVote: true, subscribeLabel: "Tier 2" },
  { id: "21786318", title: "Tier 3", amountCents: 1000, isPaid: true, canVote: true, subscribeLabel: "Tier 3" },
  { id: "10477032", title: "Early Access", amountCents: 200, isPaid: true, canVote: false, subscribeLabel: null },
  { id: "8652254", title: "Supporter (legacy)", amountCents: 100, isPaid: true, canVote: false, subscribeLabel: null },
  { id: "8658988", title: "Patron (legacy)", amountCents: 700, isPaid: false, canVote: true, subscribeLabel: null },
  { id: "23507144", title: "Collector", amountCents: 1500, isPaid: false, canVote: true, subscribeLabel: null },
  { id: "23507184", title: "Collector Plus", amountCents: 2500, isPaid: false, canVote: true, subscribeLabel: null },
  { id: "8825088", title: "Founder", amountCents: 5000, isPaid: false, canVote: true, subscribeLabel: null },
] as const;

const PALETTES = [
  ["#3a7bd5", "#00d2ff"],
  ["#8e2de2", "#4a00e0"],
  ["#f7971e", "#ffd200"],
  ["#11998e", "#38ef7d"],
  ["#fc466b", "#3f5efb"],
  ["#c94b4b", "#4b134f"],
] as const;

function escapeXml(text: string) {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A 1280x720 JPEG with a gradient, shapes and an optional caption at the top, drawn from SVG. */
export async function demoImage(caption: string | null, seed: number): Promise<Buffer> {
  const [from, to] = PALETTES[seed % PALETTES.length]!;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
  <rect width="1280" height="720" fill="url(#g)"/>
  <g fill="none" stroke="rgba(255,255,255,0.35)" stroke-width="10">
    <circle cx="${200 + (seed * 97) % 800}" cy="${180 + (seed * 53) % 300}" r="${120 + (seed * 31) % 120}"/>
    <path d="M640 140 900 290v300L640 740 380 590V290z" stroke-linejoin="round"/>
  </g>
  ${caption ? `<text x="60" y="110" font-family="DejaVu Sans, Arial, sans-serif" font-size="72" font-weight="bold" fill="#ffffff">${escapeXml(caption)}</text>` : ""}
</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer();
}

/** A small file standing in for a mod package: a readable header and deterministic bytes. */
function demoPackage(title: string, version: string, kib: number): Buffer {
  const header = Buffer.from(`Demo mod package\nTitle: ${title}\nVersion: ${version}\n\n`);
  const body = Buffer.alloc(kib * 1024);
  let state = createHash("sha256").update(title).digest();
  for (let offset = 0; offset < body.length; offset += state.length) {
    state.copy(body, offset);
    state = createHash("sha256").update(state).digest();
  }
  return Buffer.concat([header, body]);
}

type DemoPost = {
  title: string;
  kind: "free" | "tier" | "shop" | "both";
  tiers?: string[];
  firstTiers?: string[];
  version?: string;
  daysAgo: number;
  updatedDaysAgo?: number;
  withImage?: boolean;
};

const POSTS: DemoPost[] = [
  { title: "Starter Furniture Pack", kind: "free", daysAgo: 1 },
  { title: "Cozy Cabin Lot", kind: "tier", tiers: ["8824971", "8825009", "21786318"], daysAgo: 2 },
  { title: "Neon Streetwear Set", kind: "tier", tiers: ["8825009", "21786318"], version: "V2.1", daysAgo: 12, updatedDaysAgo: 1 },
  { title: "Victorian Greenhouse", kind: "shop", daysAgo: 20 },
  { title: "Pixel Cat Companion", kind: "free", daysAgo: 25, withImage: false },
  { title: "Sci-Fi Bedroom", kind: "both", tiers: ["21786318"], daysAgo: 31 },
  { title: "Lakeside Pier", kind: "tier", tiers: ["8824971", "8825009", "21786318", "10477032"], daysAgo: 40 },
  { title: "Autumn Hair Collection", kind: "tier", tiers: ["8825009", "21786318"], firstTiers: ["21786318"], version: "V1.3", daysAgo: 45, updatedDaysAgo: 10 },
  { title: "Retro Diner Counter", kind: "free", daysAgo: 52 },
  { title: "Crystal Cave Build", kind: "shop", daysAgo: 60 },
  { title: "Minimalist Kitchen", kind: "tier", tiers: ["8824971", "8825009", "21786318"], daysAgo: 66 },
  { title: "Gothic Cathedral Windows", kind: "tier", tiers: ["21786318"], firstTiers: ["21786318"], daysAgo: 70 },
  { title: "Beach Umbrella Set", kind: "free", version: "V1.1", daysAgo: 80 },
  { title: "Steampunk Workshop", kind: "both", tiers: ["8825009", "21786318"], daysAgo: 88 },
  { title: "Winter Coat Bundle", kind: "tier", tiers: ["8824971", "8825009", "21786318"], daysAgo: 95 },
  { title: "Zen Garden Stones", kind: "shop", daysAgo: 101 },
  { title: "Arcade Machines", kind: "tier", tiers: ["8825009", "21786318"], version: "V3.0", daysAgo: 110, updatedDaysAgo: 30 },
  { title: "Floating Islands Terrain", kind: "tier", tiers: ["21786318"], daysAgo: 120 },
  { title: "Bookshop Interior", kind: "free", daysAgo: 130 },
  { title: "Royal Ballroom", kind: "shop", daysAgo: 140 },
  { title: "Camping Gear", kind: "tier", tiers: ["8824971", "8825009", "21786318", "8652254"], daysAgo: 150 },
  { title: "Cyber Café", kind: "tier", tiers: ["8825009", "21786318"], daysAgo: 160 },
  { title: "Witchy Apothecary", kind: "both", tiers: ["21786318"], daysAgo: 170 },
  { title: "Garden Gnome Army", kind: "free", daysAgo: 180 },
];

const PANELS = [
  { title: "Support me on Patreon", description: "Early access to every new mod.", link: "https://www.patreon.com/" },
  { title: "Ko-fi Shop", description: "Buy single mods, no subscription.", link: "https://ko-fi.com/" },
  { title: "Join the Discord", description: "Previews, help and requests.", link: "https://discord.com/" },
  { title: "Download Library", description: "Every release in one place.", link: "/library" },
  { title: "Commissions", description: "Custom builds on request.", link: "/infos#commissions" },
  { title: "YouTube Showcases", link: "https://www.youtube.com/", description: null },
];

const DAY = 24 * 60 * 60 * 1000;

function slugify(text: string) {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

export async function seedDemoContent(db: PrismaClient, store: Storage, now = new Date()): Promise<boolean> {
  if ((await db.tier.count()) > 0) return false;

  // Files first (idempotent keys), then every row in one transaction.
  const posts: {
    id: string;
    post: DemoPost;
    version: string;
    published: Date;
    imageKey: string | null;
    fileKey: string;
    fileName: string;
    size: number;
  }[] = [];
  for (const [position, post] of POSTS.entries()) {
    const id = String(100000 + position * 7919);
    const version = post.version ?? "V1.0";
    const published = new Date(now.getTime() - post.daysAgo * DAY);
    const imageKey = post.withImage === false ? null : `images/posts/${id}.jpg`;
    if (imageKey) await store.put(imageKey, await demoImage(null, position));
    const fileName = `${slugify(post.title)}-${version.toLowerCase()}.package`;
    const fileKey = `posts/${id}/${fileName}`;
    const { size } = await store.put(fileKey, demoPackage(post.title, version, 24 + (position % 5) * 40));
    posts.push({ id, post, version, published, imageKey, fileKey, fileName, size });
  }
  const panelImages = await Promise.all(PANELS.map((_panel, position) => demoImage(null, position + 3)));
  const inspirationImages: string[] = [];
  for (let position = 0; position < 8; position++) {
    const key = `images/inspiration/demo-${position + 1}.jpg`;
    // No caption: the card shows the panel's title under the image.
    await store.put(key, await demoImage(null, position + 1));
    inspirationImages.push(`/media/inspiration/demo-${position + 1}.jpg`);
  }

  const [adminHash, supporterHash, fanHash] = await Promise.all([
    bcrypt.hash(DEMO_ADMIN.password, 10),
    bcrypt.hash(DEMO_SUPPORTER.password, 10),
    bcrypt.hash(DEMO_FAN.password, 10),
  ]);

  await db.$transaction(async (tx) => {
    await tx.tier.createMany({ data: DEMO_TIERS.map((tier) => ({ ...tier })) });
    for (const { id, post, version, published, imageKey, fileKey, fileName, size } of posts) {
      await tx.post.create({
        data: {
          id,
          title: post.title,
          imageKey,
          paidContent: post.kind !== "free",
          url: `${slugify(post.title)}-${id}`,
          kofiId: post.kind === "shop" || post.kind === "both" ? `D${id}` : null,
          isKofiOnly: post.kind === "shop",
          driveFileId: fileKey,
          fileName,
          fileSize: BigInt(size),
          version,
          firstPublishedAt: published,
          publishedAt: published,
          lastUpdated: post.updatedDaysAgo === undefined ? published : new Date(now.getTime() - post.updatedDaysAgo * DAY),
          orderDate: published,
          tiers: {
            create: [
              ...(post.tiers ?? []).map((tierId) => ({ tierId, kind: "CURRENT" as const })),
              ...(post.firstTiers ?? []).map((tierId) => ({ tierId, kind: "FIRST" as const })),
            ],
          },
        },
      });
    }
    for (const [index, panel] of PANELS.entries()) {
      const created = await tx.panel.create({
        data: { ...panel, index, imageVersion: createHash("sha256").update(panelImages[index]!).digest("hex").slice(0, 12) },
      });
      await store.put(`panels/${created.id}.jpg`, panelImages[index]!);
    }
    await tx.inspirationConfig.create({
      data: { id: 1, title: "Inspiration Vote", mode: "NORMAL", votingOpen: true, votingEndTime: new Date(now.getTime() + 7 * DAY) },
    });
    await tx.inspirationPanel.createMany({
      data: inspirationImages.map((imageUrl, position) => ({ imageUrl, title: `Idea #${position + 1}` })),
    });
    await tx.user.create({
      data: {
        email: DEMO_ADMIN.email,
        fullName: "Demo Admin",
        passwordHash: adminHash,
        isAdmin: true,
        canBeAdmin: true,
        mailVerified: true,
        emailVerifiedBy: "CODE",
        tosAccepted: true,
      },
    });
    await tx.user.create({
      data: {
        email: DEMO_SUPPORTER.email,
        fullName: "Demo Supporter",
        passwordHash: supporterHash,
        mailVerified: true,
        emailVerifiedBy: "CODE",
        patreonId: "demo-patron-1",
        currentTierId: "8825009",
      },
    });
    await tx.user.create({
      data: { email: DEMO_FAN.email, fullName: "Demo Fan", passwordHash: fanHash, mailVerified: true, emailVerifiedBy: "CODE" },
    });
    // All or nothing, however slow the machine: Prisma's default 5 s limit was exceeded by a
    // first start on a loaded 2-core machine, which then failed and seeded nothing.
  }, { timeout: 120_000, maxWait: 30_000 });
  return true;
}
