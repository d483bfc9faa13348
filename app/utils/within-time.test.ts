import { afterEach, describe, expect, it, vi } from "vitest";
import { withinTime } from "./within-time";

afterEach(() => vi.useRealTimers());

describe("withinTime", () => {
  it("answers what the work answers in time, and its failure as it is", async () => {
    expect(await withinTime(Promise.resolve(7), 1_000, () => new Error("late"))).toBe(7);
    await expect(withinTime(Promise.reject(new Error("broken")), 1_000, () => new Error("late"))).rejects.toThrow("broken");
  });

  it("fails with late()'s error once the bound has passed, and a later failure of the work goes unheard", async () => {
    vi.useFakeTimers();
    let fail = (_error: Error) => undefined as void;
    const work = new Promise<number>((_resolve, reject) => (fail = reject));
    const answer = withinTime(work, 500, () => new Error("no answer within 500 ms")).then(
      () => "answered",
      (error: Error) => error.message,
    );
    await vi.advanceTimersByTimeAsync(499);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toBe("no answer within 500 ms");
    // No unhandled rejection: the race already listens to the work.
    fail(new Error("too late to matter"));
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
