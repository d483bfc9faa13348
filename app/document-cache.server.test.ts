import { describe, expect, it } from "vitest";
import { documentEtag, forgetSharedPages, rememberSharedPage, sharedPageAnswer, sharedPagesSince } from "./document-cache.server";

function page(html: string) {
  return { html, etag: documentEtag(html), scriptHashes: [] };
}

describe("guest pages kept for a second", () => {
  it("answers a guest from the page kept moments ago, and nobody with a session or a token", () => {
    forgetSharedPages();
    rememberSharedPage("http://site.test/library?page=2", page("<p>two</p>"), new Headers({ "Cache-Control": "public" }), sharedPagesSince());
    expect(sharedPageAnswer("/library?page=2", {})?.body).toBe("<p>two</p>");
    expect(sharedPageAnswer("/library", {})).toBeNull();
    expect(sharedPageAnswer("/library?page=2", { cookie: "__session=abc" })).toBeNull();
    expect(sharedPageAnswer("/library?page=2", { authorization: "Bearer t" })).toBeNull();
  });

  it("keeps nothing whose request started before a change, even when its answer is made after it", () => {
    forgetSharedPages();
    const startedBeforeTheChange = sharedPagesSince();
    forgetSharedPages(); // a write answered while this page's loaders were reading
    rememberSharedPage("http://site.test/", page("<p>old</p>"), new Headers(), startedBeforeTheChange);
    expect(sharedPageAnswer("/", {})).toBeNull();

    rememberSharedPage("http://site.test/", page("<p>new</p>"), new Headers(), sharedPagesSince());
    expect(sharedPageAnswer("/", {})?.body).toBe("<p>new</p>");
  });

  it("stops answering from a page after a second", () => {
    forgetSharedPages();
    rememberSharedPage("http://site.test/infos", page("<p>infos</p>"), new Headers(), sharedPagesSince());
    expect(sharedPageAnswer("/infos", {}, Date.now() + 999)?.body).toBe("<p>infos</p>");
    expect(sharedPageAnswer("/infos", {}, Date.now() + 1_000)).toBeNull();
  });
});
