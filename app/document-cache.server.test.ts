import { describe, expect, it } from "vitest";
import { documentEtag, forgetSharedPages, rememberSharedPage, sharedPageAnswer, sharedPagesSince } from "./document-cache.server";

function page(html: string) {
  const bytes = Buffer.from(html);
  return { bytes, etag: documentEtag(bytes), scriptHashes: [] };
}

/** The text of a kept answer's body. */
function bodyText(answer: { body: Buffer | null } | null): string | undefined {
  return answer?.body?.toString("utf8");
}

describe("guest pages kept for a second", () => {
  it("answers a guest from the page kept moments ago, and nobody with a session or a token", () => {
    forgetSharedPages();
    rememberSharedPage("http://site.test/library?page=2", null, page("<p>two</p>"), new Headers({ "Cache-Control": "public" }), sharedPagesSince());
    expect(bodyText(sharedPageAnswer("/library?page=2", {}))).toBe("<p>two</p>");
    expect(sharedPageAnswer("/library", {})).toBeNull();
    expect(sharedPageAnswer("/library?page=2", { cookie: "__session=abc" })).toBeNull();
    expect(sharedPageAnswer("/library?page=2", { authorization: "Bearer t" })).toBeNull();
  });

  it("keeps nothing whose request started before a change, even when its answer is made after it", () => {
    forgetSharedPages();
    const startedBeforeTheChange = sharedPagesSince();
    forgetSharedPages(); // a write answered while this page's loaders were reading
    rememberSharedPage("http://site.test/", null, page("<p>old</p>"), new Headers(), startedBeforeTheChange);
    expect(sharedPageAnswer("/", {})).toBeNull();

    rememberSharedPage("http://site.test/", null, page("<p>new</p>"), new Headers(), sharedPagesSince());
    expect(bodyText(sharedPageAnswer("/", {}))).toBe("<p>new</p>");
  });

  it("keeps one copy per combination of a guest's own cookies, as Vary: Cookie tells shared caches", () => {
    forgetSharedPages();
    rememberSharedPage("http://site.test/library", null, page("<p>blurred</p>"), new Headers(), sharedPagesSince());
    rememberSharedPage("http://site.test/library", "nsfwAccepted=dHJ1ZQ%3D%3D", page("<p>accepted</p>"), new Headers(), sharedPagesSince());
    expect(bodyText(sharedPageAnswer("/library", {}))).toBe("<p>blurred</p>");
    expect(bodyText(sharedPageAnswer("/library", { cookie: "nsfwAccepted=dHJ1ZQ%3D%3D" }))).toBe("<p>accepted</p>");
    expect(sharedPageAnswer("/library", { cookie: "other=1" })).toBeNull();
  });

  it("stops answering from a page after a second", () => {
    forgetSharedPages();
    rememberSharedPage("http://site.test/infos", null, page("<p>infos</p>"), new Headers(), sharedPagesSince());
    expect(bodyText(sharedPageAnswer("/infos", {}, Date.now() + 999))).toBe("<p>infos</p>");
    expect(sharedPageAnswer("/infos", {}, Date.now() + 1_000)).toBeNull();
  });
});
