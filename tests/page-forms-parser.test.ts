// Page forms read through one schema-driven parser (app/utils/form-fields.ts), without
// JavaScript: a list posted under one name arrives whole, checkboxes are booleans, a field the
// rule's schema does not name (the intent) never reaches it, and a file posted where text is
// expected meets the rule's own message beside its field, with nothing stored.
import { db } from "~/db.server";
import * as catalogRoute from "~/routes/admin_.catalog";
import * as discordRoute from "~/routes/admin_.discord";
import * as editorRoute from "~/routes/admin_.posts_.$postId";
import * as postApiRoute from "~/routes/api.library.posts.$id";
import { getToast } from "~/toast.server";
import { DISCORD_MESSAGES } from "~/utils/discord-schemas";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";

let adminCookie: string;

beforeAll(async () => {
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
  adminCookie = await sessionCookie(admin.id);
});

/** A form as posted, in order: a name may repeat, and a file may stand where the page's form has text. */
function formWith(entries: [string, string | File][]): FormData {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  return form;
}

const file = () => new File(["not a name"], "name.txt", { type: "text/plain" });

type DiscordAnswer = { intent: string; ok: boolean; message: string; fields: Record<string, string> };

describe("/admin/discord: the mapping form, read with the schema of POST /api/admin/discord-roles", () => {
  it("saves a mapping posted with the form's intent, and removes it", async () => {
    const response = await callRoute(discordRoute, {
      method: "POST",
      path: "/admin/discord",
      cookie: adminCookie,
      form: {
        intent: "create",
        role_id: "600000000000000001",
        role_name: "@Gold",
        rule: "ANY_PAID_ACCESS",
        tier_id: "",
        post_id: "",
        shop_item: "",
        idea_id: "",
      },
    });
    expect(response.status).toBe(201);
    expect(await readJsonBody<DiscordAnswer>(response)).toMatchObject({ ok: true, message: DISCORD_MESSAGES.created });
    const mapping = await db.discordRoleMapping.findUniqueOrThrow({ where: { roleId: "600000000000000001" } });
    expect(mapping).toMatchObject({ roleName: "Gold", rule: "ANY_PAID_ACCESS", tierId: null, postId: null });

    const removed = await callRoute(discordRoute, { method: "POST", path: "/admin/discord", cookie: adminCookie, form: { intent: "delete", id: mapping.id } });
    expect(await readJsonBody<DiscordAnswer>(removed)).toMatchObject({ ok: true, message: DISCORD_MESSAGES.removed });
    expect(await db.discordRoleMapping.count({ where: { roleId: "600000000000000001" } })).toBe(0);
  });

  it("answers a file posted as the role's name, and a rule without its target, with the rule's words beside the field, storing nothing", async () => {
    const response = await callRoute(discordRoute, {
      method: "POST",
      path: "/admin/discord",
      cookie: adminCookie,
      form: formWith([
        ["role_id", "600000000000000002"],
        ["role_name", file()],
        ["rule", "ANY_PAID_ACCESS"],
      ]),
    });
    expect(response.status).toBe(400);
    const answer = await readJsonBody<DiscordAnswer>(response);
    expect(answer.message).toBe(DISCORD_MESSAGES.roleNameRequired);
    expect(answer.fields).toEqual({ role_name: DISCORD_MESSAGES.roleNameRequired });
    expect(JSON.stringify(answer)).not.toContain("object File");
    expect(await db.discordRoleMapping.count({ where: { roleId: "600000000000000002" } })).toBe(0);

    // A rule without its target: the message beside the target's field.
    const untargeted = await callRoute(discordRoute, {
      method: "POST",
      path: "/admin/discord",
      cookie: adminCookie,
      form: { role_id: "600000000000000002", role_name: "Gold", rule: "TIER_AT_LEAST", tier_id: "" },
    });
    expect(untargeted.status).toBe(400);
    expect((await readJsonBody<DiscordAnswer>(untargeted)).fields).toEqual({ tier_id: DISCORD_MESSAGES.tierRequired });
    expect(await db.discordRoleMapping.count({ where: { roleId: "600000000000000002" } })).toBe(0);
  });
});

type CatalogAnswer = { form: string; message: string; fields: Record<string, string> };

describe("/admin/catalog: tags and prices, read with the schemas of the /api/admin routes", () => {
  it("refuses a file posted as the tag's name with the name's own message beside it, storing no tag", async () => {
    const response = await callRoute(catalogRoute, {
      method: "POST",
      path: "/admin/catalog",
      cookie: adminCookie,
      form: formWith([
        ["intent", "create-tag"],
        ["name", file()],
        ["slug", "filed"],
      ]),
    });
    expect(response.status).toBe(400);
    expect(await readJsonBody<CatalogAnswer>(response)).toMatchObject({
      form: "create-tag",
      message: "Give the tag a name.",
      fields: { name: "Give the tag a name." },
    });
    expect(await db.tag.count({ where: { slug: "filed" } })).toBe(0);
  });

  it("saves a tier's price typed in units as cents", async () => {
    const tier = await db.tier.create({ data: { id: "tier-parser", title: "Parser tier", isPaid: true } });
    const response = await callRoute(catalogRoute, {
      method: "POST",
      path: "/admin/catalog",
      cookie: adminCookie,
      form: { intent: "tier-price", tierId: tier.id, amount: " 4.50 ", currency: "eur" },
    });
    expect(response.status).toBe(302);
    expect(await db.tier.findUniqueOrThrow({ where: { id: tier.id } })).toMatchObject({ amountCents: 450, currency: "EUR" });

    const refused = await callRoute(catalogRoute, {
      method: "POST",
      path: "/admin/catalog",
      cookie: adminCookie,
      form: { intent: "tier-price", tierId: tier.id, amount: "4,50", currency: "EUR" },
    });
    expect(refused.status).toBe(400);
    expect(await readJsonBody<CatalogAnswer>(refused)).toMatchObject({ fields: { amount: "Enter the price as an amount such as 4.50." } });
    expect(await db.tier.findUniqueOrThrow({ where: { id: tier.id } })).toMatchObject({ amountCents: 450 });
  });
});

describe("/admin/posts/{id}: the editor's lists and checkboxes", () => {
  it("saves every tag ticked (one name, many values), and the flags ticked and unticked", async () => {
    const post = await createPost({ paid: false, kofiOnly: true });
    for (const slug of ["ships", "boats"]) await db.tag.create({ data: { name: slug, slug } });
    const tags = await callRoute(editorRoute, {
      method: "POST",
      path: `/admin/posts/${post.id}`,
      params: { postId: post.id },
      cookie: adminCookie,
      // URL-encoded, as the editor posts it (a multipart post to the editor is an upload).
      body: new URLSearchParams([
        ["intent", "tags"],
        ["tags", "ships"],
        ["tags", "boats"],
      ]),
    });
    expect([tags.status, tags.headers.get("Location")]).toEqual([302, `/admin/posts/${post.id}`]);
    const saved = await db.postTag.findMany({ where: { postId: post.id }, include: { tag: true } });
    expect(saved.map((row) => row.tag.slug).sort()).toEqual(["boats", "ships"]);

    // The details fieldset: "Paid content" ticked ("on"), "Ko-fi only" unticked (absent), each drawn the other way.
    const flags = await callRoute(editorRoute, {
      method: "POST",
      path: `/admin/posts/${post.id}`,
      params: { postId: post.id },
      cookie: adminCookie,
      form: { intent: "save", has_flags: "1", paid_content: "on", drawn_paid_content: "", drawn_is_kofiOnly: "on" },
    });
    expect(flags.status).toBe(302);
    expect(await db.post.findUniqueOrThrow({ where: { id: post.id } })).toMatchObject({ paidContent: true, isKofiOnly: false });
  });

  it("refuses a shop price it cannot read in the form's words (units), while the API's shop_price_cents speaks of cents; nothing is saved", async () => {
    const post = await createPost({ paid: false });
    await db.post.update({ where: { id: post.id }, data: { shopPriceCents: 450, shopCurrency: "EUR" } });
    const saveShopPrice = (typed: string) =>
      callRoute(editorRoute, {
        method: "POST",
        path: `/admin/posts/${post.id}`,
        params: { postId: post.id },
        cookie: adminCookie,
        form: { intent: "save", shop_price: typed, drawn_shop_price: "4.50" },
      });
    const typed = await saveShopPrice("4,99");
    expect([typed.status, typed.headers.get("Location")]).toEqual([302, `/admin/posts/${post.id}`]);
    const cookie = typed.headers.get("Set-Cookie")!.split(";")[0]!;
    const { toast } = await getToast(new Request("http://localhost:3999/", { headers: { Cookie: cookie } }));
    expect(toast).toMatchObject({ type: "error", message: "Enter the shop price as an amount such as 4.50." });

    const api = await callRoute(postApiRoute, {
      method: "PUT",
      path: `/api/library/posts/${post.id}`,
      params: { id: post.id },
      cookie: adminCookie,
      json: { shop_price_cents: 4.99 },
    });
    expect(api.status).toBe(400);
    expect(await readJsonBody(api)).toMatchObject({ error: "Enter the shop price in cents, a whole number of 0 or more." });
    expect(await db.post.findUniqueOrThrow({ where: { id: post.id } })).toMatchObject({ shopPriceCents: 450, shopCurrency: "EUR" });

    const saved = await saveShopPrice("4.99");
    expect(saved.status).toBe(302);
    expect(await db.post.findUniqueOrThrow({ where: { id: post.id } })).toMatchObject({ shopPriceCents: 499 });
  });
});
