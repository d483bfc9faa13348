// The release editor (docs/product.md#the-release-editor): without JavaScript "Add step" and
// "Remove" come back through the post editor's action with the rows as typed and save nothing; times
// are read in the creator's time zone; only current paid tiers are offered (legacy ones when a
// step uses them); the live preview is the cards' ladder.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { resetEnvCache } from "~/env.server";
import type { User } from "~/generated/prisma/client";
import * as editorRoute from "~/routes/admin_.posts_.$postId";
import { decodeReleaseDraft, draftLadder, editDraftRows, editorTiers, type EditorTier } from "~/utils/release-draft";
import { ladderWords } from "~/utils/release-ladder";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";

let admin: User;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
});

afterAll(() => {
  delete process.env.CREATOR_TIME_ZONE;
  resetEnvCache();
});

/** Posts the editor's form of the post named by the fields' postId, as the browser would without JavaScript. */
async function submit(fields: [string, string][]) {
  const postId = fields.find(([name]) => name === "postId")?.[1] ?? "";
  return callRoute(editorRoute, {
    method: "POST",
    path: `/admin/posts/${postId}`,
    params: { postId },
    body: new URLSearchParams(fields).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    cookie: await sessionCookie(admin.id),
  });
}

function toastOf(response: Response): string {
  const value = /toast-session=([^;]+)/.exec(response.headers.get("Set-Cookie") ?? "")?.[1] ?? "";
  return Buffer.from(decodeURIComponent(value).split(".")[0] ?? "", "base64").toString("utf8");
}

/** The rows the answer's address carries back to the editor. */
function draftOf(response: Response) {
  const location = response.headers.get("Location") ?? "";
  return { location, draft: decodeReleaseDraft(new URL(location, "http://local").searchParams.get("release_draft")) };
}

const typed = (postId: string, extra: [string, string][]): [string, string][] => [
  ["intent", "release-steps"],
  ["postId", postId],
  ["back", "/library?search=Cascade"],
  ["preset", ""],
  ["step_audience", TIER_3],
  ["step_days", "0"],
  ["step_date", ""],
  ["step_audience", TIER_2],
  ["step_days", "7"],
  ["step_date", ""],
  ...extra,
];

describe("Add step and Remove without JavaScript", () => {
  it("Add step answers the rows as typed plus a blank one, at the editor, and saves nothing", async () => {
    const post = await createPost({ title: "Cascade A" });
    const answer = await submit(typed(post.id, [["step_edit", "add"]]));
    expect(answer.status).toBe(302);
    const { location, draft } = draftOf(answer);
    expect(location.startsWith(`/admin/posts/${post.id}?release_draft=`)).toBe(true);
    expect(location.endsWith(`#release-${post.id}`)).toBe(true);
    expect(draft).toEqual({
      post: post.id,
      rows: [
        { audience: TIER_3, days: "0", date: "" },
        { audience: TIER_2, days: "7", date: "" },
        { audience: "", days: "", date: "" },
      ],
    });
    expect(await db.releaseStep.count({ where: { postId: post.id } })).toBe(0);
  });

  it("Remove drops that row and keeps the others as typed", async () => {
    const post = await createPost({ title: "Cascade B" });
    const { draft } = draftOf(await submit(typed(post.id, [["step_edit", "remove:0"]])));
    expect(draft?.rows).toEqual([{ audience: TIER_2, days: "7", date: "" }]);
    expect(await db.releaseStep.count({ where: { postId: post.id } })).toBe(0);
  });

  it("a four-step cascade is saved at once, and the address loses the rows", async () => {
    const post = await createPost({ title: "Cascade C" });
    const answer = await submit(
      typed(post.id, [
        ["step_audience", TIER_1],
        ["step_days", "14"],
        ["step_date", ""],
        ["step_audience", "everyone"],
        ["step_days", "30"],
        ["step_date", ""],
      ]),
    );
    expect(answer.status).toBe(302);
    expect(answer.headers.get("Location")).toBe(`/admin/posts/${post.id}`);
    const steps = await db.releaseStep.findMany({ where: { postId: post.id }, orderBy: { position: "asc" } });
    expect(steps.map((step) => [step.audienceTierId, step.afterDays])).toEqual([
      [TIER_3, 0],
      [TIER_2, 7],
      [TIER_1, 14],
      [null, 30],
    ]);
  });

  it("a refused save keeps the rows as typed, with the message", async () => {
    const post = await createPost({ title: "Cascade D" });
    const answer = await submit(
      typed(post.id, [
        ["step_audience", TIER_1],
        ["step_days", "3"],
        ["step_date", ""],
      ]),
    );
    expect(toastOf(answer)).toContain("Each step must open at or after the step before it.");
    expect(draftOf(answer).draft?.rows.map((row) => row.days)).toEqual(["0", "7", "3"]);
    expect(await db.releaseStep.count({ where: { postId: post.id } })).toBe(0);
  });
});

describe("times in the creator's time zone", () => {
  it("reads a step's date and a scheduled publication in CREATOR_TIME_ZONE", async () => {
    process.env.CREATOR_TIME_ZONE = "Europe/Berlin";
    resetEnvCache();
    try {
      const post = await createPost({ title: "Cascade Zone" });
      await submit([
        ["intent", "release-steps"],
        ["postId", post.id],
        ["back", "/library"],
        ["step_audience", "everyone"],
        ["step_days", ""],
        ["step_date", "2031-02-01T18:00"],
      ]);
      const step = await db.releaseStep.findFirstOrThrow({ where: { postId: post.id } });
      expect(step.opensOn?.toISOString()).toBe("2031-02-01T17:00:00.000Z");
      await submit([
        ["intent", "schedule"],
        ["postId", post.id],
        ["back", "/library"],
        ["publish_at", "2031-01-01T18:00"],
      ]);
      expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).publishAt?.toISOString()).toBe("2031-01-01T17:00:00.000Z");
    } finally {
      delete process.env.CREATOR_TIME_ZONE;
      resetEnvCache();
    }
  });
});

const TIERS: EditorTier[] = [
  { tierId: TIER_1, title: "Tier 1", isPaid: true, subscribeLabel: "Tier 1", amount_cents: 300 },
  { tierId: "legacy", title: "Supporter (legacy)", isPaid: true, subscribeLabel: null, amount_cents: 400 },
  { tierId: TIER_2, title: "Tier 2", isPaid: true, subscribeLabel: "Tier 2", amount_cents: 500 },
  { tierId: "patron", title: "Patron (legacy)", isPaid: false, subscribeLabel: null, amount_cents: null },
  { tierId: TIER_3, title: "Tier 3", isPaid: true, subscribeLabel: "Tier 3", amount_cents: 1000 },
];

describe("the editor's tiers and preview", () => {
  it("offers the current paid tiers, and a legacy one only when a step uses it", () => {
    expect(editorTiers(TIERS, []).map((tier) => tier.title)).toEqual(["Tier 1", "Tier 2", "Tier 3"]);
    expect(editorTiers(TIERS, ["legacy", "everyone"]).map((tier) => tier.title)).toEqual(["Tier 1", "Supporter (legacy)", "Tier 2", "Tier 3"]);
  });

  it("adds and removes rows, at most eight", () => {
    const one = [{ audience: TIER_3, days: "0", date: "" }];
    expect(editDraftRows(one, "add")).toHaveLength(2);
    expect(editDraftRows(one, "remove:0")).toEqual([]);
    expect(
      editDraftRows(
        Array.from({ length: 8 }, () => one[0]!),
        "add",
      ),
    ).toHaveLength(8);
  });

  it("previews the rows as the cards' ladder, times read in the creator's zone", () => {
    const published = new Date("2026-11-27T12:00:00Z");
    const rungs = draftLadder(
      [
        { audience: TIER_3, days: "0", date: "" },
        { audience: TIER_2, days: "2", date: "" },
        { audience: "", days: "", date: "" },
        { audience: "everyone", days: "", date: "2027-01-21T00:30" },
      ],
      { tiers: [TIER_3], is_kofiOnly: false },
      TIERS,
      published,
      "Europe/Berlin",
      published,
    );
    // 00:30 in Berlin on 21 Jan is 23:30 UTC on 20 Jan: the ladder's day is the viewer's (here,
    // outside a request, the site's default zone, UTC), as on the cards.
    expect(ladderWords(rungs!)).toBe("Tier 3 now · Tier 2 on 29 Nov 2026 · Free on 20 Jan 2027");
  });
});
