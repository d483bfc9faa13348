// Who sees what, route by route (docs/security-model.md#who-sees-a-post): every route file in
// app/routes is either one that serves post data, probed here, or named with why it serves none
// (so a new route cannot be forgotten). Each probe asks about a scheduled, a disabled and a
// restricted-audience post (paid, for a tier nobody here has) as a guest, a fan (signed in, no
// tier) and a supporter (another tier): the scheduled and disabled posts are never mentioned and
// their files never served, and the restricted one is never handed out. Every probe must also
// find an open post, so a probe that could not see a leak fails the test instead.
import { readdirSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { storage } from "~/integrations/storage.server";
import { signedDownloadUrl, signedLibraryFileUrl } from "~/models/download.server";
import { linkIdeaToPost } from "~/models/inspiration-shipped.server";
import { regenerateFeedToken } from "~/models/update-notifications.server";
import { setEnv } from "./env";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2, TIER_3 } from "./library-fixtures";

const DAY = 86_400_000;
const KINDS = ["scheduled", "disabled", "restricted", "open"] as const;
type Kind = (typeof KINDS)[number];
const VIEWERS = ["guest", "fan", "supporter"] as const;
type ViewerName = (typeof VIEWERS)[number];

type FixturePost = { id: string; title: string; versionId: string };
type Viewer = { name: ViewerName; user: User | null; cookie?: string; feedToken?: string };
/** What a response gave away about a post: named it (id or title), and handed it out (its file, an address to it, "unlocked"). */
type Seen = { mentions: boolean; grants: boolean };
type Probe = (post: FixturePost, viewer: Viewer) => Promise<Seen>;

const posts = {} as Record<Kind, FixturePost>;
const viewers = {} as Record<ViewerName, Viewer>;
/** Fixture ids by post id: the idea each post realizes (shipped), the known issue each post has. */
const ideaOf = new Map<string, string>();
const reportOf = new Map<string, string>();

// Each route module through a glob Vite can see (a computed import makes it warn at every run).
const routeModules = import.meta.glob<Parameters<typeof callRoute>[0]>("../app/routes/*.{ts,tsx}");
const route = (file: string) => routeModules[`../app/routes/${file}`]!();
const named = (text: string, post: FixturePost) => text.includes(post.id) || text.includes(post.title);

/** The listing's entry of the post in a JSON body with `posts`, if any. */
function listedIn(text: string, post: FixturePost): { unlocked?: boolean } | undefined {
  const body = JSON.parse(text) as { posts?: { postId: string; unlocked?: boolean }[] };
  return body.posts?.find((item) => item.postId === post.id);
}

/**
 * What a route answers while the account's Discord roles could name the post: Discord is
 * configured, and roles are mapped to owning the post, to holding a grant of it and to any paid
 * access, with the post granted to the account, so every rule that names a post could name this
 * one. A role hands out no file: only what the answer names counts.
 */
async function withDiscordRoles(post: FixturePost, viewer: Viewer, read: () => Promise<string>): Promise<Seen> {
  setEnv("DISCORD_BOT_TOKEN", "matrix-bot-token");
  setEnv("DISCORD_GUILD_ID", "600000000000000001");
  await db.discordRoleMapping.createMany({
    data: [
      { roleId: "600000000000000011", roleName: "Owner", rule: "OWNS_POST", postId: post.id },
      { roleId: "600000000000000012", roleName: "Granted", rule: "HOLDS_GRANT", postId: post.id },
      { roleId: "600000000000000013", roleName: "AnyGrant", rule: "HOLDS_GRANT" },
      { roleId: "600000000000000014", roleName: "Paid", rule: "ANY_PAID_ACCESS" },
    ],
  });
  if (viewer.user) await db.unlockedContent.create({ data: { userId: viewer.user.id, postId: post.id, source: "ADMIN" } });
  try {
    return { mentions: named(await read(), post), grants: false };
  } finally {
    await db.discordRoleMapping.deleteMany();
    await db.unlockedContent.deleteMany({ where: { postId: post.id } });
    setEnv("DISCORD_BOT_TOKEN", undefined);
    setEnv("DISCORD_GUILD_ID", undefined);
  }
}

/** A like of the idea the post realizes: 409 ("shipped") says the post is there; one the viewer may not see is not found. */
function likeProbe(kind: "like" | "patreon-like"): Probe {
  return async (post, viewer) => {
    const id = ideaOf.get(post.id)!;
    const response = await callRoute(await route(`api.inspiration.panels.$id.${kind}.ts`), {
      method: "POST",
      path: `/api/inspiration/panels/${id}/${kind}`,
      params: { id },
      json: {},
      cookie: viewer.cookie,
    });
    const text = await response.text();
    return { mentions: response.status === 409 || response.status === 200 || named(text, post), grants: false };
  };
}

const PROBES: Record<string, Probe> = {
  "library.tsx": async (post, viewer) => {
    const text = await (await callRoute(await route("library.tsx"), { path: "/library?show=500", cookie: viewer.cookie })).text();
    return { mentions: named(text, post), grants: listedIn(text, post)?.unlocked === true };
  },
  "api.library.posts.ts": async (post, viewer) => {
    const text = await (await callRoute(await route("api.library.posts.ts"), { path: "/api/library/posts", cookie: viewer.cookie })).text();
    return { mentions: named(text, post), grants: listedIn(text, post)?.unlocked === true };
  },
  "api.download.$postId.ts": async (post, viewer) => {
    const response = await callRoute(await route("api.download.$postId.ts"), {
      path: `/api/download/${post.id}`,
      params: { postId: post.id },
      cookie: viewer.cookie,
    });
    const ok = response.status === 200 || response.status === 206;
    await response.arrayBuffer();
    return { mentions: ok, grants: ok };
  },
  "api.download.freedownload.$postId.ts": async (post, viewer) => {
    const response = await callRoute(await route("api.download.freedownload.$postId.ts"), {
      path: `/api/download/freedownload/${post.id}`,
      params: { postId: post.id },
      cookie: viewer.cookie,
    });
    const ok = response.status === 200 && (await response.text()).includes("downloadUrl");
    return { mentions: ok, grants: ok };
  },
  // An address handed out before the post was scheduled or disabled must stop working.
  "download.$postId.ts": async (post, viewer) => {
    const address = new URL(signedDownloadUrl(post.id, viewer.user?.id ?? null));
    const response = await callRoute(await route("download.$postId.ts"), { path: `${address.pathname}${address.search}`, params: { postId: post.id } });
    const ok = response.status === 200;
    await response.arrayBuffer();
    return { mentions: ok, grants: ok };
  },
  // The cover: shown on locked cards too, so only a mention.
  "media.$.ts": async (post, viewer) => {
    const response = await callRoute(await route("media.$.ts"), {
      path: `/media/posts/${post.id}.jpg`,
      params: { "*": `posts/${post.id}.jpg` },
      cookie: viewer.cookie,
    });
    await response.arrayBuffer();
    return { mentions: response.status === 200, grants: false };
  },
  // Version labels and hashes: for anyone who sees the post, locked or not.
  "library.$postId.versions.ts": async (post, viewer) => {
    const response = await callRoute(await route("library.$postId.versions.ts"), {
      path: `/library/${post.id}/versions`,
      params: { postId: post.id },
      cookie: viewer.cookie,
    });
    const text = await response.text();
    return { mentions: response.status === 200 && text.includes(post.versionId), grants: false };
  },
  // What a sync tool may download: exactly what the download check clears.
  "api.library.manifest.ts": async (post, viewer) => {
    const text = await (await callRoute(await route("api.library.manifest.ts"), { path: "/api/library/manifest", cookie: viewer.cookie })).text();
    return { mentions: named(text, post), grants: named(text, post) };
  },
  // The Blender repository lists marked posts the account may download: each fixture post is
  // marked as an add-on here, its version holding a checked manifest that names it.
  "api.blender.index[.]json.ts": async (post, viewer) => {
    await db.post.update({ where: { id: post.id }, data: { blenderExtension: "ADD_ON" } });
    const manifest = {
      schema_version: "1.0.0",
      id: `post_${post.id}`,
      version: "1.0.0",
      name: post.title,
      tagline: "A fixture add-on",
      maintainer: "Tests",
      type: "add-on",
      license: ["SPDX:MIT"],
      blender_version_min: "4.2.0",
    };
    await db.postVersion.update({ where: { id: post.versionId }, data: { blenderManifest: manifest } });
    const text = await (await callRoute(await route("api.blender.index[.]json.ts"), { path: "/api/blender/index.json", cookie: viewer.cookie })).text();
    return { mentions: named(text, post), grants: named(text, post) };
  },
  // A manifest's file address handed out before the post was scheduled or disabled must stop working.
  "api.library.files.$postId.ts": async (post, viewer) => {
    if (!viewer.user) return { mentions: false, grants: false };
    const address = new URL(signedLibraryFileUrl(post.id, viewer.user.id, post.versionId, Date.now() + 3_600_000));
    const response = await callRoute(await route("api.library.files.$postId.ts"), {
      path: `${address.pathname}${address.search}`,
      params: { postId: post.id },
    });
    const ok = response.status === 200 || response.status === 206;
    await response.arrayBuffer();
    return { mentions: ok, grants: ok };
  },
  // A delta between two versions: from the current one it is a 409, which still says the post is
  // there; a hidden post is not found, whatever the version.
  "api.library.posts.$id.delta.ts": async (post, viewer) => {
    const response = await callRoute(await route("api.library.posts.$id.delta.ts"), {
      path: `/api/library/posts/${post.id}/delta?from=V1.0`,
      params: { id: post.id },
      cookie: viewer.cookie,
    });
    await response.arrayBuffer();
    return {
      mentions: response.status !== 404 && response.status !== 401,
      grants: response.status === 200 || response.status === 206 || response.status === 409,
    };
  },
  // The post's own page and its API twin: the card's data, for anyone who sees the post.
  "library_.$postId.tsx": async (post, viewer) => {
    const response = await callRoute(await route("library_.$postId.tsx"), { path: `/library/${post.id}`, params: { postId: post.id }, cookie: viewer.cookie });
    const text = response.status === 200 ? await response.text() : "";
    const page = text ? (JSON.parse(text) as { post?: { unlocked?: boolean } }) : {};
    return { mentions: named(text, post), grants: page.post?.unlocked === true };
  },
  // A player's answer on the current game patch: for a version the viewer downloaded (made here),
  // never for a post they may not see (404 like an unknown one).
  "api.library.posts.$id.compatibility.ts": async (post, viewer) => {
    await db.gamePatch.upsert({ where: { name: "vis-1.0" }, create: { name: "vis-1.0", currentSince: new Date() }, update: {} });
    if (viewer.user) await db.download.create({ data: { userId: viewer.user.id, postId: post.id, version: "V1.0", versionId: post.versionId } });
    const response = await callRoute(await route("api.library.posts.$id.compatibility.ts"), {
      method: "POST",
      path: `/api/library/posts/${post.id}/compatibility`,
      params: { id: post.id },
      json: { verdict: "works" },
      cookie: viewer.cookie,
    });
    return { mentions: response.status === 200, grants: false };
  },
  "api.library.posts.$id.ts": async (post, viewer) => {
    const response = await callRoute(await route("api.library.posts.$id.ts"), {
      path: `/api/library/posts/${post.id}`,
      params: { id: post.id },
      cookie: viewer.cookie,
    });
    const text = await response.text();
    const body = response.status === 200 ? (JSON.parse(text) as { post?: { unlocked?: boolean } }) : {};
    return { mentions: response.status === 200 && named(text, post), grants: body.post?.unlocked === true };
  },
  // Known issues: the post's reports (titles and states), for whoever sees the post.
  "api.library.posts.$id.reports.ts": async (post, viewer) => {
    const response = await callRoute(await route("api.library.posts.$id.reports.ts"), {
      path: `/api/library/posts/${post.id}/reports`,
      params: { id: post.id },
      cookie: viewer.cookie,
    });
    const text = await response.text();
    return { mentions: response.status === 200 && text.includes(`Bug on ${post.title}`), grants: false };
  },
  // Every item of the feed is something the account may download.
  "feeds.$token[.]atom.ts": async (post, viewer) => {
    const token = viewer.feedToken ?? "A".repeat(43);
    const text = await (await callRoute(await route("feeds.$token[.]atom.ts"), { path: `/feeds/${token}.atom`, params: { token } })).text();
    return { mentions: named(text, post), grants: named(text, post) };
  },
  "account.downloads.tsx": async (post, viewer) => {
    const text = await (await callRoute(await route("account.downloads.tsx"), { path: "/account/downloads", cookie: viewer.cookie })).text();
    return { mentions: named(text, post), grants: false };
  },
  // "Updates for you" lists what the account may download again; "coming" names locked posts.
  "account.updates.tsx": async (post, viewer) => {
    const response = await callRoute(await route("account.updates.tsx"), { path: "/account/updates", cookie: viewer.cookie });
    const text = await response.text();
    const updates = response.status === 200 ? ((JSON.parse(text) as { updates?: { postId: string }[] }).updates ?? []) : [];
    return { mentions: named(text, post), grants: updates.some((item) => item.postId === post.id) };
  },
  // Shipped ideas name the post that realizes them.
  "inspiration-vote.tsx": async (post, viewer) => {
    const text = await (await callRoute(await route("inspiration-vote.tsx"), { path: "/inspiration-vote", cookie: viewer.cookie })).text();
    return { mentions: named(text, post), grants: false };
  },
  // The account's own records name the posts they concern; a post it may not see keeps only its id.
  "account.data.ts": async (post, viewer) => {
    const response = await callRoute(await route("account.data.ts"), { method: "POST", path: "/account/data", cookie: viewer.cookie });
    const text = response.status === 200 ? await response.text() : "";
    return { mentions: text.includes(post.title) || text.includes(`"postId": "${post.id}",\n      "title"`), grants: false };
  },
  // The library's download button: an address to the file, or a refusal.
  "library.tsx#download": async (post, viewer) => {
    const response = await callRoute(await route("library.tsx"), {
      method: "POST",
      path: "/library",
      form: { intent: "download", postId: post.id, respond: "json", back: "/library" },
      cookie: viewer.cookie,
    });
    const ok = response.status === 200 && (await response.text()).includes("downloadUrl");
    return { mentions: ok, grants: ok };
  },
  // The account as the API answers it: its downloads (made before) and grants (one of the post, here) name their posts.
  "api.auth.user.ts": async (post, viewer) => {
    if (viewer.user) await db.unlockedContent.create({ data: { userId: viewer.user.id, postId: post.id, source: "ADMIN" } });
    try {
      const text = await (await callRoute(await route("api.auth.user.ts"), { path: "/api/auth/user", cookie: viewer.cookie })).text();
      return { mentions: named(text, post), grants: false };
    } finally {
      await db.unlockedContent.deleteMany({ where: { postId: post.id } });
    }
  },
  // The vote's panels: an idea shipped as a post says so (status "shipped").
  "api.inspiration.panels.ts": async (post, viewer) => {
    const text = await (await callRoute(await route("api.inspiration.panels.ts"), { path: "/api/inspiration/panels", cookie: viewer.cookie })).text();
    const panel = (JSON.parse(text) as { panels: { id: string; status: string }[] }).panels.find((item) => item.id === ideaOf.get(post.id));
    return { mentions: panel?.status === "shipped" || named(text, post), grants: false };
  },
  "api.inspiration.panels.$id.like.ts": likeProbe("like"),
  "api.inspiration.panels.$id.patreon-like.ts": likeProbe("patreon-like"),
  // The vote page's like form (answered in place with JavaScript): as the like API.
  "inspiration-vote.tsx#like": async (post, viewer) => {
    const response = await callRoute(await route("inspiration-vote.tsx"), {
      method: "POST",
      path: "/inspiration-vote",
      form: { intent: "like", panelId: ideaOf.get(post.id)!, like: "true", respond: "json" },
      cookie: viewer.cookie,
    });
    const text = await response.text();
    return { mentions: response.status === 409 || response.status === 200 || named(text, post), grants: false };
  },
  // "Me too" on the post's known issue (and taking it back) answers a count, or why not: anything but
  // 401 (a guest) or 404 (like an unknown report) says the report, and so its post, is there.
  "api.reports.$id.me-too.ts": async (post, viewer) => {
    const id = reportOf.get(post.id)!;
    let mentions = false;
    for (const method of ["POST", "DELETE"]) {
      const response = await callRoute(await route("api.reports.$id.me-too.ts"), {
        method,
        path: `/api/reports/${id}/me-too`,
        params: { id },
        cookie: viewer.cookie,
      });
      const text = await response.text();
      if ((response.status !== 401 && response.status !== 404) || named(text, post)) mentions = true;
    }
    return { mentions, grants: false };
  },
  // The post page's "me too" form (and its undo): done is a 303 with a toast; a guest is sent to
  // /login; any refusal but 404 says the report, and so its post, is there.
  "library_.$postId.tsx#me-too": async (post, viewer) => {
    const reportId = reportOf.get(post.id)!;
    let mentions = false;
    for (const intent of ["me-too", "undo-me-too"]) {
      const response = await callRoute(await route("library_.$postId.tsx"), {
        method: "POST",
        path: `/library/${post.id}`,
        params: { postId: post.id },
        form: { intent, reportId },
        cookie: viewer.cookie,
      });
      const text = await response.text();
      if (response.status === 303 || (response.status >= 400 && response.status !== 404) || named(text, post)) mentions = true;
    }
    return { mentions, grants: false };
  },
  // The account's Discord roles and why (the account page shows the same sentences).
  "api.account.discord-roles.ts": (post, viewer) =>
    withDiscordRoles(post, viewer, async () =>
      (await callRoute(await route("api.account.discord-roles.ts"), { path: "/api/account/discord-roles", cookie: viewer.cookie })).text(),
    ),
  "login.tsx": (post, viewer) =>
    withDiscordRoles(post, viewer, async () => (await callRoute(await route("login.tsx"), { path: "/login", cookie: viewer.cookie })).text()),
};

/** Route files that serve no post data to these viewers, and why. */
const NO_POST_DATA: Record<string, string> = {
  "$.tsx": "the not-found page",
  "api.$.ts": "the not-found answer of the API",
  "_index.tsx": "the home page's panels",
  "account.delete.tsx": "the account",
  "account.tokens.tsx": "the account's API tokens",
  "api.account.tokens.ts": "the account's API tokens",
  "api.account.tokens.$id.ts": "the account's API tokens",
  "account.export.tsx": "the page with the export's button (the file is account.data.ts)",
  "account.notifications.tsx": "mail and feed settings",
  "account.shop-email.tsx": "shop emails",
  "api.auth.callback.ts": "sign-in",
  "api.auth.change-password.ts": "the account",
  "api.auth.forgot-password.ts": "the account",
  "api.auth.login.ts": "sign-in",
  "api.auth.logout.ts": "sign-out",
  "api.auth.patreon-callback.ts": "sign-in",
  "api.auth.register.ts": "sign-up",
  "api.auth.resend-verification.ts": "the account",
  "api.auth.reset-password.ts": "the account",
  "api.auth.set-password.ts": "the account",
  "api.auth.toggle-admin.ts": "the account",
  "api.auth.update-username.ts": "the account",
  "api.auth.verify-email.ts": "the account",
  "api.discord.auth.ts": "sign-in",
  "api.discord.callback.ts": "sign-in",
  "api.discord.set-username-discord.ts": "the account",
  "api.google.auth.ts": "sign-in",
  "api.google.callback.ts": "sign-in",
  "api.google.set-username-google.ts": "the account",
  "api.inspiration.config.ts": "the vote's settings",
  "api.inspiration.panels.$id.ts": "vote panels (admins edit)",
  "api.inspiration.reset-likes.ts": "votes (admins)",
  "api.inspiration.title.ts": "the vote's title",
  "api.kofi.cancel-verification.ts": "shop emails",
  "api.kofi.link.ts": "shop emails",
  "api.kofi.resend-verification.ts": "shop emails",
  "api.kofi.verify-email.ts": "shop emails",
  "api.library.accept-tos.$id.ts": "the terms' answer",
  "api.library.tiers.ts": "tiers",
  "api.panels.$id.expanded.ts": "home panels",
  "api.panels.$id.ts": "home panels",
  "api.panels.ts": "home panels",
  "api.panelsupload.$id.image.ts": "home panels (admins)",
  "api.webhooks.kofi.ts": "shop webhooks",
  "api.webhooks.patreon.ts": "membership webhooks",
  "auth.callback.tsx": "sign-in",
  "forgot-password.tsx": "the account",
  "healthz.ts": "health",
  "infos.tsx": "the info page",
  "account._index.ts": "a redirect to the account page (/login)",
  "panel_images.$file.ts": "home panels' images",
  "unsubscribe.$token.tsx": "mail settings",
  // Admins only: every other viewer is refused (tests/authorization-matrix.test.ts pins it).
  "admin.tsx": "admins only",
  "admin_.access-check.tsx": "admins only",
  "admin_.insights.$chart[.]csv.ts": "admins only",
  "admin_.insights.tsx": "admins only",
  "admin_.releases.tsx": "admins only",
  "admin_.posts.tsx": "admins only",
  "admin_.posts_.$postId.tsx": "admins only",
  "admin_.mail.tsx": "admins only",
  "admin_.patches.tsx": "admins only",
  "api.admin.patches.ts": "admins only",
  "api.admin.patches.$id.current.ts": "admins only",
  "api.admin.posts.$id.compatibility.ts": "admins only",
  "api.admin.posts.$id.compatibility.accept.ts": "admins only",
  "admin_.catalog.tsx": "admins only",
  "api.admin.tags.ts": "admins only",
  "api.admin.tags.$id.ts": "admins only",
  "api.admin.posts.$id.tags.ts": "admins only",
  "api.admin.posts.$id.versions.$versionId.files.ts": "admins only",
  "api.admin.posts.$id.files.$fileId.ts": "admins only",
  "api.admin.posts.$id.requirements.ts": "admins only (required posts by id and title, as the post editor)",
  "api.admin.tiers.$id.ts": "admins only",
  "api.admin.mail.ts": "admins only",
  "admin_.discord.tsx": "admins only",
  "api.admin.discord-roles.ts": "admins only",
  "api.admin.discord-roles.$id.ts": "admins only",
  "api.admin.force-interval.ts": "admins only",
  "api.admin.import-purchases.ts": "admins only",
  "api.admin.posts.getByIds.ts": "admins only",
  "api.admin.posts.ts": "admins only",
  "api.admin.search-by-code.ts": "admins only",
  "api.admin.unlock-objects-user.ts": "admins only",
  "api.admin.users.$id.ts": "admins only",
  "api.admin.users.ts": "admins only",
  "api.library.posts.$id.order.ts": "admins only",
  "api.library.posts.$id.publish.ts": "admins only",
  "api.library.posts.$id.release.ts": "admins only",
  "api.library.posts.$id.toggle.ts": "admins only",
  "api.upload.file.$id.ts": "admins only",
  "api.upload.front.$id.ts": "admins only",
  "api.admin.reports.ts": "admins only",
  "api.admin.reports.$id.ts": "admins only",
  "admin_.reports.tsx": "admins only",
  "api.uploads.ts": "admins only",
  "api.uploads.$uploadId.ts": "only the admin who started the upload",
  "api.uploads.$uploadId.complete.ts": "only the admin who started the upload",
  "api.uploads.$uploadId.parts.$part.ts": "only the admin who started the upload",
};

const routesDir = path.resolve(import.meta.dirname, "../app/routes");
const routeFiles = readdirSync(routesDir).filter((file) => /\.(tsx?|jsx?)$/.test(file) && !/\.test\./.test(file) && !file.startsWith("."));

/** A post with a stored front, a version and a file, as the library holds them. */
async function fixturePost(kind: Kind, options: Parameters<typeof createPost>[0]): Promise<FixturePost> {
  const title = `Visibility ${kind} zq${kind.length}`;
  const post = await createPost({ ...options, title, version: "V1.0" });
  const store = await storage();
  const front = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#123456" } })
    .jpeg()
    .toBuffer();
  await store.put(`images/posts/${post.id}.jpg`, front);
  const version = await db.postVersion.create({
    data: {
      postId: post.id,
      label: "V1.0",
      storageKey: post.driveFileId!,
      fileName: post.fileName!,
      size: post.fileSize!,
      contentHash: "ab".repeat(32),
      sha256: "cd".repeat(32),
    },
  });
  await db.post.update({ where: { id: post.id }, data: { imageKey: `images/posts/${post.id}.jpg`, currentVersionId: version.id } });
  return { id: post.id, title, versionId: version.id };
}

beforeAll(async () => {
  await createTiers();
  posts.scheduled = await fixturePost("scheduled", { paid: false });
  await db.post.update({ where: { id: posts.scheduled.id }, data: { publishAt: new Date(Date.now() + 7 * DAY) } });
  posts.disabled = await fixturePost("disabled", { paid: false, enabled: false });
  posts.restricted = await fixturePost("restricted", { paid: true, tiers: [TIER_3], kofiId: null });
  posts.open = await fixturePost("open", { paid: false });

  viewers.guest = { name: "guest", user: null };
  for (const [name, tier] of [
    ["fan", null],
    ["supporter", TIER_2],
  ] as const) {
    // Linked to Discord (their roles name posts), and the supporter to the support platform too (a Patreon like).
    const user = await createTestUser({
      currentTierId: tier,
      tosAccepted: true,
      discordId: name === "fan" ? "600000000000000101" : "600000000000000102",
      patreonId: name === "supporter" ? "vis-supporter" : null,
    });
    const { url } = await regenerateFeedToken(user.id);
    viewers[name] = { name, user, cookie: await sessionCookie(user.id), feedToken: /\/feeds\/([^/]+)\.atom$/.exec(url)![1] };
    // Downloaded each post before (an older version): what "My downloads" and "Updates for you" read.
    for (const kind of KINDS) {
      await db.download.create({
        data: { userId: user.id, postId: posts[kind].id, version: "V0.9", createdAt: new Date(Date.now() - 2 * DAY), accessSource: "FREE" },
      });
    }
  }
  // Each post has a known issue, reported by an admin (the probes' viewers did not report it).
  const reporter = await createTestUser({ isAdmin: true, canBeAdmin: true });
  for (const kind of KINDS) {
    const report = await db.bugReport.create({
      data: { postId: posts[kind].id, userId: reporter.id, versionLabel: "V1.0", title: `Bug on ${posts[kind].title}`, body: "Something is wrong." },
    });
    reportOf.set(posts[kind].id, report.id);
  }
  // Each post realizes an idea (shipped), and the restricted one opens to the supporter's tier later.
  for (const kind of KINDS) {
    const panel = await db.inspirationPanel.create({ data: { imageUrl: `/media/inspiration/${kind}.jpg`, title: `Idea for ${kind}` } });
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    await linkIdeaToPost(admin.id, panel.id, posts[kind].id);
    ideaOf.set(posts[kind].id, panel.id);
  }
  // The vote is open, so a like reaches the idea (a closed vote refuses every like first).
  await db.inspirationConfig.upsert({ where: { id: 1 }, create: { id: 1, title: "Inspiration Vote", votingOpen: true }, update: { votingOpen: true } });
  await db.releaseStep.create({
    data: {
      postId: posts.restricted.id,
      position: 0,
      audienceTierId: TIER_2,
      tierIds: [TIER_2, TIER_3],
      afterDays: 60,
      opensAt: new Date(Date.now() + 30 * DAY),
    },
  });
});

describe("who sees a post, route by route", () => {
  it("names every route file as serving post data (probed) or not", () => {
    const probed = new Set(Object.keys(PROBES).map((key) => key.split("#")[0]!));
    const unnamed = routeFiles.filter((file) => !probed.has(file) && !(file in NO_POST_DATA));
    expect(unnamed, "route files neither probed nor named as serving no post data").toEqual([]);
    const stale = [...probed, ...Object.keys(NO_POST_DATA)].filter((file) => !routeFiles.includes(file));
    expect(stale, "entries for route files that no longer exist").toEqual([]);
    expect([...probed].filter((file) => file in NO_POST_DATA)).toEqual([]);
  });

  for (const [name, probe] of Object.entries(PROBES)) {
    it(`${name}: nothing of a scheduled, disabled or restricted-audience post leaks`, async () => {
      // Downloads made by earlier probes would bring the accounts up to date: back to the fixture's records.
      await db.download.deleteMany({ where: { version: { not: "V0.9" } } });
      const leaks: string[] = [];
      for (const viewer of VIEWERS.map((key) => viewers[key])) {
        for (const kind of ["scheduled", "disabled"] as const) {
          const seen = await probe(posts[kind], viewer);
          if (seen.mentions || seen.grants) leaks.push(`${viewer.name} sees the ${kind} post`);
        }
        if ((await probe(posts.restricted, viewer)).grants) leaks.push(`${viewer.name} is handed the restricted post`);
      }
      expect(leaks).toEqual([]);
      // The probe sees an open post: it could have seen a leak.
      const open = await probe(posts.open, viewers.supporter);
      expect(open.mentions || open.grants, "the probe finds the open post").toBe(true);
    });
  }
});
