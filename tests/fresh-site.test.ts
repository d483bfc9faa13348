// Only a fresh site (no posts, no accounts) gets the demo content; `npm start` asks first over a
// plain connection (prisma/fresh-site.ts), and the seed asks again with the same query.
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import { seedDemoContent } from "../prisma/demo-content";
import { isFreshSite } from "../prisma/fresh-site";
import { createTestUser } from "./helpers";

const databaseUrl = () => process.env.DIRECT_DATABASE_URL ?? process.env.DATABASE_URL!;

describe("a fresh site", () => {
  it("is one with neither posts nor accounts; the seed leaves any other site as it is", async () => {
    expect(await isFreshSite(databaseUrl())).toBe(true);

    const account = await createTestUser();
    expect(await isFreshSite(databaseUrl())).toBe(false);
    expect(await seedDemoContent(db, await storage())).toBe(false);
    expect(await db.post.count()).toBe(0);
    expect(await db.user.count()).toBe(1);

    await db.user.delete({ where: { id: account.id } });
    await db.post.create({ data: { id: "9001", title: "Cabin", version: "V2.0" } });
    expect(await isFreshSite(databaseUrl())).toBe(false);
    expect(await seedDemoContent(db, await storage())).toBe(false);
    expect(await db.post.count()).toBe(1);
    expect(await db.user.count()).toBe(0);
  });
});
