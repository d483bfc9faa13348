// The admin's "Send update digests now" on /admin, as a plain form post (the no-JavaScript path):
// digests go out through the real SMTP capture, the toast counts them, a second press mails
// nothing new (the digest's ledger), and everyone but an admin is refused with nothing changed.
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { DIGEST_SUBJECT } from "~/models/update-digest.server";
import { saveUpdatePreferences } from "~/models/update-notifications.server";
import * as adminRoute from "~/routes/admin";
import { getToast } from "~/toast.server";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";
import { setEnv } from "./env";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { useMailCapture } from "./mail-capture";
import { seedUpdatesLibrary } from "./updates-seed";

const mail = useMailCapture();

/** The flash toast a redirect set, read back as the next page would. */
async function toastOf(response: Response) {
  const cookie = response.headers.get("Set-Cookie")?.split(";")[0];
  expect(cookie).toMatch(/^toast-session=/);
  return (await getToast(new Request("http://localhost:3999/admin", { headers: { Cookie: cookie! } }))).toast;
}

const sendDigests = (cookie?: string, path = "/admin") => callRoute(adminRoute, { method: "POST", path, form: { intent: "send-digests" }, cookie });

/** Everything a digest run writes, and the mails the capture received. */
async function footprint() {
  return {
    ledger: await db.updateMailed.count(),
    runs: await db.jobRun.count(),
    audit: await db.auditEntry.count(),
    subscriptions: await db.updateSubscription.findMany({ orderBy: { userId: "asc" }, select: { userId: true, lastDigestAt: true } }),
    mails: mail().messages.length,
  };
}

let admin: User;
let reader: User;
let member: User;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, fullName: "Digest Admin" });
  // A big library owned by one reader (the updates benchmark's data), and a Tier 2 member.
  reader = await createTestUser({ currentTierId: TIER_2, fullName: "Library Reader" });
  await seedUpdatesLibrary(db, reader.id, { posts: 200, downloads: 800 });
  member = await createTestUser({ currentTierId: TIER_2, fullName: "Tier Member" });
  await saveUpdatePreferences(reader.id, { newVersions: "on", newPosts: "on" });
  await saveUpdatePreferences(member.id, { newPosts: "on" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  // After both opted in: a new version of a post the reader owns, and a new post for Tier 2.
  await db.postVersion.createMany({
    data: [
      { postId: "u2", label: "V1.0", storageKey: "posts/u2/old.zip", fileName: "old.zip", size: 10n, createdAt: new Date(Date.now() - 60 * 60_000) },
      { postId: "u2", label: "V2.0", notes: "Sharper textures", storageKey: "posts/u2/new.zip", fileName: "new.zip", size: 10n, createdAt: new Date() },
    ],
  });
  await createPost({ title: "Fresh for members", tiers: [TIER_2], firstPublishedAt: new Date() });
});

describe("Send update digests now", () => {
  it("is refused for guests and non-admins, and changes nothing", async () => {
    const before = await footprint();
    const fan = await createTestUser();
    const restrictedAdmin = await createTestUser({ isAdmin: true, canBeAdmin: true, restricted: true });
    for (const cookie of [undefined, await sessionCookie(fan.id), await sessionCookie(member.id), await sessionCookie(restrictedAdmin.id)]) {
      const response = await sendDigests(cookie);
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toBe("/");
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await footprint()).toEqual(before);
  });

  it("mails each subscriber through SMTP, says how many in a toast, and a second press mails nothing new", async () => {
    const cookie = await sessionCookie(admin.id);
    const response = await sendDigests(cookie, "/admin?search=digest&page=1");
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/admin?search=digest");
    expect(await toastOf(response)).toMatchObject({ type: "success", message: "Update digests sent: 2." });

    const toReader = await mail().nextMailTo(reader.email!);
    expect(toReader.subject).toBe(DIGEST_SUBJECT);
    expect(toReader.text).toContain("- Update post 2 V2.0");
    expect(toReader.text).toContain("Sharper textures");
    expect(toReader.text).toContain("- Fresh for members");
    const toMember = await mail().nextMailTo(member.email!);
    expect(toMember.text).toContain("- Fresh for members");
    expect(toMember.text).not.toContain("Update post 2 V2.0");

    const ledger = await db.updateMailed.findMany({ where: { userId: { in: [reader.id, member.id] } } });
    expect(ledger.map((row) => `${row.userId === reader.id ? "reader" : "member"} ${row.kind}`).sort()).toEqual([
      "member NEW_POST",
      "reader NEW_POST",
      "reader NEW_VERSION",
    ]);
    expect(await db.jobRun.findFirstOrThrow({ where: { job: "update-digest" }, orderBy: { startedAt: "desc" } })).toMatchObject({
      trigger: "manual",
      status: "done",
    });
    expect(await db.auditEntry.findFirstOrThrow({ where: { action: "digests.send" } })).toMatchObject({
      actorId: admin.id,
      targetType: "job",
      after: { mailed: 2, failed: 0 },
    });

    // Pressed again: the ledger has every item, so nothing goes out.
    const mailsBefore = mail().messages.length;
    const again = await sendDigests(cookie);
    expect(again.headers.get("Location")).toBe("/admin");
    expect(await toastOf(again)).toMatchObject({ type: "success", message: "Update digests sent: 0." });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mail().messages.length).toBe(mailsBefore);
    expect(await db.updateMailed.count({ where: { userId: { in: [reader.id, member.id] } } })).toBe(3);
    expect(await db.auditEntry.count({ where: { action: "digests.send" } })).toBe(2);
  });

  it("is refused with a toast while update mails are switched off on the site", async () => {
    const before = await footprint();
    setEnv("UPDATE_DIGEST_HOURS", "0");
    try {
      const response = await sendDigests(await sessionCookie(admin.id));
      expect(response.headers.get("Location")).toBe("/admin");
      expect(await toastOf(response)).toMatchObject({ type: "error", message: ADMIN_MESSAGES.digestsOff });
    } finally {
      setEnv("UPDATE_DIGEST_HOURS", undefined);
    }
    expect(await footprint()).toEqual(before);
  });
});
