// Release mails through the real SMTP capture (docs/product.md#releases): when a release step
// opens, those it newly reaches who asked for it get a mail at once, "Now available for your
// tier: …"; a tier that had the post before hears nothing; two runs at once, or a run and a
// digest, tell nobody twice.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { RELEASE_MAIL_SUBJECT, runReleaseMails } from "~/models/release-mail.server";
import { setReleaseSteps } from "~/models/release.server";
import { runUpdateDigests } from "~/models/update-digest.server";
import { saveUpdatePreferences } from "~/models/update-notifications.server";
import { createTestUser } from "./helpers";
import { createPost, createTiers, TIER_2, TIER_3 } from "./library-fixtures";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();
const DAY = 86_400_000;
let admin: User;
let tier2: User;
let tier3: User;
let optedOut: User;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
  tier2 = await createTestUser({ currentTierId: TIER_2, mailVerified: true, emailVerifiedBy: "CODE" });
  tier3 = await createTestUser({ currentTierId: TIER_3, mailVerified: true, emailVerifiedBy: "CODE" });
  optedOut = await createTestUser({ currentTierId: TIER_2, mailVerified: true, emailVerifiedBy: "CODE" });
  await saveUpdatePreferences(tier2.id, { releases: "on", newPosts: "on" });
  await saveUpdatePreferences(tier3.id, { releases: "on" });
  await saveUpdatePreferences(optedOut.id, { newVersions: "on" });
  // They asked a day ago: what opens from now on is theirs to hear about.
  await db.updateSubscription.updateMany({ data: { releasesSince: new Date(Date.now() - DAY), newPostsSince: new Date(Date.now() - DAY) } });
});

describe("a mail at once when a step opens", () => {
  it("reaches the newly entitled who asked, once, and the digest does not repeat it", async () => {
    const post = await createPost({ tiers: [], title: "Opening Night Set", firstPublishedAt: new Date(Date.now() - 3 * DAY) });
    // Tier 3 had it from publication; Tier 2 (and above) from a moment ago.
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_3, after_days: 0 },
        { audience: TIER_2, opens_on: new Date(Date.now() - 1000) },
      ],
    });
    const before = mail().messages.length;
    const [first, second] = await Promise.all([runReleaseMails(), runReleaseMails()]);
    expect([first.skipped, second.skipped]).toContain("locked");
    const run = first.skipped === "locked" ? second : first;
    expect(run).toMatchObject({ skipped: null, failed: 0 });
    const toTier2 = await mail().nextMailTo(tier2.email!);
    expect(toTier2.subject).toBe(RELEASE_MAIL_SUBJECT);
    expect(toTier2.text).toContain("- Now available for your tier: Opening Night Set");
    // Tier 3 had it since publication (told then), and an account that did not ask gets nothing.
    const sentNow = mail().messages.slice(before);
    expect(sentNow.filter((message) => message.to.includes(tier3.email!))).toEqual([]);
    expect(sentNow.filter((message) => message.to.includes(optedOut.email!))).toEqual([]);
    expect(await db.updateMailed.count({ where: { userId: tier2.id, subjectId: post.id } })).toBe(1);

    // Again: nothing new opened since the last run, nothing mailed.
    expect((await runReleaseMails()).skipped).toBe("nothing");
    // The digest (tier 2 also asked for new posts) does not announce it a second time.
    const count = mail().messages.length;
    await runUpdateDigests({ ignorePeriod: true });
    const digests = mail()
      .messages.slice(count)
      .filter((message) => message.to.includes(tier2.email!));
    expect(digests.every((message) => !message.text.includes("Opening Night Set"))).toBe(true);
  });
});
