// The library renders its cards in steps of 48 (a catalogue of 1,000 posts would hydrate 1,000
// cards at once: Lighthouse performance 73 -> 99 on a phone). "Show more posts" is a plain link.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import * as library from "~/routes/library";
import { callRoute } from "./helpers";
import { createTiers } from "./library-fixtures";

type LoaderData = { posts: { postId: string }[]; matching: number; total: number; termsPostId: string | null };

async function load(path: string): Promise<LoaderData> {
  const response = await callRoute(library, { path });
  expect(response.status).toBe(200);
  return (await response.json()) as LoaderData;
}

beforeAll(async () => {
  await createTiers();
  const now = Date.now();
  await db.post.createMany({
    data: Array.from({ length: 130 }, (_, index) => ({
      id: String(700000 + index),
      title: `Paging post ${index}`,
      paidContent: false,
      orderDate: new Date(now - index * 60_000),
      firstPublishedAt: new Date(now - index * 60_000),
    })),
  });
});

describe("library paging", () => {
  it("renders 48 cards first, more with ?show=, all that match in the count", async () => {
    const first = await load("/library");
    expect(first.posts).toHaveLength(48);
    expect(first.matching).toBe(130);
    expect(first.total).toBe(130);
    expect(first.posts[0]!.postId).toBe("700000");
    expect((await load("/library?show=96")).posts).toHaveLength(96);
    expect((await load("/library?show=1000")).posts).toHaveLength(130);
    // Nonsense stays at the first step.
    expect((await load("/library?show=-5")).posts).toHaveLength(48);
    expect((await load("/library?show=abc")).posts).toHaveLength(48);
    // A search counts and shows only its matches.
    const search = await load("/library?search=Paging%20post%2012");
    expect(search.matching).toBe(search.posts.length);
  });

  it("a terms link to a post beyond the first step still renders that post", async () => {
    const data = await load("/library?terms=700120");
    expect(data.termsPostId).toBe("700120");
    expect(data.posts.map((post) => post.postId)).toContain("700120");
  });
});
