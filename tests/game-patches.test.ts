// Game patches and compatibility (docs/product.md#game-patches), against the real database and
// whole pages: a patch day from its declaration to "confirmed" (what cards, the post page and the
// banner say at each stage, and the feed and digest entries), the library's two filters, players'
// confirmations (refused without a download, over /api and the form), and accepting them as the mark.
import { getToast } from "remix-toast";
import { parse as parseXml } from "fast-xml-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { listLibraryPosts } from "~/models/library-listing.server";
import { runUpdateDigests } from "~/models/update-digest.server";
import { regenerateFeedToken, saveUpdatePreferences } from "~/models/update-notifications.server";
import * as patchesAdminPage from "~/routes/admin_.patches";
import * as patchesApi from "~/routes/api.admin.patches";
import * as declareApi from "~/routes/api.admin.patches.$id.current";
import * as acceptApi from "~/routes/api.admin.posts.$id.compatibility.accept";
import * as markApi from "~/routes/api.admin.posts.$id.compatibility";
import * as voteApi from "~/routes/api.library.posts.$id.compatibility";
import * as postApi from "~/routes/api.library.posts.$id";
import * as feedRoute from "~/routes/feeds.$token[.]atom";
import * as library from "~/routes/library";
import { requestDocument } from "./documents";
import { callRoute, createTestUser, queriesDuring, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();
const NSFW = "nsfwAccepted=dHJ1ZQ%3D%3D";
const DAY = 24 * 60 * 60 * 1000;

async function page(path: string, cookie?: string): Promise<string> {
  const response = await requestDocument({ path, cookie: cookie ? `${cookie}; ${NSFW}` : NSFW });
  expect(response.status).toBe(200);
  return response.text();
}

/** The text of each card's patch line, by post title, as the library page draws them. */
function patchLines(html: string): Record<string, string | null> {
  const lines: Record<string, string | null> = {};
  for (const card of html.split('data-testid="post-card"').slice(1)) {
    const title = /class="post-title"><a [^>]*>([^<]+)<\/a>|class="post-title">([^<]+)</.exec(card);
    const line = /data-testid="post-patch">([^<]+)</.exec(card);
    lines[(title?.[1] ?? title?.[2])!] = line ? line[1]!.replaceAll("&amp;", "&") : null;
  }
  return lines;
}

function banner(html: string): string | null {
  const match = /data-testid="patch-banner">([^<]+)</.exec(html);
  return match ? match[1]!.trim() : null;
}

async function toastOf(response: Response) {
  const cookie = response.headers.get("Set-Cookie")?.split(";")[0];
  expect(cookie).toMatch(/^toast-session=/);
  return (await getToast(new Request("http://localhost:3999/library", { headers: { Cookie: cookie! } }))).toast;
}

/** A post with its versions (oldest first); the last is current. */
async function postWithVersions(title: string, labels: string[], options: { tiers?: string[]; paid?: boolean } = {}) {
  const post = await createPost({ title, tiers: options.tiers ?? [], paid: options.paid ?? true, firstPublishedAt: new Date(Date.now() - 20 * DAY) });
  const versions = [];
  for (const [index, label] of labels.entries()) {
    versions.push(
      await db.postVersion.create({
        data: {
          postId: post.id,
          label,
          storageKey: `posts/${post.id}/${label}.zip`,
          fileName: `${label}.zip`,
          size: 10n,
          createdAt: new Date(Date.now() - (10 - index) * DAY),
        },
      }),
    );
  }
  const current = versions[versions.length - 1]!;
  await db.post.update({ where: { id: post.id }, data: { currentVersionId: current.id, version: current.label } });
  return { post, versions };
}

const api = (route: Parameters<typeof callRoute>[0], method: string, path: string, params: Record<string, string>, json: unknown, cookie?: string) =>
  callRoute(route, { method, path, params, json, cookie });

let adminCookie: string;
let supporter: User;
let supporterCookie: string;

beforeAll(async () => {
  await createTiers();
  adminCookie = await sessionCookie((await createTestUser({ isAdmin: true, canBeAdmin: true })).id);
  supporter = await createTestUser({ currentTierId: TIER_2, tosAccepted: true, fullName: "Pat Player" });
  supporterCookie = await sessionCookie(supporter.id);
});

describe("patch day", () => {
  it("goes from the declaration to confirmed: cards, post page, banner, filters, feed and digest", async () => {
    const chair = await postWithVersions("Patch Chair", ["V1.0"], { paid: false });
    const bed = await postWithVersions("Patch Bed", ["V2.1", "V2.2"], { tiers: [TIER_2] });
    // The supporter owns the bed (a completed download of V2.1) and asked for version mails.
    await db.download.create({ data: { userId: supporter.id, postId: bed.post.id, version: "V2.1", versionId: bed.versions[0]!.id } });
    await saveUpdatePreferences(supporter.id, { newVersions: "on" });
    const feed = await regenerateFeedToken(supporter.id);
    const token = /\/feeds\/([^/]+)\.atom$/.exec(feed.url)![1]!;

    // Before any patch is current: no line, no banner, no patch filters.
    let html = await page("/library");
    expect(banner(html)).toBeNull();
    expect(patchLines(html)["Patch Chair"]).toBeNull();
    expect(html).not.toContain("Works on the current patch");

    // The first patch, current at once; both posts confirmed on it.
    const first = await api(patchesApi, "POST", "/api/admin/patches", {}, { name: "1.112", current: true }, adminCookie);
    expect(first.status).toBe(201);
    const firstId = (await readJsonBody<{ patch: { id: string } }>(first)).patch.id;
    for (const { post, versions } of [chair, bed]) {
      const marked = await api(
        markApi,
        "PUT",
        `/api/admin/posts/${post.id}/compatibility`,
        { id: post.id },
        { versionId: versions.at(-1)!.id, mark: "works" },
        adminCookie,
      );
      expect(marked.status).toBe(200);
    }
    html = await page("/library");
    expect(banner(html)).toBe("2 of 2 posts confirmed for 1.112");
    expect(patchLines(html)).toMatchObject({ "Patch Chair": "Works on 1.112", "Patch Bed": "Works on 1.112" });

    // Patch day: 1.113 is named, then declared current on the admin page (a plain form post).
    const named = await api(patchesApi, "POST", "/api/admin/patches", {}, { name: "1.113" }, adminCookie);
    const patchId = (await readJsonBody<{ patch: { id: string; current: boolean } }>(named)).patch.id;
    expect((await listLibraryPosts(null)).posts.find((post) => post.postId === chair.post.id)?.compatibility).toEqual({ patch: "1.112", mark: "works" });
    const declared = await callRoute(patchesAdminPage, { method: "POST", path: "/admin/patches", form: { intent: "declare", patchId }, cookie: adminCookie });
    expect(declared.status).toBe(200);
    const listed = await readJsonBody<{ patches: { name: string; current: boolean }[] }>(
      await api(patchesApi, "GET", "/api/admin/patches", {}, undefined, adminCookie),
    );
    expect(listed.patches.map((patch) => [patch.name, patch.current])).toEqual([
      ["1.112", false],
      ["1.113", true],
    ]);
    expect(firstId).not.toBe(patchId);

    html = await page("/library");
    expect(banner(html)).toBe("0 of 2 posts confirmed for 1.113");
    expect(patchLines(html)).toMatchObject({ "Patch Chair": "Not yet confirmed for 1.113", "Patch Bed": "Not yet confirmed for 1.113" });
    expect(html).toContain("Works on the current patch");
    const chairPage = await page(`/library/${chair.post.id}`);
    expect(chairPage).toContain("Not yet confirmed for 1.113");
    expect(chairPage).toContain("Works on 1.112");

    // V2.1 turns out broken on 1.113; V2.2 (the current version) is then marked works, from the post page's form.
    await api(
      markApi,
      "PUT",
      `/api/admin/posts/${bed.post.id}/compatibility`,
      { id: bed.post.id },
      { versionId: bed.versions[0]!.id, mark: "broken" },
      adminCookie,
    );
    html = await page("/library");
    expect(patchLines(html)["Patch Bed"]).toBe("Not yet confirmed for 1.113");
    const form = await callRoute(library, {
      method: "POST",
      path: "/library",
      form: { intent: "patch-mark", postId: bed.post.id, versionId: bed.versions[1]!.id, mark: "works", back: `/library/${bed.post.id}` },
      cookie: adminCookie,
    });
    expect(await toastOf(form)).toMatchObject({ type: "success", message: "Compatibility mark saved." });
    html = await page("/library");
    expect(banner(html)).toBe("1 of 2 posts confirmed for 1.113");
    expect(patchLines(html)).toMatchObject({ "Patch Chair": "Not yet confirmed for 1.113", "Patch Bed": "Works on 1.113" });

    // The filters, kept in the address.
    expect(Object.keys(patchLines(await page("/library?filter=works")))).toEqual(["Patch Bed"]);
    expect(Object.keys(patchLines(await page("/library?filter=unconfirmed")))).toEqual(["Patch Chair"]);

    // The chair confirmed too: everything is.
    await api(
      markApi,
      "PUT",
      `/api/admin/posts/${chair.post.id}/compatibility`,
      { id: chair.post.id },
      { versionId: chair.versions[0]!.id, mark: "works" },
      adminCookie,
    );
    html = await page("/library");
    expect(banner(html)).toBe("2 of 2 posts confirmed for 1.113");
    expect(Object.keys(patchLines(await page("/library?filter=unconfirmed")))).toEqual([]);

    // The feed announces both, the bed as a fix; the digest tells the owner of the bed.
    const xml = await (await callRoute(feedRoute, { path: `/feeds/${token}.atom`, params: { token } })).text();
    const titles = ([] as { title: string | { "#text": string } }[])
      .concat((parseXml(xml).feed as { entry: never }).entry)
      .map((entry) => String(typeof entry.title === "object" ? entry.title["#text"] : entry.title));
    expect(titles).toContain("Patch Bed: Fixed for 1.113 in V2.2");
    expect(titles).toContain("Patch Chair: Confirmed for 1.113");
    expect(titles).toContain("Patch Bed: Confirmed for 1.112");
    const run = await runUpdateDigests({ now: new Date(Date.now() + 1000), ignorePeriod: true });
    expect(run.mailed).toBe(1);
    const digest = await mail().nextMailTo(supporter.email!);
    expect(digest.text).toContain("Game patch news for posts you own");
    expect(digest.text).toContain("- Patch Bed: Fixed for 1.113 in V2.2");
    // Only posts the user owns: not the chair they never downloaded.
    expect(digest.text).not.toContain("Patch Chair");
  });
});

describe("player confirmations", () => {
  it("are refused without a completed download of the post, over /api and the form, and change nothing", async () => {
    const { post, versions } = await postWithVersions("Vote Lamp", ["V1.0"], { tiers: [TIER_2] });
    const stranger = await createTestUser({ currentTierId: TIER_2 });
    const cookie = await sessionCookie(stranger.id);
    const refused = await api(voteApi, "POST", `/api/library/posts/${post.id}/compatibility`, { id: post.id }, { verdict: "works" }, cookie);
    expect(refused.status).toBe(403);
    expect(await readJsonBody(refused)).toEqual({ error: "Only accounts that downloaded this post can confirm whether it works on a patch." });
    const named = await api(
      voteApi,
      "POST",
      `/api/library/posts/${post.id}/compatibility`,
      { id: post.id },
      { verdict: "works", versionId: versions[0]!.id },
      cookie,
    );
    expect(named.status).toBe(403);
    const guest = await api(voteApi, "POST", `/api/library/posts/${post.id}/compatibility`, { id: post.id }, { verdict: "works" });
    expect(guest.status).toBe(401);
    const form = await callRoute(library, {
      method: "POST",
      path: "/library",
      form: { intent: "patch-vote", postId: post.id, verdict: "broken", back: `/library/${post.id}` },
      cookie,
    });
    expect(await toastOf(form)).toMatchObject({ type: "error", message: "Only accounts that downloaded this post can confirm whether it works on a patch." });
    expect(await db.patchConfirmation.count({ where: { versionId: versions[0]!.id } })).toBe(0);
    // A downloader of another version may not answer for this one.
    const { post: other, versions: otherVersions } = await postWithVersions("Vote Rug", ["V1.0", "V1.1"], { tiers: [TIER_2] });
    await db.download.create({ data: { userId: stranger.id, postId: other.id, version: "V1.0", versionId: otherVersions[0]!.id } });
    const wrong = await api(
      voteApi,
      "POST",
      `/api/library/posts/${other.id}/compatibility`,
      { id: other.id },
      { verdict: "works", versionId: otherVersions[1]!.id },
      cookie,
    );
    expect(wrong.status).toBe(403);
    expect(await readJsonBody(wrong)).toEqual({ error: "You can only confirm a version you downloaded." });
    expect(await db.patchConfirmation.count()).toBe(0);
  });

  it("count on the post page, one per account and changeable; an admin accepts them as the mark in one click", async () => {
    const { post, versions } = await postWithVersions("Vote Sofa", ["V3.0"], { tiers: [TIER_2] });
    const version = versions[0]!;
    const players = await Promise.all([1, 2, 3].map(() => createTestUser({ currentTierId: TIER_2, tosAccepted: true })));
    for (const player of players) await db.download.create({ data: { userId: player.id, postId: post.id, version: "V3.0", versionId: version.id } });
    const cookies = await Promise.all(players.map((player) => sessionCookie(player.id)));
    const vote = (index: number, verdict: string) =>
      api(voteApi, "POST", `/api/library/posts/${post.id}/compatibility`, { id: post.id }, { verdict }, cookies[index]);

    // Accepting with no answers is refused.
    const early = await api(acceptApi, "POST", `/api/admin/posts/${post.id}/compatibility/accept`, { id: post.id }, { versionId: version.id }, adminCookie);
    expect(early.status).toBe(409);
    expect((await vote(0, "broken")).status).toBe(200);
    // Changing one's mind replaces the answer.
    const changed = await vote(0, "works");
    expect(await readJsonBody(changed)).toMatchObject({ confirmation: { label: "V3.0", patch: "1.113", verdict: "works", votes: { works: 1, broken: 0 } } });
    await vote(1, "works");
    // The form path for the third player.
    const form = await callRoute(library, {
      method: "POST",
      path: "/library",
      form: { intent: "patch-vote", postId: post.id, verdict: "broken", back: `/library/${post.id}` },
      cookie: cookies[2],
    });
    expect(await toastOf(form)).toMatchObject({ type: "success", message: "Thank you: your answer is saved." });
    expect(await db.patchConfirmation.count({ where: { versionId: version.id } })).toBe(3);

    const shown = await page(`/library/${post.id}`, cookies[0]);
    expect(shown).toContain("2 players confirmed · 1 reported broken");
    expect(shown).toContain("Not yet confirmed for 1.113");
    const json = await readJsonBody<{ compatibility: { versions: Record<string, { votes: unknown; myVote: string }> } }>(
      await callRoute(postApi, { path: `/api/library/posts/${post.id}`, params: { id: post.id }, cookie: cookies[0] }),
    );
    expect(json.compatibility.versions[version.id]).toMatchObject({ votes: { works: 2, broken: 1 }, myVote: "works", mark: "untested" });

    // A non-admin may not accept.
    expect(
      (await api(acceptApi, "POST", `/api/admin/posts/${post.id}/compatibility/accept`, { id: post.id }, { versionId: version.id }, supporterCookie)).status,
    ).toBe(403);
    const accepted = await callRoute(library, {
      method: "POST",
      path: "/library",
      form: { intent: "patch-accept", postId: post.id, versionId: version.id, back: `/library/${post.id}` },
      cookie: adminCookie,
    });
    expect(await toastOf(accepted)).toMatchObject({ type: "success", message: "The players' answer is now the version's mark." });
    const mark = await db.versionPatchMark.findFirstOrThrow({ where: { versionId: version.id }, include: { patch: true } });
    expect([mark.mark, mark.patch.name]).toEqual(["WORKS", "1.113"]);
    expect(patchLines(await page("/library"))["Vote Sofa"]).toBe("Works on 1.113");
    expect(await db.auditEntry.count({ where: { action: "post_version.patch_accept", targetId: post.id } })).toBe(1);
  });
});

describe("the library's cost", () => {
  it("reads the marks with the posts once per library change, never per view or per card", async () => {
    await listLibraryPosts(null);
    const warm = await queriesDuring("version_patch_marks", () => listLibraryPosts(null));
    expect(warm.queries).toEqual([]);
    // A mark changes the library: the next view reads every mark on the current patch in one query.
    const { post, versions } = await postWithVersions("Cost Table", ["V1.0"]);
    await api(markApi, "PUT", `/api/admin/posts/${post.id}/compatibility`, { id: post.id }, { versionId: versions[0]!.id, mark: "works" }, adminCookie);
    const changed = await queriesDuring("version_patch_marks", () => listLibraryPosts(null));
    expect(changed.queries).toHaveLength(1);
    expect(changed.result.posts.find((item) => item.postId === post.id)?.compatibility).toEqual({ patch: "1.113", mark: "works" });
  });
});

describe("admin patches", () => {
  it("refuses a duplicate or malformed name next to the field, and non-admins", async () => {
    const duplicate = await callRoute(patchesAdminPage, {
      method: "POST",
      path: "/admin/patches",
      form: { intent: "add", name: "1.113" },
      cookie: adminCookie,
    });
    expect(duplicate.status).toBe(409);
    expect(await readJsonBody(duplicate)).toMatchObject({ ok: false, field: "name", message: "A patch with this name already exists." });
    const empty = await api(patchesApi, "POST", "/api/admin/patches", {}, { name: " " }, adminCookie);
    expect(empty.status).toBe(400);
    expect(await readJsonBody(empty)).toEqual({ error: "Please enter the patch's name, such as 1.113." });
    expect((await api(patchesApi, "POST", "/api/admin/patches", {}, { name: "2.0" }, supporterCookie)).status).toBe(403);
    expect((await api(declareApi, "POST", "/api/admin/patches/x/current", { id: "nope" }, undefined, adminCookie)).status).toBe(404);
    expect(await db.gamePatch.count({ where: { name: "2.0" } })).toBe(0);
  });
});
