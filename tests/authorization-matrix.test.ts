// Authorization matrix: every route file in app/routes (so a new route cannot be forgotten) x
// every method it serves x six roles, against the real database. Each cell pins the status;
// a refused call must leave every table unchanged (rate-limit counters aside), and no GET may
// change anything unless the table says why.
import { readdirSync } from "node:fs";
import path from "node:path";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { callRoute, createTestUser, sessionCookie, type RouteModule } from "./helpers";

globalThis.__allowConsoleError = true;
declare global {
  var __allowConsoleError: boolean | undefined;
}

const ROLES = ["guest", "unverified", "verified", "restricted", "canBeAdmin", "admin"] as const;
type Role = (typeof ROLES)[number];

/** A status, or "302 /where" for a redirect (the address without its query). */
type Outcome = string;
type Cell = { outcome: Outcome; refused: boolean };
type Case = {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Builds the request from the current fixtures. */
  params?: (f: Fixtures) => Record<string, string>;
  query?: string;
  json?: unknown;
  form?: (f: Fixtures) => Record<string, string>;
  expect: Record<Role, Cell>;
  /** Why this GET may write (e.g. the spec's GET logout, download records). */
  getWrites?: string;
};

const ok = (outcome: Outcome | number): Cell => ({ outcome: String(outcome), refused: false });
const no = (outcome: Outcome | number): Cell => ({ outcome: String(outcome), refused: true });
const all = (cell: Cell): Record<Role, Cell> => Object.fromEntries(ROLES.map((role) => [role, cell])) as Record<Role, Cell>;
/** Logged-in users only: guests get `guest`. */
const user = (cell: Cell, guest: Cell = no(401)): Record<Role, Cell> => ({ ...all(cell), guest });
/**
 * Signed-in users who are not restricted: restriction stops every action except signing out and
 * securing the password, with 403 "Your account is restricted.".
 */
const active = (cell: Cell, restricted: Cell = no(403)): Record<Role, Cell> => ({ ...user(cell), restricted });
/**
 * Attaching a way into the account (a shop email, the feed link): also refused while the account's
 * email is unproven (the "unverified" fixture), 403 "Please verify your email address before
 * linking anything to your account.".
 */
const proven = (cell: Cell, unproven: Cell = no(403), restricted: Cell = no(403)): Record<Role, Cell> => ({
  ...active(cell, restricted),
  unverified: unproven,
});
/** Admins only: guests 401, everyone else 403 (the /api convention). */
const adminApi = (cell: Cell): Record<Role, Cell> => ({ ...all(no(403)), guest: no(401), admin: cell });
/** Admin-only UI actions: everyone else gets `refused`. */
const adminUi = (cell: Cell, refused: Cell): Record<Role, Cell> => ({ ...all(refused), admin: cell });
const METHOD_NOT_ALLOWED = all(ok(405));

type Fixtures = {
  postId: string;
  reportId: string;
  uploadId: string;
  panelId: string;
  inspirationPanelId: string;
  targetUserId: string;
  users: Record<Role, User | null>;
};

const postParams = (f: Fixtures) => ({ id: f.postId });
const uploadParams = (f: Fixtures) => ({ uploadId: f.uploadId });

const MATRIX: Record<string, Case[]> = {
  "$.tsx": [
    { method: "GET", params: () => ({ "*": "no-such-page" }), expect: all(ok(404)) },
    { method: "POST", params: () => ({ "*": "no-such-page" }), form: () => ({ a: "1" }), expect: all(ok(404)) },
  ],
  "api.$.ts": [
    { method: "GET", params: () => ({ "*": "no/such/endpoint" }), expect: all(ok(404)) },
    { method: "POST", params: () => ({ "*": "no/such/endpoint" }), expect: all(ok(404)) },
  ],
  "_index.tsx": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", form: (f) => ({ intent: "delete", id: f.panelId }), expect: adminUi(ok("302 /"), no("302 /")) },
  ],
  // Data rights do not depend on standing: restricted accounts may export and delete too.
  "account._index.ts": [{ method: "GET", expect: all(ok("302 /login")) }],
  "account.data.ts": [
    { method: "GET", expect: all(ok("302 /account/export")) },
    { method: "POST", expect: user(ok(200), no("302 /login")) },
  ],
  "account.export.tsx": [{ method: "GET", expect: user(ok(200), no("302 /login")) }],
  "account.delete.tsx": [
    { method: "GET", expect: user(ok(200), no("302 /login")) },
    { method: "POST", form: () => ({ intent: "delete", password: "not the password" }), expect: user(no(401), no("302 /login")) },
  ],
  "account.downloads.tsx": [{ method: "GET", expect: user(ok(200), no("302 /login")) }],
  "account.updates.tsx": [{ method: "GET", expect: user(ok(200), no("302 /login")) }],
  // Feed link and mail choices concern only the account's own data: restricted accounts too. The
  // feed link is a way in, so not while the account's email is unproven.
  "account.notifications.tsx": [
    { method: "GET", expect: user(ok(200), no("302 /login")) },
    { method: "POST", form: () => ({ intent: "preferences", newPosts: "on" }), expect: user(ok(200), no("302 /login")) },
    { method: "POST", form: () => ({ intent: "feed" }), expect: { ...user(ok(200), no("302 /login")), unverified: no(403) } },
  ],
  // Personal tokens: a proven email to see or make them; a restricted account may see and revoke, not make.
  "account.tokens.tsx": [
    { method: "GET", expect: user(ok(200), no("302 /login")) },
    { method: "POST", form: () => ({ intent: "create", label: "Script" }), expect: { ...proven(ok(201)), guest: no("302 /login") } },
    { method: "POST", form: () => ({ intent: "revoke", id: "no-such-token" }), expect: { ...user(no(404), no("302 /login")), unverified: no(403) } },
  ],
  // The token in the address is the credential, never the session: unknown tokens are 404 for all.
  "feeds.$token[.]atom.ts": [{ method: "GET", params: () => ({ token: "A".repeat(43) }), expect: all(no(404)) }],
  "unsubscribe.$token.tsx": [
    { method: "GET", params: () => ({ token: "A".repeat(43) }), expect: all(no(404)) },
    { method: "POST", params: () => ({ token: "A".repeat(43) }), form: () => ({ "List-Unsubscribe": "One-Click" }), expect: all(no(404)) },
  ],
  "admin_.access-check.tsx": [{ method: "GET", expect: adminUi(ok(200), no("302 /")) }],
  "admin_.releases.tsx": [{ method: "GET", expect: adminUi(ok(200), no("302 /")) }],
  // The post table, and a post's editor: admins only; its forms come back to the same post.
  "admin_.posts.tsx": [{ method: "GET", query: "?status=draft&sort=downloads&dir=desc", expect: adminUi(ok(200), no("302 /")) }],
  "admin_.posts_.$postId.tsx": [
    { method: "GET", params: (f) => ({ postId: f.postId }), expect: adminUi(ok(200), no("302 /")) },
    {
      method: "POST",
      params: (f) => ({ postId: f.postId }),
      form: (f) => ({ intent: "version-hide", postId: f.postId, versionId: "no-such-version" }),
      expect: adminUi(ok("302 /admin/posts/matrix-post"), no("302 /")),
    },
  ],
  "admin_.mail.tsx": [{ method: "GET", expect: adminUi(ok(200), no("302 /")) }],
  // Game patches (docs/product.md#game-patches): naming one is an admin action.
  "admin_.patches.tsx": [
    { method: "GET", expect: adminUi(ok(200), no("302 /")) },
    { method: "POST", form: () => ({ intent: "add", name: "9.99" }), expect: adminUi(ok(200), no("302 /")) },
  ],
  "api.admin.patches.ts": [
    { method: "GET", expect: adminApi(ok(200)) },
    { method: "POST", json: { name: "9.98" }, expect: adminApi(ok(201)) },
  ],
  "api.admin.patches.$id.current.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", params: () => ({ id: "no-such-patch" }), expect: adminApi(no(404)) },
  ],
  "api.admin.posts.$id.compatibility.ts": [
    { method: "GET", params: postParams, expect: METHOD_NOT_ALLOWED },
    { method: "PUT", params: postParams, json: { versionId: "no-such-version", mark: "works" }, expect: adminApi(no(404)) },
  ],
  "api.admin.posts.$id.compatibility.accept.ts": [
    { method: "GET", params: postParams, expect: METHOD_NOT_ALLOWED },
    { method: "POST", params: postParams, json: { versionId: "no-such-version" }, expect: adminApi(no(404)) },
  ],
  // A player's answer: only an account with a completed download of the post (none here: 403 for all).
  "api.library.posts.$id.compatibility.ts": [
    { method: "GET", params: postParams, expect: METHOD_NOT_ALLOWED },
    { method: "POST", params: postParams, json: { verdict: "works" }, expect: user(no(403)) },
  ],
  // Discord roles: the admin's mapping is saved (201) and audited; an unknown mapping is 404.
  "admin_.discord.tsx": [
    { method: "GET", expect: adminUi(ok(200), no("302 /")) },
    {
      method: "POST",
      form: () => ({ intent: "create", role_id: "880000000000000001", role_name: "Matrix", rule: "ANY_PAID_ACCESS" }),
      expect: adminUi(ok(201), no("302 /")),
    },
    { method: "POST", form: () => ({ intent: "delete", id: "no-such-mapping" }), expect: adminUi(no(404), no("302 /")) },
  ],
  // Tags and prices: a tag without a name is refused beside its field (400), nothing written.
  "admin_.catalog.tsx": [
    { method: "GET", expect: adminUi(ok(200), no("302 /")) },
    { method: "POST", form: () => ({ intent: "create-tag", name: "", slug: "" }), expect: adminUi(no(400), no("302 /")) },
  ],
  "account.shop-email.tsx": [
    { method: "GET", expect: user(ok("302 /login"), no("302 /login")) },
    {
      method: "POST",
      form: () => ({ intent: "link", email: "matrix-shop@example.com" }),
      expect: { ...proven(ok("302 /login"), no("302 /login"), no("302 /login")), guest: no("302 /login") },
    },
  ],
  "admin.tsx": [
    { method: "GET", expect: adminUi(ok(200), no("302 /")) },
    { method: "POST", form: () => ({ intent: "search-by-code", code: "1", keyword: "x" }), expect: adminUi(ok(200), no("302 /")) },
    // A leaked ZIP for the code search; not multipart here, so the admin is asked for the file.
    { method: "POST", query: "intent=trace-zip", form: () => ({ file: "not a file" }), expect: adminUi(ok(400), no("302 /")) },
    // Send update digests now: a run of the digest job (job_runs, audit), answered with a toast.
    { method: "POST", form: () => ({ intent: "send-digests" }), expect: adminUi(ok("302 /admin"), no("302 /")) },
  ],
  // Insights: 403 for everyone but effective admins, guests included, page and export.
  "admin_.insights.tsx": [{ method: "GET", query: "?range=7", expect: { ...all(no(403)), admin: ok(200) } }],
  "admin_.insights.$chart[.]csv.ts": [
    { method: "GET", params: () => ({ chart: "downloads" }), expect: { ...all(no(403)), admin: ok(200) } },
    {
      method: "GET",
      params: () => ({ chart: "supporters" }),
      query: "?range=custom&from=2024-01-01&to=2024-12-31",
      expect: { ...all(no(403)), admin: ok(200) },
    },
  ],
  // 502: no support platform is configured in tests; the run itself is recorded (job_runs, audit).
  "api.admin.force-interval.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", expect: adminApi(ok(502)) },
  ],
  "api.admin.import-purchases.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", expect: adminApi(ok(400)) },
  ],
  "api.admin.posts.getByIds.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: { postIds: [] }, expect: adminApi(ok(200)) },
  ],
  "api.admin.posts.ts": [
    { method: "GET", expect: adminApi(ok(200)) },
    { method: "POST", expect: METHOD_NOT_ALLOWED },
  ],
  "api.admin.search-by-code.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: { code: "1", keyword: "x" }, expect: adminApi(ok(200)) },
  ],
  "api.admin.unlock-objects-user.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: {}, expect: adminApi(ok(400)) },
  ],
  "api.admin.users.$id.ts": [
    { method: "GET", params: (f) => ({ id: f.targetUserId }), expect: adminApi(ok(200)) },
    { method: "PUT", params: (f) => ({ id: f.targetUserId }), json: { restricted: true }, expect: adminApi(ok(200)) },
  ],
  "api.admin.tags.ts": [
    { method: "GET", expect: adminApi(ok(200)) },
    { method: "POST", json: { name: "Matrix", slug: "matrix-tag" }, expect: adminApi(ok(201)) },
  ],
  "api.admin.tags.$id.ts": [
    { method: "GET", params: () => ({ id: "no-such-tag" }), expect: METHOD_NOT_ALLOWED },
    { method: "DELETE", params: () => ({ id: "no-such-tag" }), expect: adminApi(no(404)) },
  ],
  "api.admin.posts.$id.tags.ts": [
    { method: "GET", params: postParams, expect: METHOD_NOT_ALLOWED },
    { method: "PUT", params: postParams, json: { tags: [] }, expect: adminApi(ok(200)) },
  ],
  "api.admin.posts.$id.versions.$versionId.files.ts": [
    { method: "GET", params: () => ({ id: "matrix-post", versionId: "no-such-version" }), expect: METHOD_NOT_ALLOWED },
    // No multipart body: refused before a byte is stored.
    { method: "POST", params: () => ({ id: "matrix-post", versionId: "no-such-version" }), expect: adminApi(ok(400)) },
  ],
  "api.admin.posts.$id.files.$fileId.ts": [
    { method: "GET", params: () => ({ id: "matrix-post", fileId: "no-such-file" }), expect: METHOD_NOT_ALLOWED },
    { method: "PUT", params: () => ({ id: "matrix-post", fileId: "no-such-file" }), json: { role: "optional" }, expect: adminApi(no(404)) },
    { method: "DELETE", params: () => ({ id: "matrix-post", fileId: "no-such-file" }), expect: adminApi(no(404)) },
  ],
  "api.admin.posts.$id.requirements.ts": [
    { method: "GET", params: postParams, expect: adminApi(ok(200)) },
    { method: "PUT", params: postParams, json: { requirements: [{ name: "Extender", url: "https://example.com/x" }] }, expect: adminApi(ok(200)) },
  ],
  "api.admin.tiers.$id.ts": [
    { method: "GET", params: () => ({ id: "no-such-tier" }), expect: METHOD_NOT_ALLOWED },
    { method: "PUT", params: () => ({ id: "no-such-tier" }), json: { amount_cents: 500, currency: "USD" }, expect: adminApi(no(404)) },
  ],
  "api.admin.mail.ts": [
    { method: "GET", expect: adminApi(ok(200)) },
    { method: "POST", expect: METHOD_NOT_ALLOWED },
  ],
  "api.admin.discord-roles.ts": [
    { method: "GET", expect: adminApi(ok(200)) },
    { method: "POST", json: { role_id: "880000000000000002", role_name: "Matrix API", rule: "ANY_PAID_ACCESS" }, expect: adminApi(ok(201)) },
  ],
  "api.admin.discord-roles.$id.ts": [
    { method: "GET", params: () => ({ id: "no-such-mapping" }), expect: METHOD_NOT_ALLOWED },
    { method: "DELETE", params: () => ({ id: "no-such-mapping" }), expect: adminApi(no(404)) },
  ],
  "api.admin.users.ts": [
    { method: "GET", expect: adminApi(ok(200)) },
    { method: "POST", expect: METHOD_NOT_ALLOWED },
  ],
  // An unknown one-time code is refused for everyone.
  "api.auth.callback.ts": [{ method: "POST", json: { code: "nope" }, expect: all(no(403)) }],
  "api.auth.change-password.ts": [{ method: "POST", json: { currentPassword: "Password1!", newPassword: "Password2!" }, expect: user(ok(200)) }],
  "api.auth.forgot-password.ts": [{ method: "POST", json: { email: "nobody@example.com" }, expect: all(ok(200)) }],
  "api.auth.login.ts": [
    // GET starts the support-platform sign-in; unconfigured here, it sends back to /login.
    { method: "GET", expect: all(ok("302 /login")) },
    { method: "POST", json: { email: "nobody@example.com", password: "wrong" }, expect: all(no(401)) },
  ],
  "api.auth.logout.ts": [
    { method: "GET", expect: all(ok(200)), getWrites: "the spec's GET /api/auth/logout ends the session" },
    { method: "POST", expect: all(ok(200)) },
  ],
  "api.auth.patreon-callback.ts": [{ method: "GET", expect: all(no("302 /auth/callback")) }],
  "api.auth.register.ts": [{ method: "POST", json: {}, expect: all(ok(400)) }],
  "api.auth.resend-verification.ts": [{ method: "POST", json: { email: "nobody@example.com" }, expect: all(no(400)) }],
  "api.auth.reset-password.ts": [{ method: "POST", json: {}, expect: all(ok(400)) }],
  "api.auth.set-password.ts": [{ method: "POST", json: { newPassword: "Password2!" }, expect: user(ok(409)) }],
  "api.auth.toggle-admin.ts": [{ method: "POST", expect: { ...all(no(403)), guest: no(401), canBeAdmin: ok(200), admin: ok(200) } }],
  "api.auth.update-username.ts": [{ method: "POST", json: { username: "New Name" }, expect: active(ok(200)) }],
  "api.account.tokens.ts": [
    { method: "GET", expect: { ...user(ok(200)), unverified: no(403) } },
    { method: "POST", json: { label: "Script" }, expect: proven(ok(201)) },
  ],
  "api.account.tokens.$id.ts": [{ method: "DELETE", params: () => ({ id: "no-such-token" }), expect: { ...user(no(404)), unverified: no(403) } }],
  "api.auth.user.ts": [{ method: "GET", expect: user(ok(200)) }],
  "api.account.discord-roles.ts": [
    { method: "GET", expect: user(ok(200)) },
    { method: "POST", expect: METHOD_NOT_ALLOWED },
  ],
  "api.auth.verify-email.ts": [{ method: "POST", json: { email: "nobody@example.com", code: "123456" }, expect: all(ok(400)) }],
  "api.discord.auth.ts": [{ method: "GET", expect: all(ok("302 /login")) }],
  "api.discord.callback.ts": [{ method: "GET", expect: all(no("302 /auth/callback")) }],
  "api.discord.set-username-discord.ts": [{ method: "POST", json: { username: "New Name" }, expect: active(ok(200)) }],
  // The free post has no file (404 once allowed). Accounts must accept the terms first (guests
  // accept per visit); restricted accounts never download.
  "api.download.$postId.ts": [
    { method: "GET", params: (f) => ({ postId: f.postId }), expect: { ...all(no(403)), guest: ok(404), admin: ok(404) } },
    // Naming a version does not change who may download: an unknown one is 404 for those who may.
    { method: "GET", params: (f) => ({ postId: f.postId }), query: "?version=no-such-version", expect: { ...all(no(403)), guest: ok(404), admin: ok(404) } },
  ],
  "api.download.freedownload.$postId.ts": [
    { method: "GET", params: (f) => ({ postId: f.postId }), expect: { ...all(no(403)), guest: ok(404), admin: ok(404) } },
  ],
  "api.google.auth.ts": [{ method: "GET", expect: all(ok("302 /login")) }],
  "api.google.callback.ts": [{ method: "GET", expect: all(no("302 /auth/callback")) }],
  "api.google.set-username-google.ts": [{ method: "POST", json: { username: "New Name" }, expect: active(ok(200)) }],
  "api.inspiration.config.ts": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", json: { votingOpen: true }, expect: adminApi(ok(200)) },
  ],
  "api.inspiration.panels.$id.like.ts": [{ method: "POST", params: (f) => ({ id: f.inspirationPanelId }), json: { like: true }, expect: active(ok(200)) }],
  "api.inspiration.panels.$id.patreon-like.ts": [
    { method: "POST", params: (f) => ({ id: f.inspirationPanelId }), json: { like: true }, expect: active(ok(200)) },
  ],
  "api.inspiration.panels.$id.ts": [
    { method: "PUT", params: (f) => ({ id: f.inspirationPanelId }), json: { title: "Changed", imageUrl: "/media/changed.jpg" }, expect: adminApi(ok(200)) },
    { method: "DELETE", params: (f) => ({ id: f.inspirationPanelId }), expect: adminApi(ok(200)) },
  ],
  "api.inspiration.panels.ts": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", json: { title: "New", imageUrl: "/media/new.jpg" }, expect: adminApi(ok(201)) },
  ],
  "api.inspiration.reset-likes.ts": [{ method: "POST", expect: adminApi(ok(200)) }],
  "api.inspiration.title.ts": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", json: { title: "New title" }, expect: adminApi(ok(200)) },
  ],
  "api.kofi.cancel-verification.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: { email: "nobody@example.com" }, expect: active(ok(404)) },
  ],
  "api.kofi.link.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: { email: "nobody@example.com" }, expect: proven(ok(200)) },
  ],
  "api.kofi.resend-verification.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: { email: "nobody@example.com" }, expect: proven(ok(404)) },
  ],
  "api.kofi.verify-email.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: { email: "nobody@example.com", code: "123456" }, expect: proven(ok(404)) },
  ],
  "api.library.accept-tos.$id.ts": [
    // Acceptance belongs to the account: another user's id is refused, even for admins.
    { method: "POST", params: (f) => ({ id: f.targetUserId }), json: { tosAccepted: true }, expect: user(no(403)) },
  ],
  // Every signed-in account has a manifest (a restricted one's is empty).
  "api.library.manifest.ts": [{ method: "GET", expect: user(ok(200)) }],
  // The Blender repository: the manifest's list narrowed to marked posts, for every signed-in account.
  "api.blender.index[.]json.ts": [{ method: "GET", expect: user(ok(200)) }],
  // A delta is a download: refused to those the post's access refuses, and for those it clears, a
  // version the post never had is not found.
  "api.library.posts.$id.delta.ts": [{ method: "GET", params: postParams, query: "?from=V0.0", expect: { ...user(no(403)), admin: ok(404) } }],
  // The signature is the credential, never the session: an address without one is refused for all.
  "api.library.files.$postId.ts": [{ method: "GET", params: (f) => ({ postId: f.postId }), expect: all(no(403)) }],
  "api.library.posts.$id.order.ts": [{ method: "PUT", params: postParams, json: { orderDate: "2024-01-01T00:00:00.000Z" }, expect: adminApi(ok(200)) }],
  "api.library.posts.$id.release.ts": [{ method: "PUT", params: postParams, json: { preset: "top-first-30" }, expect: adminApi(ok(200)) }],
  "api.library.posts.$id.publish.ts": [{ method: "PUT", params: postParams, json: { publish_at: "2099-01-01T18:00:00.000Z" }, expect: adminApi(ok(200)) }],
  "api.library.posts.$id.toggle.ts": [{ method: "PUT", params: postParams, json: { enabled: false }, expect: adminApi(ok(200)) }],
  "api.library.posts.$id.ts": [
    // Public like the library: the post as its page shows it to the viewer.
    { method: "GET", params: postParams, expect: all(ok(200)) },
    { method: "PUT", params: postParams, json: { title: "Changed" }, expect: adminApi(ok(200)) },
    { method: "DELETE", params: postParams, expect: adminApi(ok(200)) },
  ],
  "api.library.posts.ts": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", json: {}, expect: adminApi(ok(400)) },
  ],
  "api.library.tiers.ts": [{ method: "GET", expect: all(ok(200)) }],
  "api.panels.$id.expanded.ts": [{ method: "GET", params: (f) => ({ id: f.panelId }), expect: all(ok(200)) }],
  "api.panels.$id.ts": [
    { method: "GET", params: (f) => ({ id: f.panelId }), expect: all(ok(200)) },
    { method: "PUT", params: (f) => ({ id: f.panelId }), json: { title: "Changed", link: "https://example.com/changed" }, expect: adminApi(ok(200)) },
    { method: "DELETE", params: (f) => ({ id: f.panelId }), expect: adminApi(ok(200)) },
  ],
  "api.panels.ts": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", json: { title: "New", link: "https://example.com/new" }, expect: adminApi(ok(201)) },
  ],
  "api.panelsupload.$id.image.ts": [{ method: "POST", params: (f) => ({ id: f.panelId }), expect: adminApi(ok(400)) }],
  "api.upload.file.$id.ts": [{ method: "POST", params: postParams, expect: adminApi(ok(400)) }],
  "api.upload.front.$id.ts": [{ method: "POST", params: postParams, expect: adminApi(ok(400)) }],
  // Resumable uploads: starting is an admin's; a session is only its starter's (the matrix's admin):
  // anyone else signed in learns nothing of it (404). Another admin's 403: tests/upload-resume.test.ts.
  "api.uploads.ts": [
    { method: "POST", json: {}, expect: adminApi(ok(400)) },
    { method: "POST", json: { postId: "matrix-post", fileName: "pack.zip", size: 20_000_000 }, expect: adminApi(ok(201)) },
  ],
  "api.uploads.$uploadId.ts": [
    { method: "GET", params: uploadParams, expect: { ...all(no(404)), guest: no(401), admin: ok(200) } },
    { method: "DELETE", params: uploadParams, expect: { ...all(no(404)), guest: no(401), admin: ok(200) } },
  ],
  "api.uploads.$uploadId.complete.ts": [{ method: "POST", params: uploadParams, expect: { ...all(no(404)), guest: no(401), admin: no(409) } }],
  // A 2-byte body is no whole part: refused, nothing kept.
  "api.uploads.$uploadId.parts.$part.ts": [
    { method: "PUT", params: (f) => ({ ...uploadParams(f), part: "1" }), expect: { ...all(no(404)), guest: no(401), admin: no(400) } },
  ],
  // Signed, not cookie-authenticated: without the signature every role is refused alike.
  "api.webhooks.kofi.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: {}, expect: all(no(400)) },
  ],
  "api.webhooks.patreon.ts": [
    { method: "GET", expect: METHOD_NOT_ALLOWED },
    { method: "POST", json: {}, expect: all(no(401)) },
  ],
  "auth.callback.tsx": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", form: () => ({}), expect: all(ok(400)) },
  ],
  "download.$postId.ts": [{ method: "GET", params: (f) => ({ postId: f.postId }), expect: all(no(403)) }],
  "forgot-password.tsx": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", form: () => ({ intent: "request", email: "nobody@example.com" }), expect: all(ok("302 /forgot-password")) },
  ],
  "healthz.ts": [{ method: "GET", expect: all(ok(200)) }],
  "infos.tsx": [{ method: "GET", expect: all(ok(200)) }],
  "inspiration-vote.tsx": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", form: () => ({ intent: "reset-likes" }), expect: adminUi(ok("302 /inspiration-vote"), no("302 /inspiration-vote")) },
  ],
  "library.tsx": [
    { method: "GET", expect: all(ok(200)) },
    { method: "POST", form: (f) => ({ intent: "toggle", postId: f.postId, enabled: "false" }), expect: adminUi(ok("302 /library"), no("302 /library")) },
    // Version actions are admin-only on the server; an unknown version changes nothing for anyone.
    {
      method: "POST",
      form: (f) => ({ intent: "version-hide", postId: f.postId, versionId: "no-such-version" }),
      expect: adminUi(ok("302 /library"), no("302 /library")),
    },
    // A player's answer on the current patch: refused without a download (a toast), for every role.
    { method: "POST", form: (f) => ({ intent: "patch-vote", postId: f.postId, verdict: "works" }), expect: all(no("302 /library")) },
    // An admin's mark: admin-only on the server; an unknown version changes nothing.
    {
      method: "POST",
      form: (f) => ({ intent: "patch-mark", postId: f.postId, versionId: "no-such-version", mark: "works" }),
      expect: adminUi(ok("302 /library"), no("302 /library")),
    },
  ],
  // Public like the library: the versions a picked file is compared with (no file here: none).
  "library.$postId.versions.ts": [{ method: "GET", params: (f) => ({ postId: f.postId }), expect: all(ok(200)) }],
  // A post's own page: public like the library.
  // Its bug-report form: only an account that downloaded the post (none of the roles has); guests log in first.
  "library_.$postId.tsx": [
    { method: "GET", params: (f) => ({ postId: f.postId }), expect: all(ok(200)) },
    {
      method: "POST",
      params: (f) => ({ postId: f.postId }),
      form: () => ({ intent: "report", title: "Matrix bug", body: "Something is wrong here." }),
      expect: { ...all(no(403)), guest: no("302 /login") },
    },
  ],
  // Known issues: for whoever sees the post. Reporting and "me too": downloaders only (none of
  // the roles downloaded the post); taking back a "me too" one never gave changes nothing.
  "api.library.posts.$id.reports.ts": [
    { method: "GET", params: postParams, expect: all(ok(200)) },
    { method: "POST", params: postParams, json: { title: "Matrix bug", body: "Something is wrong here." }, expect: user(no(403)) },
  ],
  "api.reports.$id.me-too.ts": [
    { method: "POST", params: (f) => ({ id: f.reportId }), expect: user(no(403)) },
    { method: "DELETE", params: (f) => ({ id: f.reportId }), expect: { ...active(ok(200)), unverified: no(403) } },
  ],
  "api.admin.reports.ts": [{ method: "GET", expect: adminApi(ok(200)) }],
  "api.admin.reports.$id.ts": [{ method: "PUT", params: (f) => ({ id: f.reportId }), json: { state: "CONFIRMED" }, expect: adminApi(ok(200)) }],
  "admin_.reports.tsx": [
    { method: "GET", expect: adminUi(ok(200), no("302 /")) },
    { method: "POST", form: (f) => ({ reportId: f.reportId, state: "CONFIRMED" }), expect: adminUi(ok("303 /admin/reports"), no("302 /")) },
  ],
  "login.tsx": [
    { method: "GET", expect: all(ok(200)) },
    {
      method: "POST",
      form: () => ({ intent: "toggle-admin" }),
      expect: { ...all(no(403)), guest: no("302 /login"), canBeAdmin: ok("302 /login"), admin: ok("302 /login") },
    },
  ],
  "media.$.ts": [{ method: "GET", params: () => ({ "*": "no/such/file.jpg" }), expect: all(ok(404)) }],
  "panel_images.$file.ts": [{ method: "GET", params: () => ({ file: "no-such.jpg" }), expect: all(ok(404)) }],
};

// ---------------------------------------------------------------- routes from the file system

/** `/api/library/posts/:id/toggle` from `api.library.posts.$id.toggle.ts` (Remix flat routes). */
function routePath(file: string): string {
  // `[.]` is a literal dot; a trailing `_` only opts out of the parent layout.
  const name = file.replace(/\.(tsx?|jsx?)$/, "").replace(/\[\.\]/g, "\u0000");
  if (name === "_index") return "/";
  const segments = name
    .split(".")
    .filter((segment) => segment !== "_index")
    // eslint-disable-next-line no-control-regex -- NUL stands for an escaped dot in the file name (see above)
    .map((segment) => segment.replace(/_$/, "").replace(/\u0000/g, "."));
  return "/" + segments.map((segment) => (segment === "$" ? "*" : segment.startsWith("$") ? `:${segment.slice(1)}` : segment)).join("/");
}

function fillPath(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/:(\w+)|\*/g, (_match, name: string | undefined) => encodeURIComponent(params[name ?? "*"] ?? "x").replace(/%2F/g, "/"));
}

const routesDir = path.resolve(import.meta.dirname, "../app/routes");
const routeFiles = readdirSync(routesDir).filter((file) => /\.(tsx?|jsx?)$/.test(file) && !/\.test\./.test(file) && !file.startsWith("."));
// Each route module, loaded when its case runs (a glob Vite can see, rather than a computed import).
const routeModules = import.meta.glob<RouteModule>("../app/routes/*.{ts,tsx,js,jsx}");
const routeModule = (file: string) => routeModules[`../app/routes/${file}`]!();

// ---------------------------------------------------------------- database state

let checksumSql = "";
async function databaseChecksum(): Promise<string> {
  if (!checksumSql) {
    const tables = await db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
        AND table_name <> '_prisma_migrations'
      ORDER BY table_name`;
    checksumSql =
      "SELECT " +
      tables.map(({ table_name: name }) => `(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM "${name}" t) AS "${name}"`).join(", ");
  }
  const rows = await db.$queryRawUnsafe<Record<string, string>[]>(checksumSql);
  return JSON.stringify(rows[0]);
}

/** The tables whose rows differ; rate limits (a refused call may count one) are not a change. */
function changedTables(before: string, after: string): string[] {
  const a = JSON.parse(before) as Record<string, string>;
  const b = JSON.parse(after) as Record<string, string>;
  return Object.keys(a).filter((table) => table !== "rate_limits" && a[table] !== b[table]);
}

// ---------------------------------------------------------------- fixtures

const ROLE_FLAGS: Record<Exclude<Role, "guest">, Partial<User>> = {
  unverified: { mailVerified: false, restricted: false, canBeAdmin: false, isAdmin: false },
  verified: { mailVerified: true, restricted: false, canBeAdmin: false, isAdmin: false },
  restricted: { mailVerified: true, restricted: true, canBeAdmin: false, isAdmin: false },
  canBeAdmin: { mailVerified: true, restricted: false, canBeAdmin: true, isAdmin: false },
  admin: { mailVerified: true, restricted: false, canBeAdmin: true, isAdmin: true },
};
const roleUsers = {} as Record<Role, User | null>;
let targetUser: User;

beforeAll(async () => {
  await db.tier.create({ data: { id: "matrix-tier", title: "Matrix Tier", canVote: true, isPaid: true } });
  roleUsers.guest = null;
  for (const role of ROLES) {
    if (role === "guest") continue;
    roleUsers[role] = await createTestUser({ ...ROLE_FLAGS[role], currentTierId: "matrix-tier", patreonId: `matrix-${role}`, fullName: `Matrix ${role}` });
  }
  targetUser = await createTestUser({ fullName: "Matrix target" });
});

/** Puts the shared rows back the way every case expects them (allowed calls change them). */
const MATRIX_UPLOAD_ID = "0123456789abcdef0123456789abcdef";

async function resetFixtures(): Promise<{ fixtures: Fixtures; cookies: Record<Role, string | undefined> }> {
  await db.session.deleteMany({});
  await db.shopEmail.deleteMany({});
  await db.verification.deleteMany({});
  await db.rateLimit.deleteMany({});
  const cookies = {} as Record<Role, string | undefined>;
  for (const role of ROLES) {
    const account = roleUsers[role];
    if (!account) continue;
    await db.user.update({
      where: { id: account.id },
      data: { ...ROLE_FLAGS[role as Exclude<Role, "guest">], fullName: account.fullName, passwordHash: account.passwordHash, tosAccepted: false },
    });
    cookies[role] = await sessionCookie(account.id);
  }
  await db.user.update({ where: { id: targetUser.id }, data: { restricted: false, tosAccepted: false } });
  await db.post.deleteMany({ where: { id: "matrix-post" } });
  await db.post.create({ data: { id: "matrix-post", title: "Matrix post", paidContent: false, enabled: true } });
  // A bug report on it by the target account (the roles' "me too" and the admins' triage act on it).
  const report = await db.bugReport.create({
    data: { postId: "matrix-post", userId: targetUser.id, versionLabel: "V1.0", title: "Matrix report", body: "Something is wrong here." },
  });
  // A resumable upload of the post, started by the admin (removed with the post above).
  await db.uploadSession.create({
    data: {
      id: MATRIX_UPLOAD_ID,
      postId: "matrix-post",
      adminId: roleUsers.admin!.id,
      fileName: "pack.zip",
      size: BigInt(20_000_000),
      partSize: 8 * 1024 * 1024,
      driver: "local",
      storageKey: `uploads/${MATRIX_UPLOAD_ID}/assembled`,
    },
  });
  await db.panel.deleteMany({});
  const panel = await db.panel.create({ data: { title: "Matrix panel", link: "https://example.com/panel" } });
  await db.inspirationLike.deleteMany({});
  await db.inspirationPanel.deleteMany({});
  const inspirationPanel = await db.inspirationPanel.create({ data: { imageUrl: "/media/inspiration/matrix.jpg", title: "Matrix idea" } });
  await db.inspirationConfig.upsert({
    where: { id: 1 },
    create: { id: 1, votingOpen: true, votingEndTime: new Date(Date.now() + 86_400_000) },
    update: { votingOpen: true, votingEndTime: new Date(Date.now() + 86_400_000) },
  });
  return {
    fixtures: {
      postId: "matrix-post",
      reportId: report.id,
      uploadId: MATRIX_UPLOAD_ID,
      panelId: panel.id,
      inspirationPanelId: inspirationPanel.id,
      targetUserId: targetUser.id,
      users: roleUsers,
    },
    cookies,
  };
}

function outcomeOf(response: Response): Outcome {
  const location = response.headers.get("Location");
  if (response.status >= 300 && response.status < 400 && location) return `${response.status} ${new URL(location, "http://localhost:3999").pathname}`;
  return String(response.status);
}

const DISCOVER = process.env.MATRIX_DISCOVER === "1";

describe("authorization matrix", () => {
  it("has an expectation for every route file and for each handler it exports", async () => {
    const missing = routeFiles.filter((file) => !MATRIX[file]);
    expect(missing, "route files without an authorization expectation").toEqual([]);
    const stale = Object.keys(MATRIX).filter((file) => !routeFiles.includes(file));
    expect(stale, "expectations for route files that no longer exist").toEqual([]);
    for (const file of routeFiles) {
      const module = await routeModule(file);
      const methods = new Set(MATRIX[file]!.map((entry) => entry.method));
      expect(Boolean(module.loader), `${file}: loader <-> GET case`).toBe(methods.has("GET"));
      expect(Boolean(module.action), `${file}: action <-> POST/PUT/DELETE case`).toBe([...methods].some((method) => method !== "GET"));
    }
  });

  for (const file of routeFiles) {
    const cases = MATRIX[file] ?? [];
    for (const entry of cases) {
      it(`${entry.method} ${routePath(file)} (${file})`, async () => {
        const module = await routeModule(file);
        const problems: string[] = [];
        let { fixtures, cookies } = await resetFixtures();
        let before = await databaseChecksum();
        for (const role of ROLES) {
          const params = entry.params?.(fixtures) ?? {};
          const requestPath = fillPath(routePath(file), params) + (entry.query ?? "");
          const cell = entry.expect[role];
          const response = await callRoute(module, {
            method: entry.method,
            path: requestPath,
            params,
            cookie: cookies[role],
            json: entry.form ? undefined : entry.method === "GET" ? undefined : (entry.json ?? {}),
            form: entry.form?.(fixtures),
          });
          await response.text().catch(() => undefined);
          const after = await databaseChecksum();
          const outcome = outcomeOf(response);
          const changed = changedTables(before, after);
          if (outcome !== cell.outcome) problems.push(`${role}: expected ${cell.outcome}, got ${outcome}`);
          if (response.status >= 500 && Number(cell.outcome) < 500) problems.push(`${role}: server error ${response.status}`);
          if (cell.refused && changed.length > 0) problems.push(`${role}: refused, but changed ${changed.join(", ")}`);
          if (entry.method === "GET" && !entry.getWrites && changed.length > 0) problems.push(`${role}: GET changed ${changed.join(", ")}`);
          if (DISCOVER) console.log(`[matrix] ${file} ${entry.method} ${role} -> ${outcome}${changed.length ? ` changed ${changed.join(",")}` : ""}`);
          // The next role starts from the same rows: put them back if this call changed any row
          // (sessions and rate limits included).
          if (after !== before) {
            ({ fixtures, cookies } = await resetFixtures());
            before = await databaseChecksum();
          }
        }
        expect(problems).toEqual([]);
      });
    }
  }
});

// Who may hold and prove an email address (docs/security-model.md).
describe("email verification rules", () => {
  const updateUsername = () => import("~/routes/api.auth.update-username");
  const google = (id: string, email: string | null, emailVerified = true) => ({ provider: "google" as const, id, email, emailVerified, name: "G" });

  async function setName(account: User) {
    const response = await callRoute(await updateUsername(), { method: "POST", json: { username: "Name" }, cookie: await sessionCookie(account.id) });
    expect(response.status).toBe(200);
    return db.user.findUniqueOrThrow({ where: { id: account.id } });
  }

  it("the username step verifies only an account created by that provider with that provider's verified email", async () => {
    const linked = await createTestUser({ mailVerified: false, googleId: "rule-linked" });
    expect(await setName(linked)).toMatchObject({ mailVerified: false });
    const created = await createTestUser({ mailVerified: false, password: null, googleId: "rule-created", signUpMethod: "GOOGLE", emailVerifiedBy: "GOOGLE" });
    expect(await setName(created)).toMatchObject({ mailVerified: true });
    const typedIn = await createTestUser({ mailVerified: false, password: null, discordId: "rule-typed", signUpMethod: "DISCORD", emailVerifiedBy: null });
    expect(await setName(typedIn)).toMatchObject({ mailVerified: false });
    const otherProvider = await createTestUser({
      mailVerified: false,
      password: null,
      discordId: "rule-other",
      signUpMethod: "DISCORD",
      emailVerifiedBy: "GOOGLE",
    });
    expect(await setName(otherProvider)).toMatchObject({ mailVerified: false });
  });

  it("ADMIN_EMAILS grants rights only to a proven address", async () => {
    const { env } = await import("~/env.server");
    const { loginWithPassword } = await import("~/models/passwords.server");
    env().ADMIN_EMAILS.push("rule-admin@example.com", "rule-admin2@example.com");
    await createTestUser({ email: "rule-admin@example.com", mailVerified: true, emailVerifiedBy: null, password: "Password1!" });
    expect(await loginWithPassword({ email: "rule-admin@example.com", password: "Password1!" })).toMatchObject({ canBeAdmin: false });
    await createTestUser({ email: "rule-admin2@example.com", password: "Password1!" });
    expect(await loginWithPassword({ email: "rule-admin2@example.com", password: "Password1!" })).toMatchObject({ canBeAdmin: true });
  });

  it("linking a provider to a signed-in account never changes which email is verified", async () => {
    const { signInWithProvider } = await import("~/models/provider-account.server");
    // Created by Discord with Discord's verified address; Google vouching for it changes no proof.
    const account = await createTestUser({
      email: "rule-link@example.com",
      mailVerified: false,
      password: null,
      signUpMethod: "DISCORD",
      emailVerifiedBy: "DISCORD",
      discordId: "rule-link-d",
    });
    const linked = await signInWithProvider(google("rule-link-g", "rule-link@example.com"), account);
    expect(linked).toMatchObject({ id: account.id, googleId: "rule-link-g", email: "rule-link@example.com", mailVerified: false, emailVerifiedBy: "DISCORD" });
  });

  it("nothing links to an account whose email is unproven, and the refusal writes nothing", async () => {
    const { signInWithProvider } = await import("~/models/provider-account.server");
    for (const flags of [{ mailVerified: false }, { mailVerified: true, emailVerifiedBy: null }]) {
      const account = await createTestUser({ ...flags });
      const before = await databaseChecksum();
      await expect(signInWithProvider(google(`rule-unproven-${account.id}`, account.email), account)).rejects.toMatchObject({
        status: 403,
        code: "email_unproven",
      });
      expect(changedTables(before, await databaseChecksum())).toEqual([]);
    }
  });

  it("a provider's verified email beats an unverified holder: address taken back, sessions ended, nothing merged", async () => {
    const { signInWithProvider } = await import("~/models/provider-account.server");
    const holder = await createTestUser({ email: "rule-owner@example.com", mailVerified: true, emailVerifiedBy: null, discordId: "rule-holder-d" });
    await sessionCookie(holder.id);
    const owner = await signInWithProvider(google("rule-owner-g", "rule-owner@example.com"), null);
    expect(owner).toMatchObject({ email: "rule-owner@example.com", emailVerifiedBy: "GOOGLE", googleId: "rule-owner-g", discordId: null, passwordHash: null });
    expect(owner.id).not.toBe(holder.id);
    expect(await db.user.findUniqueOrThrow({ where: { id: holder.id } })).toMatchObject({ email: null, mailVerified: false, discordId: "rule-holder-d" });
    expect(await db.session.count({ where: { userId: holder.id } })).toBe(0);
    // Also when the holder linked an identity of the same provider (the owner used to be refused).
    const sameProvider = await createTestUser({ email: "rule-owner2@example.com", mailVerified: false, googleId: "rule-holder2-g" });
    const owner2 = await signInWithProvider(google("rule-owner2-g", "rule-owner2@example.com"), null);
    expect(owner2.id).not.toBe(sameProvider.id);
    expect(await db.user.findUniqueOrThrow({ where: { id: sameProvider.id } })).toMatchObject({ email: null, googleId: "rule-holder2-g" });
    // A proven holder keeps the address, and the provider is linked to it instead.
    const proven = await createTestUser({ email: "rule-proven@example.com" });
    expect((await signInWithProvider(google("rule-proven-g", "rule-proven@example.com"), null)).id).toBe(proven.id);
  });
});
