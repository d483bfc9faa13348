// Demo content for a fresh site: the support-platform tiers of the spec, posts of every kind
// with preview images and small downloadable files, home panels, an inspiration vote, demo
// accounts and a generated past for the admin's insights (demo-history.ts). Runs once: it does
// nothing when posts or accounts already exist.
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import bcrypt from "bcryptjs";
import sharp from "sharp";
import type { Prisma, PrismaClient } from "~/generated/prisma/client";
import type { Storage } from "~/integrations/storage.server";
import { checkBlenderManifest, type BlenderManifest } from "~/utils/blender-manifest";
import { contentHashFeed } from "~/utils/content-hash";
import { audienceTierIds } from "~/utils/release-schemas";
import { buildDemoHistory, type HistoryPost } from "./demo-history";
import { FRESH_SITE_SQL } from "./fresh-site";

export const DEMO_ADMIN = { email: "admin@example.com", password: "Admin1234!" };
export const DEMO_SUPPORTER = { email: "supporter@example.com", password: "Supporter1234!" };
export const DEMO_FAN = { email: "fan@example.com", password: "Fan12345!" };

/** The tiers of docs/product.md#constants; which ones are paid, may vote or carry a Subscribe label is data. */
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

const DEMO_TIER_PRICES = DEMO_TIERS.map((tier) => ({ id: tier.id, isPaid: tier.isPaid, amountCents: tier.amountCents }));

/** The seed of the generated past: the same day of seeding always gives the same history. */
const HISTORY_SEED = 2025;

/** A deterministic pseudo-random sequence (mulberry32), so a seed always draws the same cover. */
function randomFrom(seed: number) {
  let state = (seed * 2654435761) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The object a cover shows, drawn in a 100 x 100 box: `body` in the object's colour, `glow` (windows,
 * screens, eyes) in the accent colour, `shade` a darker face for depth.
 */
type Subject = { body: string; shade?: string; glow?: string; line?: string };

const SUBJECTS: Record<string, Subject> = {
  chair: {
    body: "M22 14h56a10 10 0 0 1 10 10v24H12V24a10 10 0 0 1 10-10ZM8 44h18v34H8zM74 44h18v34H74zM20 76h7v14h-7zM73 76h7v14h-7z",
    shade: "M24 56h52v20H24z",
  },
  house: {
    body: "M50 14 88 48H80v40H20V48H12ZM64 18h9v20l-9-8Z",
    glow: "M29 56h15v13H29zM56 62h14v26H56z",
    shade: "M50 14 88 48H80L50 22 20 48H12Z",
  },
  crystal: {
    body: "M50 6 63 30 58 90H42L37 30ZM28 38 39 52 37 90H23L20 54ZM73 32 82 50 79 90H63L65 48Z",
    shade: "M50 6 63 30 58 90H50ZM28 38 39 52 37 90H30ZM73 32 82 50 79 90H72Z",
    line: "M37 30h26M20 54l19-2M65 48l17 2",
  },
  cat: {
    body: "M34 12 42 26a17 17 0 0 1 16 0L66 12l2 22a17 17 0 0 1-4 14c12 6 18 18 16 30-1 8-6 12-14 12H36c-8 0-13-4-14-12-2-12 4-24 16-30a17 17 0 0 1-4-14Z",
    glow: "M40 33a3.5 4.5 0 1 0 7 0 3.5 4.5 0 1 0-7 0ZM53 33a3.5 4.5 0 1 0 7 0 3.5 4.5 0 1 0-7 0Z",
    line: "M78 84c12 2 16-10 8-18",
  },
  garment: {
    body: "M31 14 42 10c3 7 13 7 16 0l11 4 20 18-11 13-8-6v49H30V39l-8 6-11-13Z",
    shade: "M42 10c3 7 13 7 16 0l-3-1c-2 4-8 4-10 0Z",
    line: "M50 20v70",
  },
  umbrella: {
    body: "M8 50C12 24 32 10 50 10s38 14 42 40c-6-5-15-5-21 0-6-5-15-5-21 0-6-5-15-5-21 0-6-5-15-5-21 0ZM48.5 48h3v36h-3z",
    shade: "M50 10c-8 8-12 24-12 40-6-5-15-5-21 0C20 28 34 12 50 10Z",
    line: "M50 84c0 8-10 8-10 2",
  },
  arcade: {
    body: "M30 8h40l4 14-6 28 6 6v34H26V56l6-6-6-28Z",
    glow: "M34 18h32v26H34zM40 57a3 3 0 1 0 6 0 3 3 0 1 0-6 0ZM54 57a3 3 0 1 0 6 0 3 3 0 1 0-6 0Z",
    shade: "M26 66h48v4H26z",
  },
  window: {
    body: "M22 92V40C22 20 36 8 50 4c14 4 28 16 28 36v52Z",
    glow: "M29 86V42c0-14 9-24 21-30 12 6 21 16 21 30v44Z",
    line: "M50 12v74M29 50h42M29 68h42",
  },
  cube: {
    body: "M50 12 86 32 50 52 14 32Z",
    shade: "M14 32 50 52v40L14 72Z",
    glow: "M50 52 86 32v40L50 92Z",
  },
};

/** Which object suits a title: by its words, else by the seed. */
function subjectFor(title: string | null, seed: number): Subject {
  const words: [RegExp, string][] = [
    [/furniture|kitchen|diner|bedroom|ballroom|bookshop|counter/i, "chair"],
    [/cabin|lot|greenhouse|workshop|pier|apothecary/i, "house"],
    [/crystal|cave|zen|stone|island|terrain/i, "crystal"],
    [/\bcat\b|companion|gnome/i, "cat"],
    [/streetwear|coat|hair|clothing/i, "garment"],
    [/umbrella|beach|camping/i, "umbrella"],
    [/arcade|cyber|neon/i, "arcade"],
    [/gothic|window|cathedral/i, "window"],
  ];
  const named = title ? words.find(([pattern]) => pattern.test(title)) : undefined;
  const keys = Object.keys(SUBJECTS);
  return SUBJECTS[named ? named[1] : keys[seed % keys.length]!]!;
}

function escapeXml(text: string) {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * A 1280x720 JPEG cover, drawn from SVG: a per-seed palette (hues a golden angle apart), a sky
 * gradient, a glow, a dot or line pattern, drifting shapes, a floor with the object's shadow,
 * the object itself (by the title's words) and film grain. An optional caption at the top.
 * The same arguments always give the same bytes.
 */
export async function demoImage(caption: string | null, seed: number, title: string | null = null): Promise<Buffer> {
  const random = randomFrom(seed + 1);
  const hue = Math.round((seed * 137.508 + 200) % 360);
  const accentHue = (hue + 150 + Math.round(random() * 60)) % 360;
  const sky = [`hsl(${hue},55%,12%)`, `hsl(${(hue + 30) % 360},60%,30%)`];
  const accent = `hsl(${accentHue},95%,66%)`;
  const object = `hsl(${(hue + 10) % 360},35%,88%)`;
  const objectShade = `hsl(${(hue + 10) % 360},25%,64%)`;
  const subject = subjectFor(title, seed);
  const objectX = 640 + Math.round((random() - 0.5) * 360);
  const size = 460;

  const shapes: string[] = [];
  for (let index = 0; index < 7; index++) {
    const x = Math.round(random() * 1280);
    const y = Math.round(random() * 560);
    const radius = Math.round(20 + random() * 90);
    const opacity = (0.08 + random() * 0.2).toFixed(2);
    const kind = Math.floor(random() * 3);
    if (kind === 0) shapes.push(`<circle cx="${x}" cy="${y}" r="${radius}" fill="none" stroke="${accent}" stroke-width="6" opacity="${opacity}"/>`);
    else if (kind === 1)
      shapes.push(
        `<rect x="${x}" y="${y}" width="${radius}" height="${radius}" rx="8" fill="${accent}" opacity="${opacity}" transform="rotate(${Math.round(random() * 90)} ${x} ${y})"/>`,
      );
    else shapes.push(`<path d="M${x} ${y - radius}l${radius} ${radius * 1.7}h${-radius * 2}Z" fill="#fff" opacity="${(Number(opacity) / 2).toFixed(2)}"/>`);
  }
  // Even seeds: a dot grid. Odd seeds: stripes 36 px apart, turned 35 degrees, drawn as one path
  // (a rotated SVG pattern takes librsvg about 20 times as long).
  const texture =
    seed % 2 === 0
      ? `<defs><pattern id="p" width="28" height="28" patternUnits="userSpaceOnUse"><circle cx="3" cy="3" r="2.2" fill="#fff" opacity="0.16"/></pattern></defs><rect width="1280" height="720" fill="url(#p)"/>`
      : `<path d="${stripes(35, 36)}" stroke="#fff" stroke-width="3" opacity="0.1"/>`;

  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0.4" y2="1"><stop offset="0" stop-color="${sky[0]}"/><stop offset="1" stop-color="${sky[1]}"/></linearGradient>
    <radialGradient id="glow" cx="${objectX}" cy="330" r="420" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="${accent}" stop-opacity="0.55"/><stop offset="1" stop-color="${accent}" stop-opacity="0"/></radialGradient>
    <linearGradient id="floor" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue},45%,10%)" stop-opacity="0.2"/><stop offset="1" stop-color="hsl(${hue},50%,6%)" stop-opacity="0.95"/></linearGradient>
  </defs>
  <rect width="1280" height="720" fill="url(#sky)"/>
  ${texture}
  ${shapes.join("\n  ")}
  <rect width="1280" height="720" fill="url(#glow)"/>
  <path d="M0 560C300 520 980 520 1280 560V720H0Z" fill="url(#floor)"/>
  <ellipse cx="${objectX}" cy="606" rx="${size * 0.48}" ry="26" fill="#000" opacity="0.45"/>
  <g transform="translate(${objectX - size / 2} ${606 - size * 0.92}) scale(${size / 100})">
    <path d="${subject.body}" fill="${object}" stroke="${accent}" stroke-width="0.8" stroke-linejoin="round"/>
    ${subject.shade ? `<path d="${subject.shade}" fill="${objectShade}"/>` : ""}
    ${subject.glow ? `<path d="${subject.glow}" fill="${accent}"/>` : ""}
    ${subject.line ? `<path d="${subject.line}" fill="none" stroke="${objectShade}" stroke-width="2.4" stroke-linecap="round"/>` : ""}
  </g>
  ${caption ? `<text x="60" y="110" font-family="DejaVu Sans, Arial, sans-serif" font-size="72" font-weight="bold" fill="#ffffff">${escapeXml(caption)}</text>` : ""}
</svg>`;
  return sharp(Buffer.from(svg))
    .composite([{ input: filmGrain(), raw: { width: 1280, height: 720, channels: 3 }, blend: "soft-light" }])
    .jpeg({ quality: 82 })
    .toBuffer();
}

let grainLayer: Buffer | undefined;
/**
 * A 1280x720 layer of grey noise, laid over every cover (an SVG noise filter takes seconds per
 * image). Drawn once from a fixed seed: the same on every cover and in every seed.
 */
function filmGrain(): Buffer {
  if (grainLayer) return grainLayer;
  const random = randomFrom(1);
  const grain = Buffer.alloc(1280 * 720 * 3);
  // Byte by byte: a Buffer.fill call per pixel costs about 15 times as much.
  for (let offset = 0; offset < grain.length; offset += 3) {
    const level = 108 + Math.floor(random() * 40);
    grain[offset] = level;
    grain[offset + 1] = level;
    grain[offset + 2] = level;
  }
  return (grainLayer = grain);
}

/** Parallel lines `gap` px apart across the 1280x720 cover, turned `degrees` clockwise from upright. */
function stripes(degrees: number, gap: number): string {
  const radians = (degrees * Math.PI) / 180;
  // `across` steps from one line to the next; `along` runs down a line.
  const across = [Math.cos(radians), Math.sin(radians)] as const;
  const along = [-across[1], across[0]] as const;
  // Far enough both ways to reach every corner of the cover.
  const reach = Math.ceil(Math.hypot(1280, 720));
  const lines: string[] = [];
  for (let offset = gap / 2; offset < 1280 * across[0] + 720 * across[1]; offset += gap) {
    const [x, y] = [offset * across[0], offset * across[1]];
    const from = `${(x - reach * along[0]).toFixed(1)} ${(y - reach * along[1]).toFixed(1)}`;
    const to = `${(x + reach * along[0]).toFixed(1)} ${(y + reach * along[1]).toFixed(1)}`;
    lines.push(`M${from}L${to}`);
  }
  return lines.join("");
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

/** A ZIP of the given files, stored (no compression): enough for the demo's version changelog. */
function demoZip(files: { path: string; text: string }[]): { bytes: Buffer; entries: { path: string; size: number; crc32: number }[] } {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  const entries: { path: string; size: number; crc32: number }[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.path);
    const data = Buffer.from(file.text);
    const checksum = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x5821, 12); // 2024-01-01
    local.writeUInt32LE(checksum, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    local.copy(header, 8, 6, 26); // flags .. uncompressed size
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    central.push(header, name);
    entries.push({ path: file.path, size: data.length, crc32: checksum });
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return { bytes: Buffer.concat([...locals, directory, end]), entries };
}

/** SHA-256 and content hash of a demo file (uploads compute the same while they stream). */
function demoDigest(bytes: Buffer): { sha256: string; contentHash: string } {
  const content = createHash("sha256");
  const feed = contentHashFeed((part) => content.update(part));
  feed.push(bytes);
  feed.finish();
  return { sha256: createHash("sha256").update(bytes).digest("hex"), contentHash: content.digest("hex") };
}

/** The demo post whose file is a ZIP with two versions, so the version history shows a changelog. */
const ZIP_DEMO_TITLE = "Neon Streetwear Set";

const ZIP_DEMO_VERSIONS = [
  {
    label: "V2.0",
    notes: "First release of the set.\n\n- Jacket, hoodie and sneakers\n- Works with the base game's colour picker",
    files: [
      { path: "neon-streetwear/README.txt", text: "Neon Streetwear Set V2.0\nDrop the folder into your Mods folder.\n" },
      { path: "neon-streetwear/jacket.package", text: "jacket-mesh-v2.0\n".repeat(400) },
      { path: "neon-streetwear/hoodie.package", text: "hoodie-mesh\n".repeat(300) },
      { path: "neon-streetwear/sneakers-old.package", text: "sneakers-mesh\n".repeat(200) },
    ],
  },
  {
    label: "V2.1",
    notes: "**Bug fixes** and a new item.\n\n- Fixed the jacket's *glowing seams* clipping\n- Replaced the sneakers with a remade pair\n- New: a neon cap",
    files: [
      { path: "neon-streetwear/README.txt", text: "Neon Streetwear Set V2.1\nDrop the folder into your Mods folder.\n" },
      { path: "neon-streetwear/jacket.package", text: "jacket-mesh-v2.1-fixed\n".repeat(400) },
      { path: "neon-streetwear/hoodie.package", text: "hoodie-mesh\n".repeat(300) },
      { path: "neon-streetwear/sneakers.package", text: "sneakers-mesh-remade\n".repeat(220) },
      { path: "neon-streetwear/cap.package", text: "cap-mesh\n".repeat(150) },
    ],
  },
];

/**
 * Game patches (docs/product.md#game-patches) with a patch day under way: 1.112, current for two
 * months, on which every post works; 1.113, current since yesterday, on which a few are confirmed
 * already, the Neon Streetwear Set's V2.0 was broken and V2.1 fixed it, and players have answered
 * for a post not yet confirmed.
 */
export const DEMO_PATCHES = { previous: "1.112", current: "1.113" } as const;
/** Confirmed on the new patch by the admin ("works"), besides the fixed Neon Streetwear Set. */
export const DEMO_CONFIRMED_ON_CURRENT = ["Starter Furniture Pack", "Cozy Cabin Lot", "Lakeside Pier", "Retro Diner Counter", "Arcade Machines"];
/** Not confirmed on the new patch yet, with players' answers (two works, one broken). */
export const DEMO_PLAYER_CONFIRMED = "Autumn Hair Collection";

async function seedGamePatches(
  tx: Prisma.TransactionClient,
  now: Date,
  versionsByTitle: Map<string, { id: string; label: string }[]>,
  downloads: { userId: string; versionId?: string | null }[],
): Promise<void> {
  const previous = await tx.gamePatch.create({
    data: { name: DEMO_PATCHES.previous, declaredAt: new Date(now.getTime() - 90 * DAY), currentSince: new Date(now.getTime() - 60 * DAY) },
  });
  const current = await tx.gamePatch.create({
    data: { name: DEMO_PATCHES.current, declaredAt: new Date(now.getTime() - 2 * DAY), currentSince: new Date(now.getTime() - DAY) },
  });
  const marks: Prisma.VersionPatchMarkCreateManyInput[] = [];
  for (const versions of versionsByTitle.values()) {
    const newest = versions[versions.length - 1]!;
    marks.push({ versionId: newest.id, patchId: previous.id, mark: "WORKS", markedAt: new Date(now.getTime() - 55 * DAY) });
  }
  for (const title of DEMO_CONFIRMED_ON_CURRENT) {
    const newest = versionsByTitle.get(title)!.at(-1)!;
    marks.push({ versionId: newest.id, patchId: current.id, mark: "WORKS", markedAt: new Date(now.getTime() - 12 * 3600_000) });
  }
  // Broken on patch day, fixed by the next version: the feed says "Fixed for 1.113 in V2.1".
  const [broken, fixed] = versionsByTitle.get(ZIP_DEMO_TITLE)!;
  marks.push({ versionId: broken!.id, patchId: current.id, mark: "BROKEN", markedAt: new Date(now.getTime() - 20 * 3600_000) });
  marks.push({ versionId: fixed!.id, patchId: current.id, mark: "WORKS", markedAt: new Date(now.getTime() - 6 * 3600_000) });
  await tx.versionPatchMark.createMany({ data: marks });
  // Players who downloaded the current version answer for it: two works, one broken.
  const version = versionsByTitle.get(DEMO_PLAYER_CONFIRMED)!.at(-1)!;
  const players = [...new Set(downloads.filter((download) => download.versionId === version.id).map((download) => download.userId))].slice(0, 3);
  await tx.patchConfirmation.createMany({
    data: players.map((userId, index) => ({
      userId,
      versionId: version.id,
      patchId: current.id,
      verdict: index < 2 ? ("WORKS" as const) : ("BROKEN" as const),
      createdAt: new Date(now.getTime() - (10 - index) * 3600_000),
    })),
  });
}

/** The demo Blender add-on (docs/product.md#blender-extensions): a real, small extension ZIP. */
const BLENDER_DEMO_TITLE = "Cabin Builder for Blender";

const BLENDER_DEMO_FILES = [
  {
    path: "cabin_builder/blender_manifest.toml",
    text: [
      'schema_version = "1.0.0"',
      'id = "cabin_builder"',
      'version = "1.0.0"',
      'name = "Cabin Builder"',
      'tagline = "Adds a ready-made log cabin to the scene"',
      'maintainer = "Creator Library demo <creator@example.com>"',
      'type = "add-on"',
      'tags = ["Add Mesh", "Modeling"]',
      'blender_version_min = "4.2.0"',
      'license = ["SPDX:GPL-3.0-or-later"]',
      "",
    ].join("\n"),
  },
  {
    path: "cabin_builder/__init__.py",
    text: [
      "import bpy",
      "",
      "",
      "class OBJECT_OT_add_cabin(bpy.types.Operator):",
      '    """Add a simple log cabin made of cubes"""',
      "",
      '    bl_idname = "object.add_cabin"',
      '    bl_label = "Log Cabin"',
      '    bl_options = {"REGISTER", "UNDO"}',
      "",
      "    def execute(self, context):",
      "        bpy.ops.mesh.primitive_cube_add(size=2, location=(0, 0, 1))",
      "        bpy.ops.mesh.primitive_cone_add(vertices=4, radius1=1.8, depth=1.2, location=(0, 0, 2.6))",
      '        return {"FINISHED"}',
      "",
      "",
      "def menu(self, context):",
      "    self.layout.operator(OBJECT_OT_add_cabin.bl_idname)",
      "",
      "",
      "def register():",
      "    bpy.utils.register_class(OBJECT_OT_add_cabin)",
      "    bpy.types.VIEW3D_MT_mesh_add.append(menu)",
      "",
      "",
      "def unregister():",
      "    bpy.types.VIEW3D_MT_mesh_add.remove(menu)",
      "    bpy.utils.unregister_class(OBJECT_OT_add_cabin)",
      "",
    ].join("\n"),
  },
];

/** The demo add-on's manifest, checked as an upload checks it. */
function blenderDemoManifest(): BlenderManifest {
  const checked = checkBlenderManifest(BLENDER_DEMO_FILES[0]!.text);
  if (!checked.ok) throw new Error(`The demo add-on's manifest is refused: ${checked.message}`);
  return checked.manifest;
}

type DemoVersion = {
  label: string;
  notes: string;
  fileKey: string;
  fileName: string;
  size: number;
  sha256: string;
  contentHash: string;
  zipEntries: { path: string; size: number; crc32: number }[] | null;
  blenderManifest?: BlenderManifest;
  createdAt: Date;
};

/** The demo post whose current version has two variants and an optional add-on (docs/product.md#files-of-a-version). */
const VARIANTS_DEMO_TITLE = "Autumn Hair Collection";

/** Its files beside the main one: the add-on is for Tier 3 only, a gate of its own. */
const VARIANTS_DEMO_FILES = [
  { role: "VARIANT", label: "Maxis Match", slug: "maxis-match", gateTierIds: [] as string[] },
  { role: "VARIANT", label: "Alpha", slug: "alpha", gateTierIds: [] as string[] },
  { role: "OPTIONAL", label: "Bonus hair accessories", slug: "accessories", gateTierIds: ["21786318"] },
] as const;

type DemoFile = (typeof VARIANTS_DEMO_FILES)[number] & { fileKey: string; fileName: string; size: number; sha256: string; contentHash: string };

type DemoPost = {
  title: string;
  kind: "free" | "tier" | "shop" | "both";
  tiers?: string[];
  firstTiers?: string[];
  version?: string;
  daysAgo: number;
  updatedDaysAgo?: number;
  withImage?: boolean;
  /** Release steps: to a tier and those above it (or everyone, null), days after publication. */
  release?: { tierId: string | null; afterDays: number }[];
  /** Scheduled: published this many days from now (admins see it before). */
  publishInDays?: number;
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
  // Releases (docs/product.md#releases), last so the other posts keep their ids.
  // Scheduled: admins see it now, everyone else in three days.
  { title: "Holiday Market Stalls", kind: "tier", tiers: ["8825009", "21786318"], daysAgo: 0, publishInDays: 3 },
  // Mid-cascade: Tier 3 since publication, Tier 2 in two days, Tier 1 in nine, everyone in 55.
  {
    title: "Midnight Observatory",
    kind: "tier",
    daysAgo: 5,
    release: [
      { tierId: "21786318", afterDays: 0 },
      { tierId: "8825009", afterDays: 7 },
      { tierId: "8824971", afterDays: 14 },
      { tierId: null, afterDays: 60 },
    ],
  },
  // A Blender add-on (docs/product.md#blender-extensions), listed in supporters' Blender repository.
  { title: BLENDER_DEMO_TITLE, kind: "tier", tiers: ["8824971", "8825009", "21786318"], daysAgo: 3 },
];

/** Demo tags and the posts that carry them. */
export const DEMO_TAGS: [string, string[]][] = [
  ["Builds", ["Cozy Cabin Lot", "Victorian Greenhouse", "Lakeside Pier", "Gothic Cathedral Windows"]],
  ["Clothing", ["Neon Streetwear Set", "Winter Coat Bundle", "Autumn Hair Collection"]],
  ["Furniture", ["Starter Furniture Pack", "Minimalist Kitchen", "Retro Diner Counter"]],
];

/** Shop items whose price the creator entered (cents, USD). */
const DEMO_SHOP_PRICES: [string, number][] = [
  ["Victorian Greenhouse", 450],
  ["Sci-Fi Bedroom", 600],
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

/**
 * Bug reports in each state (docs/product.md#bug-reports) on the post with the most downloaders of
 * the generated past (the ZIP set when it has enough), each reported by one of them, with "me
 * too"s from others: new, confirmed, fixed in the post's current version (its notices counted as
 * told: the demo mails nobody) and won't fix. The demo accounts keep no records of their own.
 */
async function seedBugReports(
  tx: Prisma.TransactionClient,
  posts: { id: string; post: DemoPost }[],
  downloads: Prisma.DownloadCreateManyInput[],
  now: Date,
): Promise<void> {
  const downloaders = new Map<string, string[]>();
  for (const row of downloads) {
    const list = downloaders.get(row.postId) ?? [];
    if (!list.includes(row.userId)) list.push(row.userId);
    downloaders.set(row.postId, list);
  }
  const zip = posts.find((entry) => entry.post.title === ZIP_DEMO_TITLE);
  const busiest = [...downloaders.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))[0];
  const postId = zip && (downloaders.get(zip.id)?.length ?? 0) >= 8 ? zip.id : busiest?.[0];
  const people = postId ? downloaders.get(postId)! : [];
  if (!postId || people.length < 8) return;
  const post = await tx.post.findUniqueOrThrow({ where: { id: postId }, select: { currentVersionId: true, version: true } });
  const reported = (index: number) =>
    downloads.filter((row) => row.postId === postId && row.userId === people[index]).map((row) => row.version)[0] ?? post.version;
  const reports = [
    {
      state: "NEW" as const,
      title: "Hoodie clips through long hair",
      body: "With any long hairstyle the hood goes through the hair at the back.",
      patch: "1.113",
      days: 2,
      meToos: [4, 5, 6],
    },
    {
      state: "CONFIRMED" as const,
      title: "Sneakers lose their colour after saving",
      body: "I pick a colour, save the outfit, and after loading the game they are white again.",
      patch: "1.112",
      days: 6,
      meToos: [5],
    },
    {
      state: "FIXED" as const,
      title: "Jacket missing from the catalogue",
      body: "The jacket does not show up in the catalogue, only the hoodie and sneakers do.",
      patch: "1.111",
      days: 14,
      meToos: [6, 7],
    },
    {
      state: "WONT_FIX" as const,
      title: "Does not work on the old 1.98 patch",
      body: "On game patch 1.98 the game shows an error when loading the set.",
      patch: "1.98",
      days: 20,
      meToos: [],
    },
  ];
  for (const [index, report] of reports.entries()) {
    const createdAt = new Date(now.getTime() - report.days * DAY);
    const fixed = report.state === "FIXED" ? new Date(createdAt.getTime() + 4 * DAY) : null;
    await tx.bugReport.create({
      data: {
        postId,
        userId: people[index]!,
        versionLabel: reported(index),
        gamePatch: report.patch,
        title: report.title,
        body: report.body,
        state: report.state,
        createdAt,
        fixedVersionId: fixed ? post.currentVersionId : null,
        fixedAt: fixed,
        fixNoticeAt: fixed,
        meToos: { create: report.meToos.map((at) => ({ userId: people[at]!, createdAt: new Date(createdAt.getTime() + DAY) })) },
      },
    });
  }
}

export async function seedDemoContent(db: PrismaClient, store: Storage, now = new Date()): Promise<boolean> {
  const [site] = await db.$queryRawUnsafe<{ fresh: boolean }[]>(FRESH_SITE_SQL);
  if (site?.fresh !== true) return false;

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
    versions: DemoVersion[];
    files: DemoFile[];
  }[] = [];
  for (const [position, post] of POSTS.entries()) {
    const id = String(100000 + position * 7919);
    const version = post.version ?? "V1.0";
    const published = new Date(now.getTime() + (post.publishInDays ?? -post.daysAgo) * DAY);
    const imageKey = post.withImage === false ? null : `images/posts/${id}.jpg`;
    if (imageKey) await store.put(imageKey, await demoImage(null, position, post.title));
    const updated =
      post.updatedDaysAgo === undefined ? new Date(Math.min(published.getTime(), now.getTime())) : new Date(now.getTime() - post.updatedDaysAgo * DAY);
    // Every file is a version; the ZIP demo post has two, a changelog between them.
    const versions: DemoVersion[] = [];
    if (post.title === ZIP_DEMO_TITLE) {
      for (const [index, demo] of ZIP_DEMO_VERSIONS.entries()) {
        const zip = demoZip(demo.files);
        const fileName = `${slugify(post.title)}-${demo.label.toLowerCase()}.zip`;
        const fileKey = `posts/${id}/${fileName}`;
        await store.put(fileKey, zip.bytes);
        // A scheduled post's file is uploaded now, before its publication.
        const createdAt = index === ZIP_DEMO_VERSIONS.length - 1 ? updated : new Date(Math.min(published.getTime(), now.getTime()));
        versions.push({
          label: demo.label,
          notes: demo.notes,
          fileKey,
          fileName,
          size: zip.bytes.length,
          ...demoDigest(zip.bytes),
          zipEntries: zip.entries,
          createdAt,
        });
      }
    } else if (post.title === BLENDER_DEMO_TITLE) {
      const zip = demoZip(BLENDER_DEMO_FILES);
      const fileName = "cabin_builder-1.0.0.zip";
      const fileKey = `posts/${id}/${fileName}`;
      await store.put(fileKey, zip.bytes);
      versions.push({
        label: version,
        notes: "First release: *Add > Mesh > Log Cabin* in the 3D viewport.",
        fileKey,
        fileName,
        size: zip.bytes.length,
        ...demoDigest(zip.bytes),
        zipEntries: zip.entries,
        blenderManifest: blenderDemoManifest(),
        createdAt: updated,
      });
    } else {
      const fileName = `${slugify(post.title)}-${version.toLowerCase()}.package`;
      const fileKey = `posts/${id}/${fileName}`;
      const bytes = demoPackage(post.title, version, 24 + (position % 5) * 40);
      await store.put(fileKey, bytes);
      versions.push({ label: version, notes: "", fileKey, fileName, size: bytes.length, ...demoDigest(bytes), zipEntries: null, createdAt: updated });
    }
    const current = versions[versions.length - 1]!;
    const files: DemoFile[] = [];
    if (post.title === VARIANTS_DEMO_TITLE) {
      for (const file of VARIANTS_DEMO_FILES) {
        const fileName = `${slugify(post.title)}-${file.slug}-${version.toLowerCase()}.package`;
        const fileKey = `posts/${id}/${fileName}`;
        const bytes = demoPackage(`${post.title} (${file.label})`, version, 16);
        await store.put(fileKey, bytes);
        files.push({ ...file, fileKey, fileName, size: bytes.length, ...demoDigest(bytes) });
      }
    }
    posts.push({
      id,
      post,
      version: current.label,
      published,
      imageKey,
      fileKey: current.fileKey,
      fileName: current.fileName,
      size: current.size,
      versions,
      files,
    });
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

  const history: HistoryPost[] = [];
  /** Each demo post's version rows, oldest first (for the game patches' marks). */
  const versionsByTitle = new Map<string, { id: string; label: string }[]>();
  await db.$transaction(
    async (tx) => {
      // The migrations already hold these tiers by id (0030); the demo gives them titles and prices.
      for (const tier of DEMO_TIERS) await tx.tier.upsert({ where: { id: tier.id }, create: { ...tier }, update: { ...tier } });
      for (const { id, post, version, published, imageKey, fileKey, fileName, size, versions, files } of posts) {
        await tx.post.create({
          data: {
            id,
            title: post.title,
            imageKey,
            paidContent: post.kind !== "free",
            url: `${slugify(post.title)}-${id}`,
            kofiId: post.kind === "shop" || post.kind === "both" ? `D${id}` : null,
            isKofiOnly: post.kind === "shop",
            blenderExtension: post.title === BLENDER_DEMO_TITLE ? "ADD_ON" : null,
            driveFileId: fileKey,
            fileName,
            fileSize: BigInt(size),
            version,
            firstPublishedAt: published,
            publishedAt: published,
            publishAt: post.publishInDays === undefined ? null : published,
            lastUpdated: post.updatedDaysAgo === undefined ? published : new Date(now.getTime() - post.updatedDaysAgo * DAY),
            orderDate: published,
            tiers: {
              create: [
                ...(post.tiers ?? []).map((tierId) => ({ tierId, kind: "CURRENT" as const })),
                ...(post.firstTiers ?? []).map((tierId) => ({ tierId, kind: "FIRST" as const })),
              ],
            },
            releaseSteps: {
              create: (post.release ?? []).map((step, position) => ({
                position,
                audienceTierId: step.tierId,
                tierIds: step.tierId ? audienceTierIds(step.tierId, DEMO_TIER_PRICES) : [],
                afterDays: step.afterDays,
                opensAt: new Date(published.getTime() + step.afterDays * DAY),
              })),
            },
          },
        });
        let currentVersionId = "";
        const versionRows: HistoryPost["versions"] = [];
        for (const demo of versions) {
          const created = await tx.postVersion.create({
            data: {
              postId: id,
              label: demo.label,
              notes: demo.notes,
              storageKey: demo.fileKey,
              fileName: demo.fileName,
              size: BigInt(demo.size),
              sha256: demo.sha256,
              contentHash: demo.contentHash,
              ...(demo.zipEntries ? { zipEntries: demo.zipEntries } : {}),
              ...(demo.blenderManifest ? { blenderManifest: demo.blenderManifest } : {}),
              createdAt: demo.createdAt,
            },
          });
          currentVersionId = created.id;
          versionRows.push({ id: created.id, label: demo.label, createdAt: demo.createdAt });
        }
        await tx.post.update({ where: { id }, data: { currentVersionId } });
        await tx.versionFile.createMany({
          data: files.map((file, position) => ({
            versionId: currentVersionId,
            role: file.role,
            label: file.label,
            position,
            storageKey: file.fileKey,
            fileName: file.fileName,
            size: BigInt(file.size),
            sha256: file.sha256,
            contentHash: file.contentHash,
            gateTierIds: [...file.gateTierIds],
          })),
        });
        versionsByTitle.set(post.title, versionRows);
        // The release demo posts are new: the generated past (drawn from a fixed sequence) leaves them out.
        if (post.release || post.publishInDays !== undefined || post.title === BLENDER_DEMO_TITLE) continue;
        history.push({
          id,
          paidContent: post.kind !== "free",
          isKofiOnly: post.kind === "shop",
          kofiId: post.kind === "shop" || post.kind === "both" ? `D${id}` : null,
          currentTierIds: post.tiers ?? [],
          firstTierIds: post.firstTiers ?? [],
          published,
          versions: versionRows,
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
      const ideaTitles = inspirationImages.map((_imageUrl, position) => `Idea #${position + 1}`);
      const ideas = await tx.inspirationPanel.createManyAndReturn({
        data: inspirationImages.map((imageUrl, position) => ({ imageUrl, title: ideaTitles[position]! })),
        select: { id: true, title: true },
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
      const supporter = await tx.user.create({
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
      // The generated past, after the demo accounts: their leak-trace numbers do not change, and
      // they stay first in the admin's newest-first user list (the generated ones are older).
      const past = buildDemoHistory({
        random: randomFrom(HISTORY_SEED),
        now,
        tiers: DEMO_TIERS,
        posts: history,
        ideaIds: ideaTitles.map((title) => ideas.find((idea) => idea.title === title)!.id),
      });
      await tx.user.createMany({ data: past.users });
      await tx.pledgeEvent.createMany({ data: past.pledgeEvents });
      await tx.shopEmail.createMany({ data: past.shopEmails });
      await tx.unlockedContent.createMany({ data: past.unlocks });
      await tx.purchase.createMany({ data: past.purchases });
      // In parts, so no single statement runs long on a slow first start.
      for (let start = 0; start < past.downloads.length; start += 500) await tx.download.createMany({ data: past.downloads.slice(start, start + 500) });
      await tx.inspirationLike.createMany({ data: past.likes });
      // A shipped idea (docs/product.md#releases): Idea #1 became the post mid-cascade, and its
      // voters (the demo supporter among them) are kept with it.
      const shippedIdea = ideas.find((idea) => idea.title === "Idea #1")!;
      const realized = posts.find((entry) => entry.post.title === "Midnight Observatory")!;
      await tx.inspirationPanel.update({ where: { id: shippedIdea.id }, data: { postId: realized.id, shippedAt: now, status: "SHIPPED" } });
      const voterIds = new Set(past.likes.filter((like) => like.panelId === shippedIdea.id).map((like) => like.userId));
      voterIds.add(supporter.id);
      await tx.inspirationVoter.createMany({ data: [...voterIds].map((userId) => ({ panelId: shippedIdea.id, userId })) });
      await tx.updateSubscription.createMany({ data: past.subscriptions });
      await seedGamePatches(tx, now, versionsByTitle, past.downloads);
      // Discord roles that follow access (docs/product.md#discord-roles): shown on /admin/discord
      // whether or not DISCORD_BOT_TOKEN and DISCORD_GUILD_ID are set (off by default).
      await tx.discordRoleMapping.createMany({
        data: [
          { roleId: "1200000000000000001", roleName: "Gold", rule: "TIER_AT_LEAST", tierId: "8825009" },
          { roleId: "1200000000000000002", roleName: "Voter", rule: "VOTED_FOR_IDEA", panelId: shippedIdea.id },
        ],
      });
      // Requirements, tags and shop prices (docs/product.md#requirements, #tags, #prices): a Tier 1
      // post that requires a Tier 2 one from V2 on and an outside item; tags on several posts.
      const postIdOf = (title: string) => posts.find((entry) => entry.post.title === title)!.id;
      await tx.postRequirement.createMany({
        data: [
          { postId: postIdOf("Winter Coat Bundle"), position: 0, requiredPostId: postIdOf("Neon Streetwear Set"), minVersion: "V2" },
          { postId: postIdOf("Winter Coat Bundle"), position: 1, name: "Script Extender", url: "https://example.com/script-extender" },
        ],
      });
      for (const [name, titles] of DEMO_TAGS) {
        const tag = await tx.tag.create({ data: { name, slug: slugify(name) } });
        await tx.postTag.createMany({ data: titles.map((title) => ({ postId: postIdOf(title), tagId: tag.id })) });
      }
      for (const [title, cents] of DEMO_SHOP_PRICES)
        await tx.post.update({ where: { id: postIdOf(title) }, data: { shopPriceCents: cents, shopCurrency: "USD" } });
      await seedBugReports(tx, posts, past.downloads, now);
      // All or nothing, however slow the machine: Prisma's default 5 s limit was exceeded by a
      // first start on a loaded 2-core machine, which then failed and seeded nothing.
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
  // What the hourly insights job does, once now: the charts read its rollups from the first visit.
  // Imported here: the module opens the app's database, which importing the demo's constants must not.
  const { refreshInsightsRollups } = await import("~/models/insights/rollup.server");
  await refreshInsightsRollups(now);
  return true;
}
