// The library version (migration 0002) moves with every committed change of posts and their tier
// links, and only with committed ones: app servers reload their copy of the library on it.
import { db } from "~/db.server";
import { listLibraryPosts } from "~/models/library-listing.server";

async function version(): Promise<bigint> {
  return (await db.libraryVersion.findUniqueOrThrow({ where: { id: 1 } })).version;
}

const post = (id: string) => ({ id, title: `Post ${id}`, paidContent: false, orderDate: new Date() });

describe("library version", () => {
  it("moves on insert, update and delete of posts and of their tier links", async () => {
    const seen = [await version()];
    await db.post.create({ data: post("900001") });
    seen.push(await version());
    await db.post.update({ where: { id: "900001" }, data: { title: "Renamed" } });
    seen.push(await version());
    await db.tier.create({ data: { id: "t-1", title: "Tier one" } });
    await db.postTier.create({ data: { postId: "900001", tierId: "t-1", kind: "CURRENT" } });
    seen.push(await version());
    await db.postTier.deleteMany({ where: { postId: "900001" } });
    seen.push(await version());
    await db.post.delete({ where: { id: "900001" } });
    seen.push(await version());

    for (let index = 1; index < seen.length; index++) expect(seen[index]).toBeGreaterThan(seen[index - 1]!);
  });

  it("stays put when a transaction rolls back", async () => {
    const before = await version();
    await expect(
      db.$transaction(async (tx) => {
        await tx.post.create({ data: post("900002") });
        throw new Error("abandoned");
      }),
    ).rejects.toThrow("abandoned");
    expect(await version()).toBe(before);
  });

  it("lets the listing see a post written behind the app's back at once", async () => {
    expect((await listLibraryPosts(null)).posts.map((item) => item.postId)).not.toContain("900003");
    await db.$executeRaw`INSERT INTO posts (id, title, paid_content, order_date, updated_at) VALUES ('900003', 'Written by SQL', false, now(), now())`;
    expect((await listLibraryPosts(null)).posts.map((item) => item.postId)).toContain("900003");
    await db.$executeRaw`UPDATE posts SET title = 'Renamed by SQL' WHERE id = '900003'`;
    expect((await listLibraryPosts(null)).posts.find((item) => item.postId === "900003")?.title).toBe("Renamed by SQL");
  });
});
