// An error page reached without a reload names the request whose answer failed: the browser notes
// the X-Request-Id of single fetch's failed `.data` answers by the page they were for.
import { describe, expect, it } from "vitest";
import { dataRequestPage, failedDataRequestId, noteDataRequestIds } from "./error-page";

describe("the request id of an error page reached by a client-side navigation", () => {
  it("reads the page a single-fetch address is for", () => {
    expect(dataRequestPage(new URL("https://site.example/library.data?_routes=routes%2Flibrary"))).toBe("/library");
    expect(dataRequestPage(new URL("https://site.example/_root.data?index"))).toBe("/");
    expect(dataRequestPage(new URL("https://site.example/library/abc.data"))).toBe("/library/abc");
    expect(dataRequestPage(new URL("https://site.example/api/library/tiers"))).toBeNull();
  });

  it("notes the id of a page's failed `.data` answer, and forgets it once one succeeds", async () => {
    const answers: Response[] = [];
    const win = { fetch: async () => answers.shift()!, location: { origin: "https://site.example" } } as unknown as Parameters<typeof noteDataRequestIds>[0];
    noteDataRequestIds(win);
    const answer = (status: number, id: string) => answers.push(new Response(null, { status, headers: { "X-Request-Id": id } }));

    answer(404, "id-of-the-404");
    expect((await win.fetch(new URL("https://site.example/no-such-page.data"))).status).toBe(404);
    expect(failedDataRequestId("/no-such-page")).toBe("id-of-the-404");
    expect(failedDataRequestId("/no-such-page/")).toBe("id-of-the-404");

    // Another site's answers and addresses that are not single fetch's are not noted.
    answer(500, "not-ours");
    await win.fetch("https://elsewhere.example/library.data");
    answer(500, "not-data");
    await win.fetch("/library");
    expect(failedDataRequestId("/library")).toBeNull();

    answer(500, "id-of-the-500");
    await win.fetch(new Request("https://site.example/library.data?_routes=routes%2Flibrary", { method: "POST" }));
    expect(failedDataRequestId("/library")).toBe("id-of-the-500");
    answer(200, "id-of-the-200");
    await win.fetch("/library.data");
    expect(failedDataRequestId("/library")).toBeNull();
    expect(failedDataRequestId("/no-such-page")).toBe("id-of-the-404");
  });
});
