// The request scope (app/request-context.server.ts): work a request starts keeps its id; a callback
// wrapped in outsideRequest (a retry timer, a pool's listener) names no request, wherever it was armed.
import { currentRequestId, outsideRequest, runInRequestScope } from "~/request-context.server";

/** What a timer armed inside request `r-1` sees when it fires, plain and wrapped. */
function seenByTimers(): Promise<{ plain: string | null; outside: string | null }> {
  return runInRequestScope({ requestId: "r-1" }, () => {
    const plain = new Promise<string | null>((resolve) => setTimeout(() => resolve(currentRequestId()), 0));
    const outside = new Promise<string | null>((resolve) =>
      setTimeout(
        outsideRequest(() => resolve(currentRequestId())),
        0,
      ),
    );
    return Promise.all([plain, outside]).then(([p, o]) => ({ plain: p, outside: o }));
  });
}

it("keeps a request's id for the work it started, and none for a callback made outsideRequest", async () => {
  expect(await seenByTimers()).toEqual({ plain: "r-1", outside: null });
  expect(currentRequestId()).toBeNull();
});
