import { isSafeLink, panelInputSchema } from "./panel-schemas";

describe("panelInputSchema", () => {
  it("trims and accepts form strings", () => {
    expect(panelInputSchema.parse({ title: " A ", link: " https://x.test ", description: "", index: "3" })).toEqual({
      title: "A",
      link: "https://x.test",
      description: null,
      index: 3,
    });
  });
  it("answers the spec's message for a blank title or link", () => {
    const result = panelInputSchema.safeParse({ title: "", link: "https://x.test" });
    expect(result.success ? null : result.error.issues[0]!.message).toBe("Title and Link are required.");
  });
  it("refuses a negative or fractional index", () => {
    expect(panelInputSchema.safeParse({ title: "A", link: "/a", index: "-1" }).success).toBe(false);
    expect(panelInputSchema.safeParse({ title: "A", link: "/a", index: 1.5 }).success).toBe(false);
    expect(panelInputSchema.parse({ title: "A", link: "/a", index: "" }).index).toBeUndefined();
  });
});

describe("isSafeLink", () => {
  it("allows http(s) and site paths only", () => {
    expect(isSafeLink("https://a.test/x")).toBe(true);
    expect(isSafeLink("/library")).toBe(true);
    expect(isSafeLink("//evil.test")).toBe(false);
    expect(isSafeLink("javascript:alert(1)")).toBe(false);
    expect(isSafeLink("data:text/html,x")).toBe(false);
  });
});
