import { createHash } from "node:crypto";
import bcrypt from "bcryptjs";
import sharp from "sharp";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import { listZipEntries } from "~/integrations/zip.server";
import { versionHistories } from "~/models/post-version-history.server";
import { DEMO_ADMIN, demoImage, seedDemoContent } from "../prisma/demo-content";

describe("demo content", () => {
  it("seeds tiers, posts with files and images, panels, an inspiration vote and a demo admin, once", async () => {
    const store = await storage();
    expect(await seedDemoContent(db, store)).toBe(true);

    const tiers = await db.tier.findMany();
    expect(tiers.filter((tier) => tier.isPaid).map((tier) => tier.id).sort()).toEqual(
      ["10477032", "21786318", "8652254", "8824971", "8825009"].sort(),
    );
    expect(tiers.filter((tier) => tier.canVote).map((tier) => tier.id).sort()).toEqual(
      ["21786318", "23507144", "23507184", "8658988", "8825009", "8825088"].sort(),
    );

    const posts = await db.post.findMany();
    expect(posts).toHaveLength(24);
    expect(posts.some((post) => !post.paidContent)).toBe(true);
    expect(posts.some((post) => post.isKofiOnly)).toBe(true);
    const withImage = posts.find((post) => post.imageKey)!;
    const image = await sharp(await streamToBuffer(await store.read(withImage.imageKey!))).metadata();
    expect(image.format).toBe("jpeg");
    for (const post of posts) {
      expect((await store.stat(post.driveFileId!))?.size).toBe(Number(post.fileSize));
    }

    // Every post's file is its current version; the ZIP demo post has two, with a changelog (issue 16).
    for (const post of posts) {
      const current = await db.postVersion.findUniqueOrThrow({ where: { id: post.currentVersionId! } });
      expect(current).toMatchObject({ storageKey: post.driveFileId, label: post.version, size: post.fileSize });
      expect(current.sha256).toBe(createHash("sha256").update(await streamToBuffer(await store.read(post.driveFileId!))).digest("hex"));
    }
    const zipPost = posts.find((post) => post.fileName?.endsWith(".zip"))!;
    const history = (await versionHistories([zipPost.id], { admin: false }))[zipPost.id]!;
    expect(history.map((version) => version.label)).toEqual(["V2.1", "V2.0"]);
    expect(await listZipEntries(store, zipPost.driveFileId!)).toEqual(history[0]!.zip ? (await db.postVersion.findUniqueOrThrow({ where: { id: history[0]!.id } })).zipEntries : null);
    const changelog = history[0]!.changelog!;
    expect([changelog.added.length, changelog.removed.length, changelog.changed.length].every((count) => count > 0)).toBe(true);

    expect(await db.panel.count()).toBe(6);
    expect(await db.inspirationPanel.count()).toBe(8);
    // The card shows the title under the image: the demo images carry no caption of their own.
    const idea = await db.inspirationPanel.findFirstOrThrow({ where: { title: "Idea #1" } });
    const ideaImage = await streamToBuffer(await store.read(idea.imageUrl.replace("/media/", "images/")));
    expect(ideaImage.equals(await demoImage(null, 1))).toBe(true);
    const admin = await db.user.findUniqueOrThrow({ where: { email: DEMO_ADMIN.email } });
    expect(admin.isAdmin && admin.canBeAdmin && admin.mailVerified).toBe(true);
    expect(await bcrypt.compare(DEMO_ADMIN.password, admin.passwordHash!)).toBe(true);

    expect(await seedDemoContent(db, store)).toBe(false);
    expect(await db.post.count()).toBe(24);
  }, 60_000);
});

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
