import { describe, expect, it } from "vitest";
import { changeDetail } from "./version-history";

describe("a changed file's line", () => {
  it("names both sizes when they differ, and says the content changed when they do not", () => {
    expect(changeDetail(64, 2048)).toBe("64.00 Bytes → 2.00 KB");
    expect(changeDetail(64, 64)).toBe("content changed");
  });
});
