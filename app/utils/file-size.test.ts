import { describe, expect, it } from "vitest";
import { formatFileSize } from "./file-size";

describe("formatFileSize", () => {
  it("uses base 1024 units with two decimals", () => {
    expect(formatFileSize(0)).toBe("0.00 Bytes");
    expect(formatFileSize(512)).toBe("512.00 Bytes");
    expect(formatFileSize(1023)).toBe("1023.00 Bytes");
    expect(formatFileSize(1024)).toBe("1.00 KB");
    expect(formatFileSize(1536)).toBe("1.50 KB");
    expect(formatFileSize(5 * 1024 * 1024)).toBe("5.00 MB");
    expect(formatFileSize(512 * 1024 * 1024)).toBe("512.00 MB");
    expect(formatFileSize(3.25 * 1024 ** 3)).toBe("3.25 GB");
    expect(formatFileSize(2 * 1024 ** 4)).toBe("2.00 TB");
  });

  it("stays in TB beyond it and accepts bigint and missing sizes", () => {
    expect(formatFileSize(2048 * 1024 ** 4)).toBe("2048.00 TB");
    expect(formatFileSize(BigInt(2048))).toBe("2.00 KB");
    expect(formatFileSize(null)).toBe("0.00 Bytes");
    expect(formatFileSize(undefined)).toBe("0.00 Bytes");
  });
});
