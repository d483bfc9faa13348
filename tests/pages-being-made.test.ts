// Requests that find no fresh kept page while another request is making it wait for that one
// (app/models/reader-pages.server.ts): here, how long and for whom. The whole path, a maker whose
// client left included, is in tests/signed-in-kept-pages.test.ts.
import { afterEach, describe, expect, it, vi } from "vitest";
import { PAGE_MAKING_WAIT_MS, pageBeingMade, startMakingPage, type ReaderLookup } from "~/models/reader-pages.server";

const lookup = (stamp: string): ReaderLookup => ({ key: "/library\n__session=reader\n", accountId: "reader", libraryStamp: "1", stamp, since: 0 });

/** Whether a promise has settled by now (after pending callbacks ran). */
async function settled(promise: Promise<void> | undefined): Promise<boolean> {
  let done = false;
  void promise?.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

afterEach(() => vi.useRealTimers());

describe("a page being made", () => {
  it("lets the waiting requests go on once its maker's answer has ended, and only one request makes it at a time", async () => {
    vi.useFakeTimers();
    const made = startMakingPage(lookup("a"));
    const waiting = pageBeingMade(lookup("a"));
    expect(waiting).toBeDefined();
    // Another stamp is another page; a second maker of the same page makes nothing of its own.
    expect(pageBeingMade(lookup("b"))).toBeUndefined();
    startMakingPage(lookup("a"))();
    expect(await settled(waiting)).toBe(false);
    made();
    expect(await settled(waiting)).toBe(true);
    expect(pageBeingMade(lookup("a"))).toBeUndefined();
  });

  it("is waited for at most PAGE_MAKING_WAIT_MS when its end is never reported", async () => {
    vi.useFakeTimers();
    const made = startMakingPage(lookup("c"));
    const waiting = pageBeingMade(lookup("c"));
    await vi.advanceTimersByTimeAsync(PAGE_MAKING_WAIT_MS - 1);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
    expect(pageBeingMade(lookup("c"))).toBeUndefined();
    // A new maker of that page, then the first one's late end: the new one's waiters still wait.
    startMakingPage(lookup("c"));
    const next = pageBeingMade(lookup("c"));
    made();
    expect(pageBeingMade(lookup("c"))).toBe(next);
    expect(await settled(next)).toBe(false);
  });
});
