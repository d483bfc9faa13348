// One explanation per card per request (issue 46 item 5): the library page's cards, their file
// lines and the `unlocked` flag, and the post page's card, files and `unlocked`, all say what the
// listing's one explanation of the post says, even when a release step opens while the request
// is still waiting on the database. The clock here moves on by a second with every statement the
// database is sent, so steps that open a second apart open during a request.
import pg from "pg";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "~/db.server";
import * as postApi from "~/routes/api.library.posts.$id";
import * as libraryRoute from "~/routes/library";
import { REQUIREMENT_WORDS } from "~/utils/requirements";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";

/** Posts whose release step for Tier 2 opens 1, 2, … seconds after the request starts. */
const STEPS = 16;
const TITLE = "Clockwork Set";

let supporterCookie: string;
let fanCookie: string;
const postIds: string[] = [];

beforeAll(async () => {
  await createTiers();
  supporterCookie = await sessionCookie((await createTestUser({ currentTierId: TIER_2, tosAccepted: true })).id);
  fanCookie = await sessionCookie((await createTestUser()).id);
  for (let index = 0; index < STEPS; index += 1) {
    // Paid, no tier of its own: only its release step opens it (to Tier 2).
    const post = await createPost({ tiers: [], kofiId: null, title: `${TITLE} ${index + 1}` });
    const version = await db.postVersion.create({
      data: { postId: post.id, label: "V1.0", storageKey: post.driveFileId!, fileName: post.fileName!, size: post.fileSize! },
    });
    await db.post.update({ where: { id: post.id }, data: { currentVersionId: version.id } });
    // An added file with the post's gate: its card line says what the card says.
    await db.versionFile.create({
      data: {
        versionId: version.id,
        role: "VARIANT",
        label: "Alpha",
        storageKey: post.driveFileId!,
        fileName: "alpha.package",
        size: post.fileSize!,
        sha256: "a".repeat(64),
        contentHash: "a".repeat(64),
      },
    });
    postIds.push(post.id);
  }
});

afterEach(() => {
  vi.useRealTimers();
});

/**
 * From now on, the clock stands still but for the database: each statement sent moves it one
 * second on. The steps are placed so that they open during the next request.
 */
async function stepsOpeningDuringTheNextRequest(): Promise<void> {
  const start = Date.now() + 60_000;
  for (const [index, postId] of postIds.entries()) {
    await db.releaseStep.deleteMany({ where: { postId } });
    await db.releaseStep.create({
      data: {
        postId,
        position: 0,
        audienceTierId: TIER_2,
        tierIds: [TIER_2],
        opensOn: new Date(start + (index + 1) * 1000),
        opensAt: new Date(start + (index + 1) * 1000),
      },
    });
  }
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(start);
}

/** Runs `request` with each database statement moving the clock one second on. */
async function whileTheClockMovesWithTheDatabase<T>(request: () => Promise<T>): Promise<T> {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with each client as `this`, and put back after.
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    vi.setSystemTime(Date.now() + 1000);
    return (query as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return await request();
  } finally {
    pg.Client.prototype.query = query;
  }
}

const HAVE = new Set<string>([REQUIREMENT_WORDS.have, REQUIREMENT_WORDS.free]);

type LibraryData = {
  posts: { postId: string; unlocked: boolean }[];
  access: Record<string, { allowed: boolean; summary: string }>;
  files: Record<string, { name: string; access: string }[]>;
};

describe("one explanation per card per request", () => {
  it.each([
    ["a supporter", () => supporterCookie],
    ["a fan", () => fanCookie],
    ["a guest", () => undefined],
  ])("the library page's cards, file lines and unlocked flags agree for %s while steps open mid-request", async (_who, cookie) => {
    await stepsOpeningDuringTheNextRequest();
    const response = await whileTheClockMovesWithTheDatabase(() =>
      callRoute(libraryRoute, { path: `/library?search=${encodeURIComponent(TITLE)}`, cookie: cookie() }),
    );
    const data = await readJsonBody<LibraryData>(response);
    expect(data.posts).toHaveLength(STEPS);
    for (const post of data.posts) {
      expect(data.access[post.postId]!.allowed, `card of ${post.postId}`).toBe(post.unlocked);
      const lines = data.files[post.postId] ?? [];
      expect(lines.map((line) => line.name)).toEqual(["Alpha"]);
      expect(HAVE.has(lines[0]!.access), `file line of ${post.postId}: ${lines[0]!.access}`).toBe(post.unlocked);
    }
    const unlocked = data.posts.filter((post) => post.unlocked).length;
    if (cookie() === supporterCookie) {
      // The request's instant is among the steps: some had opened by then, some had not.
      expect(unlocked).toBeGreaterThan(0);
      expect(unlocked).toBeLessThan(STEPS);
    } else {
      expect(unlocked).toBe(0);
    }
  });

  it("the post page's card, files and unlocked flag agree for a supporter while its step opens mid-request", async () => {
    const disagreements: string[] = [];
    let opened = 0;
    for (const postId of postIds) {
      await stepsOpeningDuringTheNextRequest();
      const response = await whileTheClockMovesWithTheDatabase(() =>
        callRoute(postApi, { path: `/api/library/posts/${postId}`, params: { id: postId }, cookie: supporterCookie }),
      );
      const body = await readJsonBody<{ post: { unlocked: boolean }; access: { allowed: boolean }; files: { role: string; unlocked: boolean }[] }>(response);
      const said = [body.access.allowed, ...body.files.map((file) => file.unlocked)];
      if (said.some((value) => value !== body.post.unlocked))
        disagreements.push(`${postId}: unlocked ${body.post.unlocked}, card and files ${said.join(", ")}`);
      expect(body.files.map((file) => file.role)).toEqual(["main", "variant"]);
      if (body.post.unlocked) opened += 1;
    }
    expect(disagreements).toEqual([]);
    // The requests' instants fell among the steps: some posts had opened, some had not.
    expect(opened).toBeGreaterThan(0);
    expect(opened).toBeLessThan(STEPS);
  });
});
