// Reads shared by callers asking the same thing at about the same time (app/shared-reads.server.ts,
// docs/decisions/028): never an answer read before the caller arrived, one read in flight per key.
import { runAsViewer } from "~/request-context.server";
import { markSent, SAME_ASK, sharedReads } from "~/shared-reads.server";

/** A read whose query "goes out" when started and answers when `finish` is called, counting reads. */
function controlledReads() {
  const started: { ask: string[]; finish: (value: number) => void }[] = [];
  const read = (shared: Parameters<Parameters<ReturnType<typeof sharedReads<string[], number>>>[2]>[0]) =>
    new Promise<number>((resolve) => {
      markSent(shared);
      started.push({ ask: [...shared.asked], finish: resolve });
    });
  return { started, read };
}

const union = sharedReads<string[], number>({
  covers: (have, want) => want.every((item) => have.includes(item)),
  widen: (have, want) => [...new Set([...have, ...want])],
});
const turn = () => new Promise((resolve) => setImmediate(resolve));
const asRequest = <T>(work: () => T) => runAsViewer({ get: () => null }, work);

describe("shared reads", () => {
  it("lets callers of one turn share one read, widened to what each asks", async () => {
    const { started, read } = controlledReads();
    const answers = [union("a", ["user"], read), union("a", ["user", "viewer"], read), union("other", ["user"], read)];
    await turn();
    expect(started.map((item) => item.ask)).toEqual([["user", "viewer"], ["user"]]);
    started[0]!.finish(1);
    started[1]!.finish(2);
    expect(await Promise.all(answers)).toEqual([1, 1, 2]);
  });

  it("never answers a caller from a read sent before its request began: it waits for the next, which serves every such caller", async () => {
    const { started, read } = controlledReads();
    const first = asRequest(() => union("b", ["user"], read));
    await turn();
    expect(started).toHaveLength(1);
    // Two requests arrive while the first read is in flight: they may not take its answer.
    const second = asRequest(() => union("b", ["user"], read));
    const third = asRequest(() => union("b", ["user"], read));
    await turn();
    expect(started).toHaveLength(1);
    started[0]!.finish(1);
    expect(await first).toBe(1);
    await turn();
    await turn();
    expect(started).toHaveLength(2);
    started[1]!.finish(2);
    expect(await Promise.all([second, third])).toEqual([2, 2]);
  });

  it("shares a read sent after the caller's request began, and sends its own when that read lacks what it asks", async () => {
    const { started, read } = controlledReads();
    await asRequest(async () => {
      const forRoot = union("c", ["user"], read);
      await turn();
      // Later in the same request (a page's loader): the read went out after the request began.
      const samePlain = union("c", ["user"], read);
      const wider = union("c", ["user", "details"], read);
      await turn();
      expect(started.map((item) => item.ask)).toEqual([["user"], ["user", "details"]]);
      started[0]!.finish(1);
      started[1]!.finish(2);
      expect(await Promise.all([forRoot, samePlain, wider])).toEqual([1, 1, 2]);
    });
  });

  it("reads again once a read has answered, and after a failed read", async () => {
    const same = sharedReads<null, number>(SAME_ASK);
    let reads = 0;
    const failing = () => {
      reads += 1;
      return Promise.reject(new Error("database down"));
    };
    await expect(same("d", null, failing)).rejects.toThrow("database down");
    const counted = async () => ++reads;
    expect(await same("d", null, counted)).toBe(2);
    expect(await same("d", null, counted)).toBe(3);
  });
});
