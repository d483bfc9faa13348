import { loader } from "~/routes/healthz";

describe("GET /healthz", () => {
  it("answers 200 while the database answers", async () => {
    const response = await loader();
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
  });
});
