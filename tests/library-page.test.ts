// The /library route module without a browser: its loader (URL parameters, what each viewer
// gets) and its action (the no-JavaScript paths: 18+ cookie, terms then download, admin forms).
import { getToast } from "~/toast.server";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import * as library from "~/routes/library";
import * as root from "~/root";
import { answerAsResponse, buildRequest, callRoute, createTestUser, queriesDuring, sessionCookie } from "./helpers";
import { requestDocument } from "./documents";
import { createPost, createTiers, TIER_1, TIER_2 } from "./library-fixtures";

type LoaderData = {
  posts: { postId: string; title: string; unlocked: boolean }[];
  filter: string;
  search: string;
  perLine: number;
  adminView: boolean;
  nsfwAccepted: boolean;
  termsPostId: string | null;
};

async function load(path: string, cookie?: string): Promise<LoaderData> {
  const response = await callRoute(library, { path, cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as LoaderData;
}

/** The flash toast a redirect carries. */
async function toastOf(response: Response) {
  const cookie = (response.headers.get("Set-Cookie") ?? "").split(";")[0]!;
  const { toast } = await getToast(new Request("http://localhost:3999/library", { headers: { Cookie: cookie } }));
  return toast;
}

function post(form: Record<string, string>, cookie?: string) {
  return callRoute(library, { method: "POST", path: "/library", form, cookie });
}

let admin: Awaited<ReturnType<typeof createTestUser>>;
let adminCookie: string;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
});

describe("loader", () => {
  it("reads search, filter and posts per line from the URL; unknown or guest-only values fall back", async () => {
    await createPost({ paid: false, title: "Moonlit Garden Bench" });
    await createPost({ tiers: [TIER_2], title: "Moonlit Garden Arch" });
    const found = await load("/library?search=moonlit%20garden&filter=locked&perLine=4");
    expect(found).toMatchObject({ search: "moonlit garden", filter: "locked", perLine: 4 });
    expect(found.posts.map((item) => item.title)).toEqual(["Moonlit Garden Arch"]);
    expect((await load("/library?filter=whatever&perLine=7")).filter).toBe("all");
    expect((await load("/library?perLine=7")).perLine).toBe(2);
    // outdated and never are for logged-in users only.
    expect((await load("/library?filter=never")).filter).toBe("all");
    const user = await createTestUser();
    expect((await load("/library?filter=never", await sessionCookie(user.id))).filter).toBe("never");
  });

  it("knows the 18+ cookie, and gives admins the admin view unless they ask for the user view", async () => {
    expect((await load("/library")).nsfwAccepted).toBe(false);
    expect((await load("/library", `nsfwAccepted=${encodeURIComponent(btoa(JSON.stringify(true)))}`)).nsfwAccepted).toBe(true);
    // A value the cookie object did not write means nothing.
    expect((await load("/library", "nsfwAccepted=true")).nsfwAccepted).toBe(false);
    expect((await load("/library", adminCookie)).adminView).toBe(true);
    // Admins are not shown the 18+ warning, in a fresh session without the cookie as in the user view.
    expect((await load("/library", adminCookie)).nsfwAccepted).toBe(true);
    expect((await load("/library?view=user", await sessionCookie(admin.id))).nsfwAccepted).toBe(true);
    expect((await load("/library?view=user", adminCookie)).adminView).toBe(false);
    const user = await createTestUser();
    expect((await load("/library", await sessionCookie(user.id))).adminView).toBe(false);
    expect((await load("/library", await sessionCookie(user.id))).nsfwAccepted).toBe(false);
  });

  it("reads a signed-in viewer's context with the session, for the listing and the cards' words alike", async () => {
    const paid = await createPost({ paid: true, tiers: [TIER_2], title: "One-trip tier post" });
    const supporter = await createTestUser({ currentTierId: TIER_2 });
    const cookie = await sessionCookie(supporter.id);
    type Loaded = Omit<LoaderData, "posts"> & {
      access: Record<string, { state: string }>;
      posts: (LoaderData["posts"][number] & { downloadStatus?: string })[];
    };
    const { result: data, queries } = await queriesDuring("", async () => (await load("/library?search=One-trip", cookie)) as Loaded);
    // One statement reads the user, their viewer context and the details of the cards' words.
    const viewerReads = queries.filter((sql) => /session_viewer\(|viewer_context\(|viewer_access_details\(/.test(sql));
    expect(viewerReads).toHaveLength(1);
    expect(viewerReads[0]).toMatch(/session_viewer\(.*viewer_access_details\(/s);
    // The listing (unlocked, download status) and the card's words agree, from that one read.
    const card = data.posts.find((listed) => listed.postId === paid.id)!;
    expect(card.unlocked).toBe(true);
    expect(card.downloadStatus).toBeDefined();
    expect(data.access[paid.id]).toBeDefined();
    expect(JSON.stringify(data.access[paid.id])).toContain("Tier 2");
  });

  it("answers a signed-in page view, root and page loaders together as Remix runs them, with one query", async () => {
    const cookie = await sessionCookie((await createTestUser({ currentTierId: TIER_2, fullName: "One Query Reader" })).id);
    // As Remix runs them: both loaders start at once, each with its own Request.
    const view = () =>
      Promise.all([
        root.loader({ request: buildRequest({ path: "/library", cookie }), params: {}, context: {} }),
        library.loader({ request: buildRequest({ path: "/library", cookie }), params: {}, context: {} }),
      ]);
    await view(); // the first view after a change reads the library and the tiers
    const {
      result: [rootAnswer, pageAnswer],
      queries,
    } = await queriesDuring("", view);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/session_viewer\(.*viewer_access_details\(/s);
    // Each loader got what it needs from that one statement.
    expect(((await answerAsResponse(rootAnswer).json()) as { account: { name: string } }).account.name).toBe("One Query Reader");
    const page = pageAnswer as LoaderData & { access: Record<string, unknown> };
    expect(page.posts.length).toBeGreaterThan(0);
    expect(Object.keys(page.access).sort()).toEqual(page.posts.map((post) => post.postId).sort());
  });

  it("reads the tiers again only after they changed, and then shows the change", async () => {
    // A column only the tier list reads (the viewer's own query has the titles too).
    const TIER_LIST_QUERY = 'subscribe_label AS "subscribeLabel"';
    type WithTiers = LoaderData & { tiers: { tierId: string; title: string }[] };
    const cookie = await sessionCookie((await createTestUser({ currentTierId: TIER_2 })).id);
    const first = (await load("/library", cookie)) as WithTiers;
    expect(first.tiers.find((tier) => tier.tierId === TIER_2)?.title).toBe("Tier 2");
    // Nothing changed: the tiers read at this library version serve again, without a query.
    const unchanged = await queriesDuring(TIER_LIST_QUERY, () => load("/library", cookie));
    expect(unchanged.queries).toHaveLength(0);
    expect((unchanged.result as WithTiers).tiers).toEqual(first.tiers);
    // A tier renamed (by an admin, a platform sync, or straight in the database) bumps the library
    // version, so the very next page reads the tiers again.
    await db.tier.update({ where: { id: TIER_2 }, data: { title: "Tier 2 renamed" } });
    try {
      const renamed = await queriesDuring(TIER_LIST_QUERY, () => load("/library", cookie));
      expect(renamed.queries).toHaveLength(1);
      expect((renamed.result as WithTiers).tiers.find((tier) => tier.tierId === TIER_2)?.title).toBe("Tier 2 renamed");
    } finally {
      await db.tier.update({ where: { id: TIER_2 }, data: { title: "Tier 2" } });
    }
    expect(((await load("/library", cookie)) as WithTiers).tiers.find((tier) => tier.tierId === TIER_2)?.title).toBe("Tier 2");
  });

  it("an empty result names the filter that emptied it and offers the whole library back", async () => {
    const cookie = await sessionCookie((await createTestUser()).id);
    const page = async (path: string) => {
      const response = await requestDocument({ path, cookie });
      expect(response.status).toBe(200);
      return (await response.text()).replace(/<!-- -->/g, "");
    };
    // A new account has downloaded nothing: nothing is outdated, and the search box is empty.
    const filtered = await page("/library?filter=outdated&perLine=3");
    expect(filtered).toContain("No posts match the filter \u201cOutdated\u201d.");
    expect(filtered).not.toContain("No posts match your search.");
    expect(filtered).toMatch(/<a [^>]*href="\/library\?perLine=3"[^>]*>Show all posts<\/a>/);
    const both = await page("/library?filter=never&search=no-such-title-anywhere");
    expect(both).toContain("No posts match your search in the filter \u201cNever downloaded\u201d.");
    expect(both).toMatch(/<a [^>]*href="\/library"[^>]*>Show all posts<\/a>/);
    expect(await page("/library?search=no-such-title-anywhere")).toContain("No posts match your search.");
    // A tag filter is named by the tag's name, not its address slug.
    const post = await createPost({ title: "Tagged for the empty library" });
    const tag = await db.tag.create({ data: { name: "Empty Shelf Tag", slug: `empty-shelf-${Date.now().toString(36)}` } });
    await db.postTag.create({ data: { postId: post.id, tagId: tag.id } });
    const tagged = await page(`/library?tag=${tag.slug}&search=no-such-title-anywhere`);
    expect(tagged).toContain("No posts with the tag \u201cEmpty Shelf Tag\u201d match your search.");
    expect(tagged).toMatch(/<a [^>]*href="\/library"[^>]*>Show all posts<\/a>/);
  });

  it("admins viewing as users see enabled posts only", async () => {
    const hidden = await createPost({ enabled: false, title: "Hidden draft" });
    expect((await load("/library", adminCookie)).posts.some((item) => item.postId === hidden.id)).toBe(true);
    expect((await load("/library?view=user", adminCookie)).posts.some((item) => item.postId === hidden.id)).toBe(false);
  });
});

describe("action without JavaScript", () => {
  it("the 18+ form sets the cookie and goes back to the library address it came from", async () => {
    const response = await post({ intent: "accept-nsfw", back: "/library?filter=locked" });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/library?filter=locked");
    const setCookie = response.headers.get("Set-Cookie")!;
    expect(setCookie).toMatch(/^nsfwAccepted=[^;]+;.* Path=\/;/);
    // The cookie it sets is the one the loader reads back.
    expect((await load("/library", setCookie.split(";")[0])).nsfwAccepted).toBe(true);
    const elsewhere = await post({ intent: "accept-nsfw", back: "https://evil.example/" });
    expect(elsewhere.headers.get("Location")).toBe("/library");
  });

  it("a download first shows the terms, then accepting records it and sends the file address", async () => {
    const free = await createPost({ paid: false });
    const guestFirst = await post({ intent: "download", postId: free.id, back: "/library?search=x" });
    expect(guestFirst.headers.get("Location")).toBe(`/library?search=x&terms=${free.id}`);
    expect((await load(`/library?terms=${free.id}`)).termsPostId).toBe(free.id);
    const guestAccepted = await post({ intent: "download", postId: free.id, acceptTos: "true", back: "/library" });
    expect(guestAccepted.headers.get("Location")).toMatch(new RegExp(`^http://localhost:3999/download/${free.id}\\?expires=`));

    const paid = await createPost({ tiers: [TIER_1] });
    const user = await createTestUser({ currentTierId: TIER_1 });
    const cookie = await sessionCookie(user.id);
    const accepted = await post({ intent: "download", postId: paid.id, acceptTos: "true", back: "/library" }, cookie);
    expect(accepted.headers.get("Location")).toBe(`/api/download/${paid.id}`);
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).tosAccepted).toBe(true);
    // Accepted once: straight to the file next time.
    const again = await post({ intent: "download", postId: paid.id, back: "/library" }, cookie);
    expect(again.headers.get("Location")).toBe(`/api/download/${paid.id}`);
  });

  it("a locked download goes back with the error and never to the file", async () => {
    const paid = await createPost({ tiers: [TIER_2] });
    const user = await createTestUser({ tosAccepted: true });
    const response = await post({ intent: "download", postId: paid.id, back: "/library" }, await sessionCookie(user.id));
    expect(response.headers.get("Location")).toBe("/library");
    expect(await toastOf(response)).toMatchObject({ type: "error", message: "You do not have access to this post." });
  });

  it("refuses admin forms to non-admins with the spec's message and changes nothing", async () => {
    const target = await createPost({ title: "Untouchable" });
    const user = await createTestUser();
    const forms: Record<string, string>[] = [
      { intent: "save", postId: target.id, title: "Changed" },
      { intent: "toggle", postId: target.id, enabled: "false" },
      { intent: "set-index", postId: target.id, index: "0" },
      { intent: "delete", postId: target.id },
      { intent: "create", title: "Sneaky" },
    ];
    for (const form of forms) {
      const response = await post({ ...form, back: "/library" }, await sessionCookie(user.id));
      expect(response.status).toBe(302);
      expect(await toastOf(response)).toMatchObject({ type: "error", message: "You need to be logged in as an admin to perform this action." });
    }
    expect(await db.post.findUniqueOrThrow({ where: { id: target.id } })).toMatchObject({ title: "Untouchable", enabled: true });
    expect(await db.post.count({ where: { title: "Sneaky" } })).toBe(0);
  });

  it("admin forms save, toggle, set the index and validate it", async () => {
    const target = await createPost({ title: "Editable", tiers: [TIER_1] });
    const saved = await post(
      {
        intent: "save",
        postId: target.id,
        back: "/library",
        title: "Edited",
        version: "V2.0",
        kofi_id: "",
        drive_file_id: "",
        first_published_at: "2025-03-04",
        last_updated: "2025-04-05",
        has_tiers: "1",
        has_flags: "1",
        tiers: TIER_2,
        is_kofiOnly: "on",
        paid_content: "on",
      },
      adminCookie,
    );
    expect(saved.status).toBe(302);
    const row = await db.post.findUniqueOrThrow({ where: { id: target.id }, include: { tiers: true } });
    expect(row).toMatchObject({ title: "Edited", version: "V2.0", kofiId: null, driveFileId: null, isKofiOnly: true, paidContent: true });
    expect(row.firstPublishedAt?.toISOString()).toBe("2025-03-04T00:00:00.000Z");
    expect(row.tiers.map((tier) => `${tier.kind}:${tier.tierId}`)).toEqual([`CURRENT:${TIER_2}`]);

    await post({ intent: "toggle", postId: target.id, enabled: "false", back: "/library" }, adminCookie);
    expect((await db.post.findUniqueOrThrow({ where: { id: target.id } })).enabled).toBe(false);

    const before = (await db.post.findUniqueOrThrow({ where: { id: target.id } })).orderDate;
    for (const index of ["-1", "abc", "", "1.5"]) {
      const refused = await post({ intent: "set-index", postId: target.id, index, back: "/library" }, adminCookie);
      expect(await toastOf(refused)).toMatchObject({ type: "error", message: "Please enter a valid index." });
    }
    expect((await db.post.findUniqueOrThrow({ where: { id: target.id } })).orderDate).toEqual(before);
    await post({ intent: "set-index", postId: target.id, index: "0", back: "/library" }, adminCookie);
    const first = await db.post.findFirstOrThrow({ orderBy: { orderDate: "desc" } });
    expect(first.id).toBe(target.id);
    expect(await db.auditEntry.count({ where: { targetId: target.id, actorId: admin.id } })).toBe(3);
  });
});

describe("Publish now", () => {
  it("the card drops its Scheduled badge at once (not a minute later)", async () => {
    const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 16);
    await post({ intent: "create", title: "Publish-now bench", publish_at: tomorrow, back: "/library" }, adminCookie);
    const created = await db.post.findFirstOrThrow({ where: { title: "Publish-now bench" } });
    const cardText = async () => (await requestDocument({ path: "/library?search=Publish-now%20bench", cookie: adminCookie })).text();
    const scheduledCard = await cardText();
    expect(scheduledCard).toContain('data-testid="scheduled-badge"');
    // The card leads to the post's editor, where the admin changes it.
    expect(scheduledCard).toContain(`href="/admin/posts/${created.id}"`);

    const published = await post({ intent: "publish-now", postId: created.id, back: "/library" }, adminCookie);
    expect(await toastOf(published)).toMatchObject({ type: "success" });
    // Supporters see it now...
    expect((await load("/library?search=Publish-now%20bench")).posts.map((listed) => listed.postId)).toEqual([created.id]);
    // ...and so the admin's card, on the very next page, says it is published.
    const page = await cardText();
    expect(page).not.toContain("only admins see it until then");
    expect(page).not.toContain('data-testid="scheduled-badge"');
  });
});

// With JavaScript the page posts to this same action (through a fetcher) instead of
// calling /api; `respond=json` only changes the answer's form, never the rule behind it.
describe("action with JavaScript (respond=json)", () => {
  it("a download answers the file's address as JSON where the plain form redirects to it, and accepts the terms with it", async () => {
    const free = await createPost({ paid: false });
    const plain = await post({ intent: "download", postId: free.id, acceptTos: "true", back: "/library" });
    const fetched = await post({ intent: "download", postId: free.id, acceptTos: "true", back: "/library", respond: "json" });
    expect(fetched.status).toBe(200);
    const freeAnswer = (await fetched.json()) as { downloadUrl: string; paid: boolean };
    expect(freeAnswer.paid).toBe(false);
    expect(new URL(freeAnswer.downloadUrl).pathname).toBe(new URL(plain.headers.get("Location")!).pathname);

    const paid = await createPost({ tiers: [TIER_1] });
    const user = await createTestUser({ currentTierId: TIER_1 });
    const cookie = await sessionCookie(user.id);
    // Not accepted yet and not accepting: refused in the spec's words, nothing recorded.
    const unaccepted = await post({ intent: "download", postId: paid.id, back: "/library", respond: "json" }, cookie);
    expect(unaccepted.status).toBe(403);
    expect(await unaccepted.json()).toEqual({ error: "Please accept the terms of service before downloading." });
    const accepted = await post({ intent: "download", postId: paid.id, acceptTos: "true", back: "/library", respond: "json" }, cookie);
    expect(await accepted.json()).toEqual({ downloadUrl: `/api/download/${paid.id}`, paid: true });
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).tosAccepted).toBe(true);
  });

  it("a refused download answers the model's status and message as JSON", async () => {
    const locked = await createPost({ tiers: [TIER_2] });
    const user = await createTestUser({ tosAccepted: true });
    const response = await post({ intent: "download", postId: locked.id, back: "/library", respond: "json" }, await sessionCookie(user.id));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: "You do not have access to this post." });
    const missing = await post({ intent: "download", postId: "no-such-post", back: "/library", respond: "json" }, await sessionCookie(user.id));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "Post not found." });
  });

  it("the 18+ acceptance answers JSON with the same cookie", async () => {
    const response = await post({ intent: "accept-nsfw", back: "/library", respond: "json" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect((await load("/library", response.headers.get("Set-Cookie")!.split(";")[0])).nsfwAccepted).toBe(true);
  });

  it("a post file uploaded to the page's action streams into storage like the /api upload", async () => {
    const target = await createPost({ fileSize: null, title: "Upload target" });
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(Buffer.from("page upload bytes"))]), "page file.zip");
    const response = await callRoute(library, {
      method: "POST",
      path: `/library?intent=upload-file&postId=${target.id}&back=%2Flibrary`,
      form,
      cookie: adminCookie,
    });
    expect(response.headers.get("Location")).toBe("/library");
    expect(await toastOf(response)).toMatchObject({ type: "success", message: "File uploaded." });
    expect(await db.post.findUniqueOrThrow({ where: { id: target.id } })).toMatchObject({
      driveFileId: `posts/${target.id}/page-file.zip`,
      fileSize: BigInt(17),
    });
    // An empty file is refused and the post keeps pointing where it did.
    const empty = new FormData();
    empty.append("file", new Blob([]), "empty.zip");
    const refused = await callRoute(library, {
      method: "POST",
      path: `/library?intent=upload-file&postId=${target.id}&back=%2Flibrary`,
      form: empty,
      cookie: adminCookie,
    });
    expect(await toastOf(refused)).toMatchObject({ type: "error", message: "Please select a file first." });
    expect((await db.post.findUniqueOrThrow({ where: { id: target.id } })).driveFileId).toBe(`posts/${target.id}/page-file.zip`);

    // The card's progress-bar upload asks the same action for JSON.
    const again = new FormData();
    again.append("file", new Blob([new Uint8Array(Buffer.from("second"))]), "second.zip");
    const path = `/library?intent=upload-file&postId=${target.id}&back=%2Flibrary&respond=json`;
    const answered = await callRoute(library, { method: "POST", path, form: again, cookie: adminCookie });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ message: "File uploaded." });
    expect((await db.post.findUniqueOrThrow({ where: { id: target.id } })).driveFileId).toBe(`posts/${target.id}/second.zip`);
    const user = await createTestUser();
    const notAdmin = await callRoute(library, { method: "POST", path, form: again, cookie: await sessionCookie(user.id) });
    expect(notAdmin.status).toBe(403);
    expect(await notAdmin.json()).toEqual({ error: "You need to be logged in as an admin to perform this action." });
  });
});
