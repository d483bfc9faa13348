import { describe, expect, it } from "vitest";
import { displayVersion, downloadStatus, normalizeVersion } from "./versions";

describe("versions", () => {
  it("ignores a leading V when comparing", () => {
    expect(normalizeVersion("V1.2")).toBe("1.2");
    expect(normalizeVersion("v1.2")).toBe("1.2");
  });

  it("shows V1.0 when a post has no version", () => {
    expect(displayVersion(null)).toBe("V1.0");
    expect(displayVersion("  ")).toBe("V1.0");
    expect(displayVersion("V2.0")).toBe("V2.0");
  });

  it("tells never, outdated and current apart", () => {
    expect(downloadStatus("V1.0", null)).toBe("never");
    expect(downloadStatus("V1.1", { version: "V1.0" })).toBe("outdated");
    expect(downloadStatus("V1.1", { version: "1.1" })).toBe("current");
    expect(downloadStatus("V1.1", { version: "V1.1" })).toBe("current");
    // A version missing on either side counts as current.
    expect(downloadStatus("V1.1", { version: "" })).toBe("current");
    expect(downloadStatus(null, { version: "V1.0" })).toBe("current");
  });
});
